/**
 * What every tool module receives, the `guru_slug` parameter they all share,
 * and the wrapper that turns thrown errors into `isError` results.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Assistant } from '../../core/assistant.js';
import type { Operation } from '../../core/errors.js';
import { GuruSlug } from '../../core/schemas.js';
import type { Logger } from '../../log.js';
import type { GuruSelector } from '../gurus.js';
import type { Era, ToolExtra } from '../progress.js';
import type { McpRateLimit } from '../rate-limit.js';
import { toolError } from '../results.js';

export interface ToolContext {
  readonly assistant: Assistant;
  readonly gurus: GuruSelector;
  readonly logger: Logger;
  /** The protocol era the server instance serves. */
  readonly era: Era;
  /** The rate limit of tool calls and resource reads (streamable HTTP); stdio has none. */
  readonly rateLimit?: McpRateLimit;
}

/** Without a description: its name says it, the server's instructions and list_gurus say where slugs come from, and it is on every tool. */
export const guruSlugParameter = GuruSlug.optional();

/**
 * Runs a tool body, charged to the rate limit first where there is one; a GuruError becomes its
 * spec message (and hint), anything else a logged generic error.
 */
export function guarded<Args>(
  context: ToolContext,
  tool: string,
  operation: Operation,
  body: (args: Args, extra: ToolExtra) => Promise<CallToolResult>,
): (args: Args, extra: ToolExtra) => Promise<CallToolResult> {
  return async (args, extra) => {
    try {
      await context.rateLimit?.charge(operation, args, extra);
      const result = await body(args, extra);
      if (result.isError !== true) await context.rateLimit?.succeeded(operation, args);
      return result;
    } catch (error) {
      return toolError(error, { operation, tool, logger: context.logger, signal: extra.mcpReq.signal });
    }
  };
}
