/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension): `ask` and
 * `semantic_search` name an HTML view, `ui://guru/answer-view`, that hosts such
 * as Claude, ChatGPT and VS Code show beside the conversation. Only a client that
 * declares the extension in its capabilities sees the view: for every other one
 * `tools/list`, `resources/list` and the results stay exactly as they are.
 *
 * The decision is made when a list is asked for, from the capabilities the
 * client declared on this connection (2025 era: at initialize, so per HTTP
 * session; 2026-07-28: with each request). The view's HTML is read from disk
 * on the first `resources/read` only, never at start-up.
 *
 * Written by hand rather than with `@modelcontextprotocol/ext-apps/server`
 * (registerAppTool, registerAppResource): the package is a development
 * dependency only, and what it writes is the two constants below.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { McpServer, ReadResourceResult, RegisteredTool } from '@modelcontextprotocol/server';

export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
export const VIEW_URI = 'ui://guru/answer-view';
/** The MIME type hosts compare as an exact string. */
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';
/** What the tools' definitions carry: the current key and the older flat one (as registerAppTool writes both). */
const TOOL_META = { ui: { resourceUri: VIEW_URI }, 'ui/resourceUri': VIEW_URI };

/** Where a 2026-07-28 request carries its client's capabilities. */
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
/** The requests whose answer depends on the extension: what the handlers read of the tools and resources. */
const DECIDING = new Set(['tools/list', 'resources/list', 'resources/read']);

type Capabilities = { extensions?: Record<string, unknown> } | undefined;
type Handler = (request: unknown, ctx: { mcpReq?: { envelope?: Record<string, unknown> } }) => unknown;

const declares = (capabilities: Capabilities) => {
  const declared = capabilities?.extensions?.[UI_EXTENSION];
  return declared !== undefined && declared !== null;
};

/** Names the view on a tool's definition, for clients that declare the extension only. */
export interface AnswerView {
  show(tool: RegisteredTool): void;
}

/**
 * Registers the view's resource on `server`, there only for clients that
 * declare the extension (a client without it gets "disabled", as for any
 * resource it was never offered); the tools that show the view are passed to
 * `show`. Call it on a new server, before its resources are listed.
 */
export function offerAnswerView(server: McpServer): AnswerView {
  // A 2026-07-28 request declares its client's capabilities itself (over stdio the SDK keeps none
  // for the server), so the decision is made per request: the SDK's handlers read the tools'
  // _meta and the resource's `enabled` synchronously, while `current` holds. The handlers are
  // wrapped where the SDK keeps them (the resources' are set by McpServer's constructor already).
  let current: Capabilities;
  const decide = (handler: Handler): Handler => (request, ctx) => {
    current = ctx.mcpReq?.envelope?.[CAPABILITIES_KEY] as Capabilities;
    try {
      return handler(request, ctx);
    } finally {
      current = undefined;
    }
  };
  const handlers = (server.server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  if (handlers instanceof Map) {
    const stored = handlers as Map<string, Handler>;
    const set = stored.set.bind(stored);
    stored.set = (method, handler) => set(method, DECIDING.has(method) ? decide(handler) : handler);
    for (const method of DECIDING) {
      const handler = stored.get(method);
      if (handler !== undefined) stored.set(method, handler);
    }
  }
  // The 2025 era: declared at initialize, for the connection (over HTTP, the session).
  const declaresUi = () => declares(current ?? (server.server.getClientCapabilities() as Capabilities));

  const resource = server.registerResource(
    'answer-view',
    VIEW_URI,
    {
      title: 'Answer view',
      description: 'The answers of ask and the results of semantic_search as an interactive view (MCP Apps).',
      mimeType: VIEW_MIME_TYPE,
    },
    (): ReadResourceResult => ({
      contents: [
        {
          uri: VIEW_URI,
          mimeType: VIEW_MIME_TYPE,
          text: viewHtml(),
          // Nothing outside the view: no connections, images, fonts or frames of other origins.
          _meta: { ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: true } },
        },
      ],
    }),
  );
  Object.defineProperty(resource, 'enabled', { configurable: true, enumerable: true, get: declaresUi, set: () => {} });

  return {
    show(tool) {
      const own = tool._meta;
      // Read by the SDK each time it lists the tools; undefined leaves the key out of the JSON.
      Object.defineProperty(tool, '_meta', {
        configurable: true,
        enumerable: true,
        get: () => (declaresUi() ? { ...own, ...TOOL_META } : own),
        set: () => {},
      });
    },
  };
}

let html: string | undefined;

/**
 * The view's page with the web interface's trust bands put in, built on the
 * first read. The files are beside this module in the sources, and in
 * dist/bin/mcp-apps/ and dist/bin/web/ for the bundled command (scripts/bundle.js).
 */
export function viewHtml(): string {
  html ??= (() => {
    const page = firstFile([new URL('./answer-view.html', import.meta.url), new URL('./mcp-apps/answer-view.html', import.meta.url)]);
    const bands = firstFile([new URL('../../web/assets/trust-bands.js', import.meta.url), new URL('./web/trust-bands.js', import.meta.url)]);
    // The bands are an ES module for the web interface; the view holds them in its one classic script.
    return page.replace('/* TRUST_BANDS */', () => bands.replace(/^export /gm, ''));
  })();
  return html;
}

function firstFile(candidates: URL[]): string {
  const found = candidates.map((url) => fileURLToPath(url)).find((path) => existsSync(path));
  // Said to the client as it is: no paths of this machine in it.
  if (found === undefined) throw new Error('The answer view is missing from this installation of guru-mcp: install it again.');
  return readFileSync(found, 'utf8');
}
