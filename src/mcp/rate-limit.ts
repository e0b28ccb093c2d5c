/**
 * The rate limit of tool calls and resource reads over streamable HTTP: the
 * REST API's limit (GURU_RATE_LIMIT_PER_MINUTE, one limiter and one store for
 * both), each call or read charged as the REST request it stands for. Its guru and end user (on the
 * operations where REST reads `external_user_id`) make its bucket, and its key
 * pays for all its users together: the bearer key, or without one (a loopback
 * binding) every keyless client as one key. Guru administration (list_gurus,
 * create_guru) is the operator's and goes unlimited, as the web interface's
 * operator routes do. stdio has no limit: its one client is the local user's.
 */
import { Errors, type Operation } from '../core/errors.js';
import { describeError, type Logger } from '../log.js';
import type { RateLimiter } from '../state/rate-limiter.js';
import type { GuruSelector } from './gurus.js';
import type { ToolExtra } from './progress.js';

/** The operations whose `external_user_id` names the end user charged (REST: the routes with `endUserIn`). */
const END_USER_OPERATIONS: ReadonlySet<Operation> = new Set([
  'ask',
  'answer_progress',
  'semantic_search',
  'list_sessions',
  'enduser_data',
  'erase_enduser_data',
]);

/** Operations that name no guru: charged to the connection's guru when it has one (REST: the key's guru). */
const GURU_FREE: ReadonlySet<Operation> = new Set(['import_channel', 'import_playlist']);

/** The caller of keyless requests (a loopback binding without GURU_MCP_REQUIRE_KEY): all of them are one. */
const KEYLESS_CALLER = 'mcp-http:without-key';

export class McpRateLimit {
  readonly #limiter: RateLimiter;
  readonly #gurus: GuruSelector;
  readonly #logger: Logger;

  constructor(limiter: RateLimiter, gurus: GuruSelector, logger: Logger) {
    this.#limiter = limiter;
    this.#gurus = gurus;
    this.#logger = logger;
  }

  /** Charges one tool call of `operation`; throws the operation's throttled GuruError over the limit. */
  async charge(operation: Operation, args: unknown, extra: ToolExtra): Promise<void> {
    if (operation === 'admin') return;
    const guru = await this.#guruOf(operation, args);
    const externalUserId = END_USER_OPERATIONS.has(operation) ? stringArgument(args, 'external_user_id') : undefined;
    await this.#consume(operation, guru, extra, externalUserId);
  }

  /** Charges one read of a resource of `guru` (the REST request of `operation` it stands for); throws over the limit. */
  async chargeRead(operation: Operation, guru: string, extra: ToolExtra): Promise<void> {
    await this.#consume(operation, guru, extra, undefined);
  }

  async #consume(operation: Operation, guru: string, extra: ToolExtra, externalUserId: string | undefined): Promise<void> {
    const apiKey = extra.http?.authInfo?.token ?? KEYLESS_CALLER;
    let decision;
    try {
      decision = await this.#limiter.consume({ guru, apiKey, externalUserId });
    } catch (error) {
      // A broken state store must not take the endpoint down with it (as for REST).
      this.#logger.warn('rate limiter unavailable; request let through', { error: describeError(error) });
      return;
    }
    if (!decision.allowed) throw Errors.throttled(operation, decision.retryAfterSeconds);
  }

  /** After a call of `operation` succeeded: an erased end user's window goes with their data. */
  async succeeded(operation: Operation, args: unknown): Promise<void> {
    if (operation !== 'erase_enduser_data') return;
    const externalUserId = stringArgument(args, 'external_user_id');
    if (externalUserId === undefined) return;
    try {
      await this.#limiter.forget({ guru: await this.#guruOf(operation, args), externalUserId });
    } catch (error) {
      this.#logger.warn("rate limiter unavailable; an erased end user's window is left to expire", { error: describeError(error) });
    }
  }

  async #guruOf(operation: Operation, args: unknown): Promise<string> {
    if (GURU_FREE.has(operation)) return this.#gurus.select(operation, undefined).catch(() => '');
    // A guru that cannot be chosen fails here with the error the tool itself would give.
    return this.#gurus.select(operation, stringArgument(args, 'guru_slug'));
  }
}

function stringArgument(args: unknown, name: string): string | undefined {
  if (typeof args !== 'object' || args === null || !(name in args)) return undefined;
  const value = (args as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}
