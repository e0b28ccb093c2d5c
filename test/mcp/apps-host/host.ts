/**
 * A test host for MCP Apps views, on the SDK's host side (AppBridge and
 * PostMessageTransport of @modelcontextprotocol/ext-apps/app-bridge), bundled
 * for the browser by test/mcp/answer-view.browser.test.ts. Like the SDK's
 * reference host it holds the view in a sandboxed `srcdoc` frame with the
 * Content-Security-Policy the resource asks for; tool calls of the view go to
 * `window.hostCallTool`, which the test connects to a real MCP client in Node.
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

interface Csp {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}

export interface ViewStart {
  html: string;
  csp: Csp;
  theme: 'light' | 'dark';
  toolInput: Record<string, unknown>;
  toolResult: unknown;
}

declare global {
  interface Window {
    hostCallTool(params: unknown): Promise<unknown>;
    startView(start: ViewStart): Promise<void>;
    openedLinks: string[];
  }
}

/** The policy MCP Apps hosts apply: nothing from outside but the domains the resource names. */
function policy(csp: Csp): string {
  const list = (domains: string[] | undefined) => (domains ?? []).join(' ');
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${list(csp.resourceDomains)}`,
    `style-src 'unsafe-inline' ${list(csp.resourceDomains)}`,
    `img-src data: ${list(csp.resourceDomains)}`,
    `font-src ${list(csp.resourceDomains) || "'none'"}`,
    `media-src data: ${list(csp.resourceDomains)}`,
    `connect-src ${list(csp.connectDomains) || "'none'"}`,
    `frame-src ${list(csp.frameDomains) || "'none'"}`,
    `base-uri ${list(csp.baseUriDomains) || "'none'"}`,
  ].join('; ');
}

window.openedLinks = [];

window.startView = async ({ html, csp, theme, toolInput, toolResult }) => {
  document.querySelector('iframe')?.remove();
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.title = 'Guru answer';
  frame.style.cssText = 'width: 720px; height: 300px; border: 1px solid #8884; display: block;';
  document.body.append(frame);

  const bridge = new AppBridge(
    null,
    { name: 'guru-mcp-test-host', version: '1.0.0' },
    { openLinks: {}, serverTools: {}, logging: {} },
    {
      hostContext: {
        theme,
        platform: 'web',
        styles: { variables: { '--font-sans': 'DejaVu Sans, sans-serif' } as never },
      },
    },
  );
  bridge.oncalltool = async (params) => (await window.hostCallTool(params)) as never;
  bridge.onopenlink = async ({ url }) => {
    window.openedLinks.push(url);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) frame.style.height = `${height + 2}px`;
  };
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy(csp)}">`;
  frame.srcdoc = html.replace('<head>', `<head>${meta}`);
  await initialized;
  await bridge.sendToolInput({ arguments: toolInput });
  await bridge.sendToolResult(toolResult as never);
};
