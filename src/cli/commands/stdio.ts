/** `guru-mcp` and `guru-mcp stdio`: MCP over stdin/stdout. Nothing but protocol messages goes to stdout. */
import { openBackendOnFirstUse } from '../../compose.js';
import { runStdioServer } from '../../mcp/stdio.js';
import { sayHowToStart } from '../first-run.js';
import { waitForStopSignal } from '../signals.js';
import type { CommandContext } from '../spec.js';

/**
 * When the backend opens even though no client message has been answered: a 2026-07-28 client has no
 * handshake and may say nothing for long, and queued work should not wait for it.
 */
const OPEN_UNASKED_AFTER_MS = 1000;

/**
 * How long after the first response the backend opens: a client follows it at once with tools/list,
 * resources/list and the like, and loading the engine meanwhile would hold those answers up.
 */
const OPEN_AFTER_FIRST_RESPONSE_MS = 100;

export async function run(context: CommandContext): Promise<number> {
  const { config, logger } = context;
  const stopped = waitForStopSignal();
  // The handshake and tools/list need no data: the backend opens shortly after the first response
  // (so that queued work is taken up), on the first call that needs it, or after a second, whichever comes first.
  const backend = openBackendOnFirstUse(config, logger, { processing: true });
  let opened: Promise<void> | undefined;
  const openInBackground = () => {
    opened ??= backend
      .open()
      .then(() => sayHowToStart(backend, config, context.terminal.stderr))
      // A failed opening is logged by the backend, and every call that needs it answers with the reason.
      .catch(() => {});
  };
  setTimeout(openInBackground, OPEN_UNASKED_AFTER_MS).unref();
  try {
    // The session ends when the client closes stdin, or when the client stops the process by signal.
    const openAfterFirstResponse = () => setTimeout(openInBackground, OPEN_AFTER_FIRST_RESPONSE_MS).unref();
    await Promise.race([runStdioServer(backend, logger, openAfterFirstResponse, config.tools), stopped]);
  } finally {
    // A client's first call may have opened the backend before the timers fired, and the client may
    // have left at once: the hint still reaches stderr before the process ends.
    if (backend.isOpening()) openInBackground();
    await opened;
    await backend.close();
  }
  return 0;
}
