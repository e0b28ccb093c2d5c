/** Opening and closing the backend around a command's work. */
import type { OpenedBackend } from '../compose.js';
import type { GuruAdmin } from '../core/assistant.js';
import { CommandFailure } from './failures.js';
import type { CommandContext } from './spec.js';

/** Runs `work` with an open backend and closes it afterwards, also when `work` fails. */
export async function withBackend<T>(context: CommandContext, work: (backend: OpenedBackend) => Promise<T>): Promise<T> {
  const backend = await context.openBackend();
  try {
    return await work(backend);
  } finally {
    await backend.close();
  }
}

/** Guru administration exists only on a backend that owns its data. */
export function adminOf(backend: OpenedBackend): GuruAdmin {
  if (backend.admin) return backend.admin;
  throw new CommandFailure(
    'This backend cannot administer gurus.',
    'Gurus and keys are managed on the server that owns the data; run this command there.',
  );
}
