/** Raw MCP streamable-HTTP requests, for tests that send what an SDK client would not. */

/** An initialize request of a client that speaks protocol 2025-06-18. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** The headers every POST to the endpoint carries. */
export const JSON_AND_SSE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
