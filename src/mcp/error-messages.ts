/**
 * JSON-RPC errors on the wire with their message alone. The SDK's McpError
 * (thrown by our resource reads and by the SDK itself, e.g. for a URI no
 * resource matches) carries "MCP error <code>: " in its message, the protocol
 * layer sends that message as is, and the receiving client adds the prefix
 * again: "MCP error -32602: MCP error -32602: Resource … not found".
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJSONRPCErrorResponse } from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

function withoutCodePrefix(message: JSONRPCMessage): JSONRPCMessage {
  if (!isJSONRPCErrorResponse(message)) return message;
  const prefix = `MCP error ${message.error.code}: `;
  if (!message.error.message.startsWith(prefix)) return message;
  return { ...message, error: { ...message.error, message: message.error.message.slice(prefix.length) } };
}

/** Makes `transport` send error responses without the code prefix; returns it. */
export function sendPlainErrorMessages<T extends Transport>(transport: T): T {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(withoutCodePrefix(message), options);
  return transport;
}
