/**
 * The MCP Apps answer view in Chromium, in a test host built on the SDK's host
 * side (test/mcp/apps-host/host.ts: AppBridge, PostMessageTransport). The view
 * comes from the server's resource through a real MCP client that declares the
 * extension; the client's tool calls go to the real server over InMemory, so a
 * follow-up question and a vote made in the view land in the engine's store.
 *
 * GURU_UPDATE_SCREENSHOTS=1 writes the screenshots the docs show
 * (docs/screenshots/mcp-app-answer*.png); otherwise they go to a temporary directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { build } from 'esbuild';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { UI_EXTENSION, VIEW_MIME_TYPE } from '../../src/mcp/apps/answer-view.js';
import { serveConnection } from '../../src/mcp/stdio.js';
import { launchBrowser, watchedPage } from '../support/browser.js';
import type { ViewStart } from './apps-host/host.js';
import { CONFIG_GUIDE, INSTALL_GUIDE, openTestBackend, type TestBackend } from './support.js';

const screenshots = process.env.GURU_UPDATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url)) : mkdtempSync(join(tmpdir(), 'guru-mcp-app-shots-'));

let test: TestBackend;
let client: Client;
let browser: Browser;
let page: Page;
let problems: string[];
let html: string;
let csp: ViewStart['csp'];
/** The tool calls the view made through the host. */
const calls: { name: string; arguments: Record<string, unknown> }[] = [];

const QUESTION = 'How do I install Frobnicator?';

beforeAll(async () => {
  const [opened, launched, host] = await Promise.all([
    openTestBackend(),
    launchBrowser(),
    build({ entryPoints: [fileURLToPath(new URL('./apps-host/host.ts', import.meta.url))], bundle: true, write: false, format: 'iife', platform: 'browser', target: 'chrome120', logLevel: 'warning' }),
  ]);
  test = opened;
  browser = launched;
  await test.backend.admin!.createGuru({ slug: 'frob', name: 'Frobnicator' });
  client = new Client({ name: 'apps-host', version: '1.0.0' }, { capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } } } });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serveConnection({ backend: test.backend, logger: silentLogger }, serverSide);
  await client.connect(clientSide);
  const added = (await client.callTool({
    name: 'add_sources',
    arguments: {
      guru_slug: 'frob',
      text_sources: [
        { name: 'Install guide', content: INSTALL_GUIDE },
        { name: 'Configuration guide', content: CONFIG_GUIDE },
      ],
      wait: true,
    },
  })) as CallToolResult;
  expect(added.isError).toBeFalsy();

  // As a host does: the tool names the view, resources/read gives its page.
  const ask = (await client.listTools()).tools.find((tool) => tool.name === 'ask')!;
  const uri = (ask._meta as { ui: { resourceUri: string } }).ui.resourceUri;
  const [content] = (await client.readResource({ uri })).contents as unknown as [{ text: string; mimeType: string; _meta: { ui: { csp: ViewStart['csp'] } } }];
  expect(content.mimeType).toBe(VIEW_MIME_TYPE);
  html = content.text;
  csp = content._meta.ui.csp;

  ({ page, problems } = await watchedPage(browser, { viewport: { width: 760, height: 900 } }));
  await page.exposeFunction('hostCallTool', async (params: { name: string; arguments: Record<string, unknown> }) => {
    calls.push(params);
    return client.callTool(params);
  });
  await page.setContent(`<!DOCTYPE html><html><head><title>Test host</title></head><body style="margin:16px;background:#888"><script>${host.outputFiles[0]!.text}</script></body></html>`);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await client?.close();
  await test?.close();
  if (process.env.GURU_UPDATE_SCREENSHOTS !== '1') rmSync(screenshots, { recursive: true, force: true });
});

async function showResult(toolInput: Record<string, unknown>, toolResult: unknown, theme: 'light' | 'dark' = 'light'): Promise<FrameLocator> {
  const start: ViewStart = { html, csp, theme, toolInput, toolResult };
  await page.evaluate((s) => window.startView(s), start);
  return page.frameLocator('iframe');
}

async function sessionTurns(sessionId: string): Promise<{ question: string; user_vote: string | null }[]> {
  const session = (await client.callTool({ name: 'get_session', arguments: { guru_slug: 'frob', session_id: sessionId } })) as CallToolResult;
  return (session.structuredContent as { conversation: { question: string; user_vote: string | null }[] }).conversation;
}

describe('the answer view in chromium', () => {
  let sessionId: string;

  it("shows an ask result as a person reads it: the answer, references, the trust band's meaning, passages collapsed", async () => {
    const args = { guru_slug: 'frob', question: QUESTION };
    const result = (await client.callTool({ name: 'ask', arguments: args })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const answer = result.structuredContent as { session_id: string; trust_score: number; references: { title: string }[] };
    sessionId = answer.session_id;
    const view = await showResult(args, result);

    await expect.poll(() => view.getByRole('article', { name: 'Answer' }).textContent()).toContain('npm install -g frobnicator');
    await expect.poll(() => view.getByRole('heading', { level: 1 }).textContent()).toBe(QUESTION);
    const references = view.getByRole('region', { name: 'References' }).getByRole('listitem');
    expect(await references.count()).toBe(answer.references.length);
    expect(await references.first().textContent()).toBe(answer.references[0]!.title);
    const trust = view.getByRole('region', { name: 'Trust score' });
    expect(await trust.textContent()).toContain(`${answer.trust_score}/100`);
    expect(await trust.textContent()).toMatch(/evidence|declined/);
    expect(await trust.textContent()).toMatch(/Scores? \d/);

    const summary = view.getByText(/^Passages the answer drew on \(\d+\)$/);
    await summary.waitFor();
    const passage = view.locator('.passage .text').first();
    expect(await passage.isVisible()).toBe(false);
    await summary.click();
    expect(await passage.isVisible()).toBe(true);
    expect((await passage.textContent())!.length).toBeGreaterThan(20);
    await summary.click();

    // The follow-up questions come from the server, through the host.
    await view.getByRole('region', { name: 'Follow-up questions' }).getByRole('button').first().waitFor();
    expect(calls.map((call) => call.name)).toContain('follow_up_examples');
    await page.locator('iframe').screenshot({ path: join(screenshots, 'mcp-app-answer.png') });
    expect(problems).toEqual([]);
  });

  it('asks a follow-up from its button, in the same session, and records a vote with feedback on the new answer', async () => {
    const view = page.frameLocator('iframe');
    const button = view.getByRole('region', { name: 'Follow-up questions' }).getByRole('button').first();
    const followUp = (await button.textContent())!;
    await button.click();
    await expect.poll(() => view.getByRole('heading', { level: 1 }).textContent()).toBe(followUp);
    expect(calls.filter((call) => call.name === 'ask')).toEqual([{ name: 'ask', arguments: { question: followUp, session_id: sessionId, guru_slug: 'frob' } }]);
    await expect.poll(async () => (await sessionTurns(sessionId)).map((turn) => turn.question)).toEqual([QUESTION, followUp]);

    const feedback = view.getByRole('textbox', { name: 'Feedback (optional)' });
    await feedback.fill('Clear, thanks.');
    await view.getByRole('button', { name: 'Helpful', exact: true }).click();
    await expect.poll(() => view.getByRole('region', { name: 'Feedback' }).getByRole('status').textContent()).toBe('Thank you: your vote is recorded.');
    expect((await sessionTurns(sessionId)).map((turn) => turn.user_vote)).toEqual([null, 'upvote']);
    expect(calls.at(-1)?.arguments).toMatchObject({ vote_type: 'upvote', feedback: 'Clear, thanks.' });
    expect(problems).toEqual([]);
  });

  it('reads the answer aloud with the offline voice when Play is pressed', async () => {
    const view = page.frameLocator('iframe');
    await view.getByRole('button', { name: 'Play' }).click();
    await view.getByRole('button', { name: 'Stop' }).waitFor();
    expect(calls.at(-1)?.name).toBe('text_to_speech');
    expect(await view.locator('audio, body').first().evaluate(() => document.querySelector('[role=status]')?.textContent ?? '')).not.toMatch(/not available/);
    await view.getByRole('button', { name: 'Stop' }).click();
    await view.getByRole('button', { name: 'Play' }).waitFor();
    expect(problems).toEqual([]);
  });

  it('opens a reference through the host', async () => {
    const link = 'https://frob.example/docs/install';
    const result = (await client.callTool({ name: 'ask', arguments: { guru_slug: 'frob', question: QUESTION } })) as CallToolResult;
    const structured = result.structuredContent as { references: { link: string; title: string }[] };
    structured.references = [{ ...structured.references[0]!, link, title: 'Install guide online' }];
    const view = await showResult({ guru_slug: 'frob', question: QUESTION }, result);
    await view.getByRole('link', { name: 'Install guide online' }).click();
    await expect.poll(() => page.evaluate(() => window.openedLinks)).toContain(link);
  });

  it("never lets the answer's HTML run, and links only to http(s)", async () => {
    const result = (await client.callTool({ name: 'ask', arguments: { guru_slug: 'frob', question: QUESTION } })) as CallToolResult;
    const hostile = 'Look: <img src=x onerror="parent.postMessage(1, \'*\')"> <script>window.ran = 1</script> [click](javascript:alert(1)) and [docs](https://frob.example/docs) **bold** `<b>code</b>`';
    const view = await showResult({ guru_slug: 'frob', question: QUESTION }, { ...result, content: [{ type: 'text', text: hostile }, ...result.content.slice(1)] });
    const article = view.getByRole('article', { name: 'Answer' });
    await expect.poll(() => article.textContent()).toContain('<img src=x');
    expect(await article.locator('img, script, b').count()).toBe(0);
    expect(await article.getByRole('link').evaluateAll((links) => links.map((link) => link.getAttribute('href')))).toEqual(['https://frob.example/docs']);
    expect(await article.locator('strong').textContent()).toBe('bold');
    expect(await article.locator('code').textContent()).toBe('<b>code</b>');
    expect(problems).toEqual([]);
  });

  it('shows an error result in words', async () => {
    const args = { guru_slug: 'no-such-guru', question: QUESTION };
    const result = (await client.callTool({ name: 'ask', arguments: args })) as CallToolResult;
    expect(result.isError).toBe(true);
    const view = await showResult(args, result);
    const alert = view.getByRole('alert');
    await expect.poll(() => alert.textContent()).toMatch(/^The guru could not do this: .*not found/i);
  });

  it('follows the dark theme of the host', async () => {
    const args = { guru_slug: 'frob', question: QUESTION };
    const result = (await client.callTool({ name: 'ask', arguments: args })) as CallToolResult;
    const view = await showResult(args, result, 'dark');
    await view.getByRole('article', { name: 'Answer' }).waitFor();
    const colours = await view.locator('body').evaluate((body) => {
      const style = getComputedStyle(body);
      return { background: style.backgroundColor, text: style.color };
    });
    const lightness = (rgb: string) => rgb.match(/\d+/g)!.slice(0, 3).map(Number).reduce((sum, value) => sum + value, 0) / 3;
    expect(lightness(colours.background)).toBeLessThan(60);
    expect(lightness(colours.text)).toBeGreaterThan(180);
    await view.getByRole('region', { name: 'Follow-up questions' }).getByRole('button').first().waitFor();
    await page.locator('iframe').screenshot({ path: join(screenshots, 'mcp-app-answer-dark.png') });
    expect(problems).toEqual([]);
  });

  it('shows the results of semantic_search', async () => {
    const args = { guru_slug: 'frob', question: 'wibble level' };
    const result = (await client.callTool({ name: 'semantic_search', arguments: args })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const view = await showResult(args, result);
    await expect.poll(() => view.getByRole('heading', { level: 1 }).textContent()).toBe('Sources for “wibble level”');
    expect(await view.getByRole('listitem').first().textContent()).toContain('Configuration guide');
    await view.getByText('Excerpt').first().click();
    expect(await view.locator('.passage').first().textContent()).toContain('wibble level');
  });
});
