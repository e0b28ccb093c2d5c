/** `guru-mcp` and `guru-mcp stdio`: MCP over stdin/stdout. Nothing but protocol messages goes to stdout. */
import { sayHowToStart } from '../first-run.js';
import { waitForStopSignal } from '../signals.js';
import type { CommandContext } from '../spec.js';

export async function run(context: CommandContext): Promise<number> {
  const { runStdioServer } = await import('../../mcp/stdio.js');
  const stopped = waitForStopSignal();
  const backend = await context.openBackend({ processing: true });
  try {
    await sayHowToStart(backend, context.config, context.terminal.stderr);
    // The session ends when the client closes stdin, or when the client stops the process by signal.
    await Promise.race([runStdioServer(backend, context.logger), stopped]);
  } finally {
    await backend.close();
  }
  return 0;
}
