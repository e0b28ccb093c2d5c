/**
 * MCP over stdio: the protocol owns stdout, logs go to stderr. Resolves when
 * the connection ends: the client closes stdin, or the transport closes.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Backend } from '../core/assistant.js';
import type { Logger } from '../log.js';
import { createMcpServer, whenClosed } from './server.js';

export async function runStdioServer(backend: Backend, logger: Logger): Promise<void> {
  const server = createMcpServer({ backend, logger });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    whenClosed(server, resolve);
  });
  transport.onerror = (error) => logger.warn('mcp stdio transport error', { error: error.message });

  // The SDK transport does not watch for the end of stdin or a broken stdout; a client that goes away ends the session.
  const end = () => void server.close();
  process.stdin.once('end', end);
  process.stdin.once('close', end);
  process.stdout.once('error', end);

  await server.connect(transport);
  logger.info('mcp server listening on stdio');
  try {
    await closed;
  } finally {
    process.stdin.off('end', end);
    process.stdin.off('close', end);
    process.stdout.off('error', end);
  }
  logger.info('mcp stdio session ended');
}
