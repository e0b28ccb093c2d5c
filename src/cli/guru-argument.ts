/**
 * Which guru a command works on, and which arguments are left for the command.
 * The slug comes first, and may be left out when a guru is implied: the default
 * guru (--default-guru, GURU_DEFAULT_GURU or the config file), else the only
 * guru there is, as the MCP tools choose. A slug is told from the command's own
 * arguments like this:
 *  - a command with a fixed number of arguments: by their count (one more than
 *    the command takes without a slug means the first is the slug);
 *  - a command whose last argument takes the rest (a question, files, ids): the
 *    first argument is the slug only when a guru of that name exists, so a word
 *    of a question is never taken for a guru that does not exist;
 *  - no guru implied: the first argument is the slug, as it always was.
 */
import type { Backend } from '../core/assistant.js';
import { checkPositionals } from './argv.js';
import { CommandFailure, UsageError } from './failures.js';
import { commandLine } from './invocation.js';
import type { CommandContext } from './spec.js';

export interface GuruArguments {
  readonly slug: string;
  /** The command's other positional arguments. */
  readonly args: readonly string[];
}

/** The gurus a command may name: every guru of the local engine; on a remote backend, the default guru only (its key reaches no other). */
async function knownGurus(backend: Backend): Promise<string[]> {
  if (backend.admin !== undefined) return (await backend.admin.listGurus()).map((guru) => guru.slug);
  return backend.defaultGuru === undefined ? [] : [backend.defaultGuru];
}

export async function guruArguments(context: CommandContext, backend: Backend): Promise<GuruArguments> {
  const { command, args } = context;
  const [guru, ...others] = command.positionals;
  if (guru?.guru !== true) throw new Error(`${command.name} takes no guru slug`);
  const takesRest = others.some((positional) => positional.variadic);

  const named = (): GuruArguments => {
    const [slug, ...rest] = args;
    if (slug === undefined) {
      throw new UsageError('missing <slug>: name the guru, or set a default guru (--default-guru SLUG or GURU_DEFAULT_GURU)', command.name);
    }
    checkPositionals(others, rest, command.name);
    return { slug, args: rest };
  };
  const implied = (slug: string): GuruArguments => {
    checkPositionals(others, args, command.name);
    return { slug, args };
  };

  if (!takesRest && args.length > others.length) return named();
  if (!takesRest && backend.defaultGuru !== undefined) return implied(backend.defaultGuru);
  const gurus = await knownGurus(backend);
  const only = backend.defaultGuru ?? (gurus.length === 1 ? gurus[0] : undefined);
  if (only === undefined) {
    if (backend.admin !== undefined && gurus.length === 0) {
      throw new CommandFailure('No guru exists yet.', `Create one with: ${commandLine(context.config, 'guru create <slug>')}`);
    }
    return named();
  }
  if (takesRest && args[0] !== undefined && gurus.includes(args[0])) return named();
  return implied(only);
}
