/**
 * MCP over stdio, in both protocol eras: the SDK's serving entry picks the era
 * from the client's first message and builds one server for the connection.
 * The protocol owns stdout, logs go to stderr. Resolves when the connection
 * ends: the client closes stdin, or the transport closes.
 */
import type { JSONRPCMessage, McpServer } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Backend } from '../core/assistant.js';
import { describeError, type Logger } from '../log.js';
import { GuruSelector } from './gurus.js';
import { createMcpServer } from './server.js';
import { ListenWatches } from './subscriptions.js';

/** The stdio transport, showing every message that passes to `watches` (the entry answers listen requests itself). */
class WatchedStdioTransport extends StdioServerTransport {
  readonly #watches: ListenWatches;
  readonly #closed: () => void;

  constructor(watches: ListenWatches, closed: () => void) {
    super();
    this.#watches = watches;
    this.#closed = closed;
  }

  override start(): Promise<void> {
    // The entry sets its handlers before it starts the transport.
    const onmessage = this.onmessage;
    const onclose = this.onclose;
    this.onmessage = (message) => {
      this.#watches.inbound(message);
      onmessage?.(message);
    };
    this.onclose = () => {
      onclose?.();
      this.#closed();
    };
    return super.start();
  }

  override send(message: JSONRPCMessage): Promise<void> {
    this.#watches.outbound(message);
    return super.send(message);
  }
}

export async function runStdioServer(backend: Backend, logger: Logger): Promise<void> {
  /** The 2026-07-28 server of this connection: the entry routes its resource updates to the open listen requests. */
  let modern: McpServer | undefined;
  const watches = new ListenWatches({ assistant: backend.assistant, gurus: new GuruSelector(backend), logger }, (uri) => {
    modern?.server.sendResourceUpdated({ uri }).catch((error: unknown) => {
      logger.debug('mcp resource update not sent', { uri, error: describeError(error) });
    });
  });
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const transport = new WatchedStdioTransport(watches, () => ended());

  serveStdio(
    ({ era }) => {
      const server = createMcpServer({ backend, logger, era });
      if (era === 'modern') modern = server;
      return server;
    },
    { transport, onerror: (error) => logger.debug('mcp stdio', { error: error.message }) },
  );
  logger.info('mcp server listening on stdio');
  try {
    await closed;
  } finally {
    watches.close();
  }
  logger.info('mcp stdio session ended');
}
