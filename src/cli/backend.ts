/** Opening and closing the backend around a command's work. */
import type { OpenedBackend } from '../compose.js';
import type { GuruAdmin } from '../core/assistant.js';
import { CommandFailure } from './failures.js';
import { guruArguments, type GuruArguments } from './guru-argument.js';
import type { BackendUse, CommandContext } from './spec.js';

const READING: BackendUse = { processing: false };

/** Runs `work` with an open backend and closes it afterwards, also when `work` fails. */
export async function withBackend<T>(context: CommandContext, work: (backend: OpenedBackend) => Promise<T>, use = READING): Promise<T> {
  const backend = await context.openBackend(use);
  try {
    return await work(backend);
  } finally {
    await backend.close();
  }
}

/** withBackend for a command on one guru: `work` gets the guru's slug and the other arguments. */
export function withGuru<T>(
  context: CommandContext,
  work: (backend: OpenedBackend, guru: GuruArguments) => Promise<T>,
  use = READING,
): Promise<T> {
  return withBackend(context, async (backend) => work(backend, await guruArguments(context, backend)), use);
}

/** Guru administration exists only on a backend that owns its data. */
export function adminOf(backend: OpenedBackend): GuruAdmin {
  if (backend.admin) return backend.admin;
  throw new CommandFailure(
    'This backend cannot administer gurus.',
    'Gurus and keys are managed on the server that owns the data; run this command there.',
  );
}
