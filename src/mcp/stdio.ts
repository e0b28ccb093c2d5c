/**
 * MCP over stdio, in both protocol eras: the SDK's serving entry picks the era
 * from the client's first message and builds one server for the connection.
 * The protocol owns stdout, logs go to stderr.
 */
import type { JSONRPCMessage, McpServer, Transport, TransportSendOptions } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Backend } from '../core/assistant.js';
import { describeError, type Logger } from '../log.js';
import { GuruSelector } from './gurus.js';
import { createMcpServer, type GuruMcpServerOptions } from './server.js';
import type { ToolGroup } from './tool-groups.js';
import { ListenWatches } from './subscriptions.js';

/**
 * A transport that shows every message passing through it to `watches`: the
 * SDK's entry answers 2026-07-28 listen requests itself, before any server.
 */
class ListenWatchingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  readonly #inner: Transport;
  readonly #watches: ListenWatches;
  readonly #ended: () => void;
  #answered: (() => void) | undefined;

  constructor(inner: Transport, watches: ListenWatches, ended: () => void, answered?: () => void) {
    this.#inner = inner;
    this.#watches = watches;
    this.#ended = ended;
    this.#answered = answered;
  }

  start(): Promise<void> {
    this.#inner.onmessage = (message, extra) => {
      this.#watches.inbound(message);
      this.onmessage?.(message, extra);
    };
    this.#inner.onclose = () => {
      this.#watches.close();
      this.onclose?.();
      this.#ended();
    };
    this.#inner.onerror = (error) => this.onerror?.(error);
    return this.#inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.#watches.outbound(message);
    await this.#inner.send(message, options);
    if ('id' in message && !('method' in message) && this.#answered !== undefined) {
      const answered = this.#answered;
      this.#answered = undefined;
      answered();
    }
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

export interface StdioConnection {
  /** Resolves when the connection has ended: the client went away, or `close()`. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

export interface StdioConnectionOptions extends Omit<GuruMcpServerOptions, 'era'> {
  /** Called once the first response has been written (the handshake, in the 2025 era): the client is served, slower work may start. */
  readonly onFirstResponse?: () => void;
}

/** Serves one connection over `transport` (the process's stdin and stdout unless given), in the era its client opens with. */
export function serveConnection(options: StdioConnectionOptions, transport: Transport = new StdioServerTransport()): StdioConnection {
  const { backend, logger, scope } = options;
  /** The 2026-07-28 server of this connection: the entry routes its resource updates to the open listen requests. */
  let modern: McpServer | undefined;
  const watches = new ListenWatches(
    { assistant: backend.assistant, gurus: new GuruSelector(backend, scope), logger },
    (uri) => {
      modern?.server.sendResourceUpdated({ uri }).catch((error: unknown) => {
        logger.debug('mcp resource update not sent', { uri, error: describeError(error) });
      });
    },
    options.dataSourcePollMs,
  );
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const watched = new ListenWatchingTransport(transport, watches, () => ended(), options.onFirstResponse);
  const handle = serveStdio(
    ({ era }) => {
      const server = createMcpServer({ ...options, era });
      if (era === 'modern') modern = server;
      return server;
    },
    { transport: watched, onerror: (error) => logger.debug('mcp stdio', { error: error.message }) },
  );
  return { closed, close: () => handle.close() };
}

/** Serves MCP on this process's stdin and stdout; resolves when the client has gone (stdin closed) or the transport closed. */
export async function runStdioServer(
  backend: Backend,
  logger: Logger,
  onFirstResponse?: () => void,
  tools?: readonly ToolGroup[],
): Promise<void> {
  const connection = serveConnection({ backend, logger, ...(onFirstResponse === undefined ? {} : { onFirstResponse }), ...(tools === undefined ? {} : { tools }) });
  logger.info('mcp server listening on stdio');
  await connection.closed;
  logger.info('mcp stdio session ended');
}
