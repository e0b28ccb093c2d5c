/** `guru-mcp` and `guru-mcp stdio`: MCP over stdin/stdout. Nothing but protocol messages goes to stdout. */
import { openBackendOnFirstUse } from '../../compose.js';
import { sayHowToStart } from '../first-run.js';
import { waitForStopSignal } from '../signals.js';
import type { CommandContext } from '../spec.js';

export async function run(context: CommandContext): Promise<number> {
  const { config, logger } = context;
  const { runStdioServer } = await import('../../mcp/stdio.js');
  const stopped = waitForStopSignal();
  // The handshake and tools/list need no data: the backend opens once the first response is out
  // (so that queued work is taken up) or on the first call that needs it, whichever comes first.
  const backend = openBackendOnFirstUse(config, logger, { processing: true });
  const openInBackground = () => {
    backend
      .open()
      .then(() => sayHowToStart(backend, config, context.terminal.stderr))
      // A failed opening is logged by the backend, and every call that needs it answers with the reason.
      .catch(() => {});
  };
  try {
    // The session ends when the client closes stdin, or when the client stops the process by signal.
    await Promise.race([runStdioServer(backend, logger, openInBackground), stopped]);
  } finally {
    await backend.close();
  }
  return 0;
}
