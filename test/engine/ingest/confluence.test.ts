import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { storageToHtml } from '../../../src/engine/ingest/extract/confluence-storage.js';
import { ExtractionPool } from '../../../src/engine/ingest/extract/extraction-pool.js';
import { htmlToMarkdown } from '../../../src/engine/ingest/extract/markdown.js';
import { ConfluenceReader } from '../../../src/engine/ingest/sources/confluence.js';
import { SourceError } from '../../../src/engine/ingest/sources/types.js';
import { FetchFailure, HttpFetcher } from '../../../src/net/http-fetcher.js';
import { startConfluenceStandIn, type ConfluencePageFixture, type ConfluenceStandIn } from '../../stand-ins/confluence.js';

const EMAIL = 'wiki-bot@example.com';
const TOKEN = 'cf-token-321';

const STORAGE = [
  '<p>Deploys run from <ac:link><ri:page ri:content-title="CI pipeline" /><ac:plain-text-link-body><![CDATA[the CI pipeline]]></ac:plain-text-link-body></ac:link> every day.</p>',
  '<ac:structured-macro ac:name="toc" ac:schema-version="1" ac:macro-id="0f1e"><ac:parameter ac:name="maxLevel">2</ac:parameter></ac:structured-macro>',
  '<h2>Steps</h2>',
  '<ol><li>Tag the release</li><li>Run the deploy job</li></ol>',
  '<ac:structured-macro ac:name="code" ac:schema-version="1"><ac:parameter ac:name="language">bash</ac:parameter><ac:parameter ac:name="title">deploy.sh</ac:parameter>',
  '<ac:plain-text-body><![CDATA[if [ "$ENV" = "prod" ] && [ -n "$TAG" ]; then\n  ./deploy --tag "$TAG" <release.yaml\nfi]]></ac:plain-text-body></ac:structured-macro>',
  '<ac:structured-macro ac:name="warning" ac:schema-version="1"><ac:parameter ac:name="title">Freeze</ac:parameter><ac:rich-text-body><p>No deploys on <strong>Fridays</strong>.</p></ac:rich-text-body></ac:structured-macro>',
  '<ac:structured-macro ac:name="info"><ac:rich-text-body><p>Ask #release for help.</p></ac:rich-text-body></ac:structured-macro>',
  '<ac:structured-macro ac:name="expand"><ac:parameter ac:name="title">Rollback</ac:parameter><ac:rich-text-body><p>Run <code>./deploy --rollback</code>.</p></ac:rich-text-body></ac:structured-macro>',
  '<ac:structured-macro ac:name="jira" ac:schema-version="1"><ac:parameter ac:name="server">System JIRA</ac:parameter><ac:parameter ac:name="key">ENG-42</ac:parameter></ac:structured-macro>',
  '<table><tbody><tr><th><p>Env</p></th><th><p>Owner</p></th></tr><tr><td><p>prod</p></td><td><p>SRE</p></td></tr></tbody></table>',
  '<ac:task-list><ac:task><ac:task-id>1</ac:task-id><ac:task-status>complete</ac:task-status><ac:task-body>Write the runbook</ac:task-body></ac:task>',
  '<ac:task><ac:task-id>2</ac:task-id><ac:task-status>incomplete</ac:task-status><ac:task-body>Automate it</ac:task-body></ac:task></ac:task-list>',
  '<p>Updated <time datetime="2024-04-02" /> <ac:emoticon ac:name="smile" /> by the team.<ac:image><ri:attachment ri:filename="diagram.png" /></ac:image></p>',
].join('');

const EXPECTED_BODY = [
  'Deploys run from the CI pipeline every day.',
  '',
  '## Steps',
  '',
  '1.  Tag the release',
  '2.  Run the deploy job',
  '',
  '```bash',
  'if [ "$ENV" = "prod" ] && [ -n "$TAG" ]; then',
  '  ./deploy --tag "$TAG" <release.yaml',
  'fi',
  '```',
  '',
  '> **Warning: Freeze**',
  '> ',
  '> No deploys on **Fridays**.',
  '',
  '> **Info**',
  '> ',
  '> Ask #release for help.',
  '',
  '**Rollback**',
  '',
  'Run `./deploy --rollback`.',
  '',
  '| Env | Owner |',
  '| --- | --- |',
  '| prod | SRE |',
  '',
  '-   [x] Write the runbook',
  '-   [ ] Automate it',
  '',
  'Updated 2024-04-02 by the team.',
].join('\n');

const PAGES: ConfluencePageFixture[] = [
  { id: '163841', spaceKey: 'ENG', spaceName: 'Engineering', title: 'Deploy Guide', storage: STORAGE, version: 7 },
  { id: '163842', spaceKey: 'ENG', title: 'Q&A: 50% faster builds', storage: '<p>Cache the <em>node_modules</em> folder.</p>' },
  { id: '163843', spaceKey: 'ENG', title: 'Empty', storage: '<ac:structured-macro ac:name="children" />' },
];

let standIn: ConfluenceStandIn | undefined;
let fetcher: HttpFetcher | undefined;
/** Pages are converted in an extraction worker, as in the engine. */
const extraction = new ExtractionPool({ threads: 1 });

afterAll(async () => {
  await extraction.close();
});

afterEach(async () => {
  await standIn?.close();
  await fetcher?.close();
  standIn = undefined;
  fetcher = undefined;
});

async function cloud(apiToken = TOKEN, baseSuffix = ''): Promise<{ reader: ConfluenceReader; confluence: ConfluenceStandIn }> {
  const confluence = await startConfluenceStandIn({ pages: PAGES, flavour: 'cloud', email: EMAIL, apiToken: TOKEN });
  standIn = confluence;
  fetcher = new HttpFetcher({ allowPrivateNetwork: true });
  return { reader: new ConfluenceReader(fetcher, extraction, { baseUrl: `${confluence.baseUrl}${baseSuffix}`, email: EMAIL, apiToken }), confluence };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error,
  );
}

describe('ConfluenceReader', () => {
  it('reads a Cloud page by its /wiki/spaces URL, converting the storage format', async () => {
    const { reader, confluence } = await cloud();
    const document = await reader.read(`${confluence.baseUrl}/wiki/spaces/ENG/pages/163841/Deploy+Guide`);

    expect(document.title).toBe('Deploy Guide');
    expect(document.url).toBe(`${confluence.baseUrl}/wiki/pages/viewpage.action?pageId=163841`);
    expect(document.markdown).toBe(`# Deploy Guide\n\n${EXPECTED_BODY}\n`);
    const [request] = confluence.server.requests;
    expect(request?.path).toBe('/wiki/rest/api/content/163841?expand=body.storage,space,version');
    expect(request?.headers.authorization).toBe(`Basic ${Buffer.from(`${EMAIL}:${TOKEN}`).toString('base64')}`);
  });

  it('reads viewpage.action URLs and resolves /display/ URLs by space and title', async () => {
    const { reader, confluence } = await cloud();
    const byId = await reader.read(`${confluence.baseUrl}/wiki/pages/viewpage.action?pageId=163842`);
    expect(byId.markdown).toBe('# Q&A: 50% faster builds\n\nCache the _node\\_modules_ folder.\n');

    const byTitle = await reader.read(`${confluence.baseUrl}/wiki/display/ENG/Q%26A%3A+50%25+faster+builds`);
    expect(byTitle.url).toBe(`${confluence.baseUrl}/wiki/pages/viewpage.action?pageId=163842`);
    const search = new URL(confluence.server.requests.at(-1)?.path ?? '', confluence.baseUrl);
    expect(search.pathname).toBe('/wiki/rest/api/content');
    expect(Object.fromEntries(search.searchParams)).toEqual({ spaceKey: 'ENG', title: 'Q&A: 50% faster builds', expand: 'body.storage,space,version' });

    const absent = await rejection(reader.read(`${confluence.baseUrl}/wiki/display/ENG/No+Such+Page`));
    expect(absent).toBeInstanceOf(SourceError);
    expect((absent as Error).message).toContain('page "No Such Page" in space ENG');
  });

  it('works with a base URL that already ends in /wiki', async () => {
    const { reader, confluence } = await cloud(TOKEN, '/wiki');
    const document = await reader.read(`${confluence.baseUrl}/wiki/spaces/ENG/pages/163842`);
    expect(document.title).toBe('Q&A: 50% faster builds');
    expect(confluence.server.requests[0]?.path).toBe('/wiki/rest/api/content/163842?expand=body.storage,space,version');
  });

  it('reads Server/Data Center pages under a context path with a Bearer token', async () => {
    const confluence = await startConfluenceStandIn({ pages: PAGES, flavour: 'server', apiToken: 'pat-dc', contextPath: '/confluence' });
    standIn = confluence;
    fetcher = new HttpFetcher({ allowPrivateNetwork: true });
    const reader = new ConfluenceReader(fetcher, extraction, { baseUrl: confluence.baseUrl, apiToken: 'pat-dc' });

    const byTitle = await reader.read(`${confluence.baseUrl}/display/ENG/Deploy+Guide`);
    expect(byTitle.markdown).toBe(`# Deploy Guide\n\n${EXPECTED_BODY}\n`);
    expect(byTitle.url).toBe(`${confluence.baseUrl}/pages/viewpage.action?pageId=163841`);
    const byId = await reader.read(`${confluence.baseUrl}/pages/viewpage.action?pageId=163842`);
    expect(byId.title).toBe('Q&A: 50% faster builds');
    expect(confluence.server.requests.map((request) => request.url.pathname)).toEqual(['/confluence/rest/api/content', '/confluence/rest/api/content/163842']);
    for (const request of confluence.server.requests) expect(request.headers.authorization).toBe('Bearer pat-dc');
  });

  it('refuses foreign and malformed URLs, and pages with nothing to index', async () => {
    const { reader, confluence } = await cloud();
    const foreign = await rejection(reader.read('https://other.atlassian.net/wiki/spaces/ENG/pages/163841'));
    expect(foreign).toBeInstanceOf(SourceError);
    expect((foreign as Error).message).toContain('https://other.atlassian.net/wiki/spaces/ENG/pages/163841');
    expect((foreign as Error).message).toContain(confluence.baseUrl);
    for (const bad of ['confluence', `${confluence.baseUrl}/wiki/spaces/ENG/overview`, `${confluence.baseUrl}/wiki/pages/viewpage.action?pageId=abc`]) {
      await expect(reader.read(bad)).rejects.toBeInstanceOf(SourceError);
    }
    expect(confluence.server.requests).toHaveLength(0);
    const empty = await rejection(reader.read(`${confluence.baseUrl}/wiki/spaces/ENG/pages/163843/Empty`));
    expect((empty as Error).message).toContain('has no text to index');
  });

  it('explains 401 and 404, and leaves 429 and 500 retryable', async () => {
    const { reader, confluence } = await cloud('expired');
    const refused = await rejection(reader.read(`${confluence.baseUrl}/wiki/spaces/ENG/pages/163841`));
    expect(refused).toBeInstanceOf(SourceError);
    expect((refused as Error).message).toMatch(/^Confluence answered 401: .* refused the integration's credentials/);

    const good = new ConfluenceReader(fetcher!, extraction, { baseUrl: confluence.baseUrl, email: EMAIL, apiToken: TOKEN });
    const missing = await rejection(good.read(`${confluence.baseUrl}/wiki/spaces/ENG/pages/999`));
    expect((missing as Error).message).toBe("Confluence answered 404: page 999 does not exist or the integration's account cannot see it");

    confluence.server.failNext('/wiki/rest/api/content/163841', { status: 429, headers: { 'retry-after': '5' } });
    await expect(good.read(`${confluence.baseUrl}/wiki/spaces/ENG/pages/163841`)).rejects.toMatchObject({ status: 429, retryable: true, retryAfterMs: 5000 });
    confluence.server.failNext('/wiki/rest/api/content', { status: 500 });
    const broken = await rejection(good.read(`${confluence.baseUrl}/wiki/display/ENG/Deploy+Guide`));
    expect(broken).toBeInstanceOf(FetchFailure);
    expect(broken).toMatchObject({ status: 500, retryable: true });
  });
});

describe('storageToHtml', () => {
  it('keeps nested macros: a code block inside a note, and a panel without a title', () => {
    const html = storageToHtml(
      '<ac:structured-macro ac:name="note"><ac:rich-text-body><p>Run:</p><ac:structured-macro ac:name="code"><ac:plain-text-body><![CDATA[a < b && c]]></ac:plain-text-body></ac:structured-macro></ac:rich-text-body></ac:structured-macro>' +
        '<ac:structured-macro ac:name="panel"><ac:rich-text-body><p>Plain panel</p></ac:rich-text-body></ac:structured-macro>',
    );
    expect(htmlToMarkdown(html)).toBe('> **Note**\n> \n> Run:\n> \n> ```\n> a < b && c\n> ```\n\n> Plain panel');
  });

  it('turns external links into links and keeps the text of unknown macros with a body', () => {
    const html = storageToHtml(
      '<p><ac:link><ri:url ri:value="https://example.com/docs" /><ac:plain-text-link-body><![CDATA[docs]]></ac:plain-text-link-body></ac:link> and <ac:link><ri:attachment ri:filename="spec.pdf" /></ac:link></p>' +
        '<ac:structured-macro ac:name="section"><ac:rich-text-body><ac:structured-macro ac:name="column"><ac:rich-text-body><p>Column text</p></ac:rich-text-body></ac:structured-macro></ac:rich-text-body></ac:structured-macro>',
    );
    expect(htmlToMarkdown(html)).toBe('[docs](https://example.com/docs) and spec.pdf\n\nColumn text');
  });
});
