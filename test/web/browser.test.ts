/**
 * The web interface in a real browser against the built `serve`: sign in, add a
 * text and a URL, upload a PDF and watch the statuses, crawl a loopback site, ask
 * and see the streamed answer with its references, vote, read and delete the
 * session, look up and erase an end user's data, delete sources and a guru after confirmation.
 * The tests run in order on one page.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, watchedPage } from '../support/browser.js';
import { reportPdf } from '../support/documents.js';
import { respond, startLoopbackServer, type LoopbackServer, type Route } from '../support/loopback-server.js';
import { serveGuru, type ServedGuru } from '../support/serve.js';

const page_ = (title: string, body: string) => `<!DOCTYPE html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

/** A page that answers only once its gate opens: what the tests watch while it is pending. */
function gated(title: string): { route: Route; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    route: async (request, response) => {
      await opened;
      respond(page_(title, `<p>${title} of the Frobnicator, held back until the test lets it through.</p>`))(request, response);
    },
    open,
  };
}
const slowSource = gated('Slow page');
const ONE_PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const heldCrawl = gated('Held page');

let served: ServedGuru;
let site: LoopbackServer;
let browser: Browser;
let page: Page;
let problems: string[];

beforeAll(async () => {
  [served, site, browser] = await Promise.all([
    serveGuru('frob'),
    startLoopbackServer({
      '/': respond(page_('Frobnicator docs', '<p>Start here.</p><a href="/dial">The dial</a> <a href="/gears">Gears</a>')),
      '/dial': respond(page_('Wibble dial', '<p>The wibble dial of the Frobnicator is turned clockwise to calibrate it. Calibration takes two minutes.</p>')),
      '/gears': respond(page_('Gears', '<p>The gears of the Frobnicator are oiled every spring with light machine oil.</p>')),
      '/slow': slowSource.route,
      '/big/': respond(page_('Big site', '<p>Many pages.</p><a href="/big/held">Held</a>')),
      '/big/held': heldCrawl.route,
    }),
    launchBrowser(),
  ]);
  ({ page, problems } = await watchedPage(browser));
}, 60_000);

afterAll(async () => {
  slowSource.open();
  heldCrawl.open();
  await browser?.close();
  await Promise.all([served?.close(), site?.close()]);
});

const go = (path: string) => page.goto(`${served.base}${path}`);
const nav = (name: string) => page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name, exact: true }).click();
const row = (text: string) => page.getByRole('row').filter({ hasText: text });

describe('the web interface in chromium', () => {
  it('refuses a wrong key with the service message, then signs in with the right one', async () => {
    await go('/');
    await page.getByLabel('API key').fill('not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Invalid API key');

    await page.getByLabel('API key').fill(served.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sources', level: 1 }).waitFor();
    expect(page.url()).toBe(`${served.base}/sources`);
    expect(await page.getByText('Frobnicator', { exact: true }).count()).toBe(1);
    // The key lives in the tab's sessionStorage, never in the address.
    expect(await page.evaluate(() => Object.values(sessionStorage))).toContain(served.apiKey);
  });

  it('adds a text and a URL, and shows them becoming ready', async () => {
    await page.getByLabel('Name', { exact: true }).fill('Wibble notes');
    await page.getByLabel('Content', { exact: true }).fill('The wibble level of the Frobnicator defaults to 3 and is set in frob.toml.');
    await page.locator('form').filter({ has: page.getByLabel('Content', { exact: true }) }).getByLabel('Labels').fill('ops, Night shift');
    await page.getByRole('button', { name: 'Add text' }).click();
    await row('Wibble notes').getByText('Ready').waitFor();
    expect(await row('Wibble notes').locator('.tag').allTextContents()).toEqual(['ops', 'Night shift']);

    await page.getByLabel('URLs', { exact: true }).fill(site.url('/dial'));
    await page.getByRole('button', { name: 'Add URLs' }).click();
    await row('Wibble dial').getByText('Ready').waitFor();
  });

  it('shows a source processing until its page arrives, and why one failed', async () => {
    await page.getByLabel('URLs', { exact: true }).fill(`${site.url('/slow')}\n${site.url('/missing')}`);
    await page.getByRole('button', { name: 'Add URLs' }).click();
    const slow = row(site.url('/slow'));
    await slow.getByText('Processing').waitFor();
    const id = await slow.getAttribute('data-id');
    slowSource.open();
    await page.locator(`tr[data-id="${id}"]`).getByText('Ready').waitFor();
    expect(await page.locator(`tr[data-id="${id}"]`).getByRole('link').textContent()).toBe('Slow page');

    await row(site.url('/missing')).getByText('Failed').waitFor();
    expect(await row(site.url('/missing')).getByRole('cell').nth(3).textContent()).toContain('404');
  });

  it('uploads a PDF and a file it cannot read, with the reason shown', async () => {
    await page.getByLabel('Files', { exact: true }).setInputFiles([
      { name: 'report.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await reportPdf()) },
      { name: 'notes.odt', mimeType: 'application/vnd.oasis.opendocument.text', buffer: Buffer.from('not a document') },
    ]);
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByText('report.pdf: uploaded').waitFor();
    expect(await page.getByRole('status').filter({ hasText: 'report.pdf: uploaded' }).textContent()).toMatch(/notes\.odt: .*notes\.odt/);
    await row('Quarterly Report').getByText('Ready').waitFor();
    expect(await row('Quarterly Report').getByRole('cell').nth(2).textContent()).toBe('PDF');
  });

  it('crawls a loopback site, shows the pages found, and adds them', async () => {
    await nav('Crawl');
    await page.getByLabel('Start URL').fill(site.url('/'));
    await page.getByRole('button', { name: 'Start crawl' }).click();
    await page.getByText('3 pages discovered').waitFor();
    await page.getByText('COMPLETED').waitFor();
    await page.getByRole('button', { name: 'Add 3 pages as sources' }).click();
    await page.getByText('Added 3 pages').waitFor();

    await nav('Sources');
    await row('Gears').getByText('Ready').waitFor();
  });

  it('stops a crawl that is still running', async () => {
    await nav('Crawl');
    await page.getByLabel('Start URL').fill(site.url('/big/'));
    await page.getByRole('button', { name: 'Start crawl' }).click();
    await page.getByRole('heading', { name: `Crawl of ${site.url('/big/')}` }).waitFor();
    await page.getByText('RUNNING').waitFor();
    await page.getByRole('button', { name: 'Stop crawl' }).click();
    await page.getByText('STOPPED').waitFor();
    expect(await page.getByRole('button', { name: 'Stop crawl' }).count()).toBe(0);
    expect(await page.locator('.crawl-count').textContent()).toMatch(/STOPPED \d+ pages? discovered/);
  });

  it('streams an answer with references and a trust score, and takes a vote', async () => {
    await nav('Ask');
    const asked: unknown[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/v1/frob/answer/')) asked.push(request.postDataJSON());
    });
    await page.getByLabel('Question').fill('What is the default wibble level?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    const turn = page.getByRole('article').filter({ hasText: 'What is the default wibble level?' });
    await turn.getByRole('region', { name: 'References' }).waitFor();
    expect(await turn.locator('.answer').textContent()).toContain('defaults to 3');
    expect(await turn.getByRole('region', { name: 'References' }).getByRole('listitem').allTextContents()).toContain('Wibble notes');
    expect(await turn.getByText(/Trust score: \d+ \/ 100/).count()).toBe(1);
    // The spec's streaming flow: the text as it is written, then the stored answer's details.
    expect(asked).toEqual([
      { question: 'What is the default wibble level?', external_user_id: 'web-console', stream: true },
      { question: 'What is the default wibble level?', external_user_id: 'web-console', fetch_existing: true, stream: false },
    ]);

    await turn.getByLabel('Feedback (optional)').fill('Spot on');
    await turn.getByRole('button', { name: 'Helpful', exact: true }).click();
    await turn.getByText('Your vote: helpful (thank you)').waitFor();

    await turn.getByRole('button', { name: 'Play answer' }).click();
    const audio = turn.getByLabel('Answer read aloud');
    await audio.waitFor();
    expect(await audio.getAttribute('src')).toMatch(/^blob:/);
    // The blob is the MP3 the offline voice made: the page can decode it (its duration is known).
    expect(await audio.evaluate((element: HTMLAudioElement) => new Promise<number>((resolve) => {
      if (element.readyState >= 1) resolve(element.duration);
      else element.addEventListener('loadedmetadata', () => resolve(element.duration));
    }))).toBeGreaterThan(0);
  });

  it('lists the session, shows it with the vote, and deletes it after confirmation', async () => {
    await nav('Sessions');
    await page.getByRole('region', { name: 'Today' }).getByRole('link', { name: 'What is the default wibble level?' }).click();
    await page.getByRole('heading', { name: 'What is the default wibble level?', level: 1 }).waitFor();
    expect(page.url()).toMatch(new RegExp(`^${served.base}/sessions/[^/]+$`));
    await page.getByText('Your vote: helpful').waitFor();
    expect(await page.getByText('via WEB').count()).toBe(1);

    await page.getByRole('button', { name: 'Delete session' }).click();
    await page.getByRole('button', { name: 'Yes, delete it' }).click();
    await page.getByRole('heading', { name: 'Sessions', level: 1 }).waitFor();
    await page.getByText('No sessions yet: ask something.').waitFor();
  });

  it("shows the service's message for a session that does not exist", async () => {
    const rest = await fetch(`${served.base}/api/v1/sessions/no-such-session/conversation/`, { method: 'POST', headers: { 'x-api-key': served.apiKey } });
    const { msg } = (await rest.json()) as { msg: string };
    expect(rest.status).toBe(404);
    await go('/sessions/no-such-session');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(msg);
    expect(await page.getByRole('link', { name: 'Back to sessions' }).count()).toBe(1);

    // Not even valid percent-encoding: still the page, with the service's word on it.
    await go('/sessions/%E0');
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/not found|does not exist/i);
  });

  it("looks up an end user's data and erases it after confirmation", async () => {
    await nav('Ask');
    await page.getByText('Options and attachments').click();
    await page.getByLabel('End user ID').fill('ada');
    await page.getByLabel('Question').fill('How are the gears oiled?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await page.getByRole('article').filter({ hasText: 'How are the gears oiled?' }).getByText(/Trust score/).waitFor();

    await nav('End users');
    await page.getByLabel('End user ID').fill('ada');
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByRole('region', { name: 'Questions', exact: true }).getByText(/How are the gears oiled\?/).waitFor();
    await page.getByRole('button', { name: 'Erase all data of this end user' }).click();
    await page.getByRole('button', { name: 'Yes, erase for good' }).click();
    await page.getByText(/^Erased the data of ada: 1 questions, 0 rejected questions, 1 conversations/).waitFor();

    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByRole('region', { name: 'Questions', exact: true }).getByText('None.').waitFor();
  });

  it('starts a new conversation on Ask once the end user it belonged to was erased', async () => {
    await nav('Ask');
    await page.getByLabel('Question', { exact: true }).fill('How is the wibble dial turned?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await page.getByRole('article').filter({ hasText: 'How is the wibble dial turned?' }).getByText(/Trust score/).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it("changes the guru's settings", async () => {
    await nav('Settings');
    await page.getByLabel('Model instructions').fill('Answer like a ship captain.');
    await page.getByRole('group', { name: 'Images' }).getByLabel('Number per question').fill('2');
    await page.getByLabel('Speak through the speech provider (text to speech v2)').check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();

    await page.reload();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    expect(await page.getByLabel('Model instructions').inputValue()).toBe('Answer like a ship captain.');
    expect(await page.getByRole('group', { name: 'Images' }).getByLabel('Number per question').inputValue()).toBe('2');
    expect(await page.getByLabel('Speak through the speech provider (text to speech v2)').isChecked()).toBe(true);
  });

  it('shows the note on attachments that were not read once, where the streamed answer opens with it', async () => {
    await nav('Ask');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.getByText('Options and attachments').click();
    await page.getByLabel('Attachments', { exact: true }).setInputFiles([{ name: 'dial.png', mimeType: 'image/png', buffer: ONE_PIXEL_PNG }]);
    await page.getByLabel('Question', { exact: true }).fill('How is the wibble dial calibrated?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    const turn = page.getByRole('article').filter({ hasText: 'How is the wibble dial calibrated?' });
    await turn.getByText(/Trust score/).waitFor();
    // No model reads images here: the answer's text opens with the note, and the page adds no second one.
    const note = '1 image was not read';
    expect(await turn.locator('.answer').textContent()).toContain(note);
    expect((await turn.textContent())?.split(note).length).toBe(2);
  });

  it('refuses a file that is neither an image, a PDF nor text before asking, naming it (text is read by its content, not its name)', async () => {
    await nav('Ask');
    await page.getByText('Options and attachments').click();
    await page.getByLabel('Attachments', { exact: true }).setInputFiles([
      { name: 'notes.log', mimeType: 'text/plain', buffer: Buffer.from('gear slipped at 10:02\n') },
      { name: 'syslog', mimeType: 'application/octet-stream', buffer: Buffer.from('Nov 26 gear daemon restarted\n') },
      { name: 'backup.zip', mimeType: 'application/zip', buffer: Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0xff]) },
    ]);
    const turns = await page.getByRole('article').count();
    await page.getByLabel('Question', { exact: true }).fill('Why did the gear slip?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Only images, PDFs and text files (logs) can be attached; remove backup.zip.');
    expect(await page.getByRole('article').count()).toBe(turns);
    await page.getByLabel('Attachments', { exact: true }).setInputFiles([]);
  });

  it('renders Markdown without running HTML or unsafe links', async () => {
    const markdown = '<img src="x" onerror="window.ran = 1"> <script>window.ran = 2</script>\n\n[bad](javascript:alert(1)) [good](https://example.com/a) ![pic](https://example.com/p.png) [relative](/pricing)';
    // A string, so that the test runner leaves the import() to the browser.
    const html = await page.evaluate(`import('/assets/markdown.js').then(({ renderMarkdown }) => renderMarkdown(document.createElement('div'), ${JSON.stringify(markdown)}).innerHTML)`);
    expect(html).not.toMatch(/<img|<script|javascript:/);
    expect(html).toContain('&lt;img');
    expect(html).toContain('<a href="https://example.com/a" rel="noopener noreferrer" target="_blank">good</a>');
    // A link relative to the page the knowledge came from would point at this server: it stays text.
    expect(html).not.toContain('/pricing"');
    expect(html).toContain('relative');
    expect(await page.evaluate(() => (window as unknown as { ran?: number }).ran)).toBeUndefined();
  });

  it('deletes the selected sources after confirmation, and they leave the search', async () => {
    await nav('Sources');
    await row('Gears').getByText('Ready').waitFor();
    await row('Gears').getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Delete selected' }).click();
    await page.getByText('Delete the selected sources for good?').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await row('Gears').count()).toBe(1);

    await page.getByRole('button', { name: 'Delete selected' }).click();
    await page.getByRole('button', { name: 'Yes, delete them' }).click();
    await page.getByText('Deleted 1 source.').waitFor();
    await expect.poll(() => row('Gears').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete selected' }).count()).toBe(1);
    const search = await fetch(`${served.base}/api/v1/frob/semantic-search/`, {
      method: 'POST',
      headers: { 'x-api-key': served.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'How are the gears oiled?' }),
    });
    expect(((await search.json()) as { sources: Array<{ title: string }> }).sources.map((source) => source.title)).not.toContain('Gears');
  });

  it('deletes a guru from the Gurus page after confirmation; its key stops working', async () => {
    const created = await fetch(`${served.base}/web/api/gurus`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ slug: 'spare' }) });
    const { api_key: spareKey } = (await created.json()) as { api_key: string };
    await go('/gurus');
    const spare = page.getByRole('listitem').filter({ hasText: '(spare)' });
    await spare.getByRole('button', { name: 'Delete spare' }).click();
    await spare.getByText('Delete the guru spare with all its sources').waitFor();
    await spare.getByRole('button', { name: 'Yes, delete spare' }).click();
    await page.getByText(/^Deleted the guru spare: 0 sources, 0 sessions\.$/).waitFor();
    await expect.poll(() => page.getByRole('listitem').filter({ hasText: '(spare)' }).count()).toBe(0);
    expect(await page.getByRole('listitem').filter({ hasText: '(frob)' }).count()).toBe(1);
    const refused = await fetch(`${served.base}/api/v1/spare/data-sources/`, { headers: { 'x-api-key': spareKey } });
    expect(refused.status).toBe(401);
  });

  it('ran without console errors or policy violations', () => {
    expect(problems).toEqual([]);
  });
});
