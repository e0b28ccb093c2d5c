/**
 * `add` with URLs, `upload`, `sources` and `reindex`, spawning the built bin
 * against a temporary data directory, a loopback website and the YouTube stand-in.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startYouTubeStandIn, type YouTubeStandIn } from '../stand-ins/youtube.js';
import { respond, startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';
import { DOCS_PAGE } from '../support/pages.js';
import { runCli } from './run-cli.js';

let dir: string;
let dataDir: string;
let site: LoopbackServer;
let youtube: YouTubeStandIn;
let changelogVersion = 'zanzibar';

const page = (title: string, text: string) => `<!DOCTYPE html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${text}</p></main></body></html>`;
/** More pages than a command lists row by row. */
const KB_PAGES = 22;

const changelog = () => `<!DOCTYPE html><html><head><title>Changelog</title></head>
<body><main><h1>Changelog</h1><p>Release ${changelogVersion} brings the quibble scheduler.</p></main></body></html>`;

/** Runs the bin on this file's data directory, allowed to reach the loopback servers. */
const cli = (args: readonly string[], input?: string) =>
  runCli([...args, '--data-dir', dataDir], {
    env: { GURU_ALLOW_PRIVATE_NETWORK: '1', GURU_YOUTUBE_URL: youtube.baseUrl },
    ...(input === undefined ? {} : { input }),
  });

interface Row {
  id: number;
  type: string;
  name: string;
  url?: string;
  status: string;
  error: string;
}

interface Listing {
  count: number;
  page: number;
  page_size: number;
  results: { id: number; type: string; title: string | null; url?: string; status: string; error: string; private: boolean; reindex_count: number }[];
}

async function pdfOf(title: string, text: string): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  pdf.setTitle(title);
  pdf.addPage().drawText(text, { x: 50, y: 700, size: 12, font });
  return pdf.save();
}

async function listing(): Promise<Listing> {
  const result = await cli(['sources', 'docs', '--page-size', '1000', '--json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Listing;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'guru-cli-sources-'));
  dataDir = join(dir, 'data');
  site = await startLoopbackServer({
    '/docs/pooling': respond(DOCS_PAGE),
    '/changelog': (request, response) => respond(changelog())(request, response),
    '/queued': respond(page('Queued page', 'Read by a command that waits for processing.')),
    ...Object.fromEntries(Array.from({ length: KB_PAGES }, (_, index) => [`/kb/${index + 1}`, respond(page(`Article ${index + 1}`, `Knowledge article number ${index + 1}.`))])),
  });
  youtube = await startYouTubeStandIn([
    { id: 'dQw4w9WgXcQ', title: 'Calibrating the zorbix coil', captions: [{ start: 0, duration: 5, text: 'Turn the zorbix coil a quarter turn.' }] },
    { id: 'aaaaaaaaaaa', title: 'Silent film', captions: null },
  ]);
  writeFileSync(join(dir, 'keys.md'), '# API keys\n\nRotate an API key with the key create command.\n');
  writeFileSync(join(dir, 'notes.pdf'), await pdfOf('Okapi field notes', 'The okapi eats leaves in the Ituri forest.'));
  writeFileSync(join(dir, 'tapir.pdf'), await pdfOf('Tapir sightings', 'The tapir bathes in the river at dawn.'));
  writeFileSync(join(dir, 'photo.png'), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  mkdirSync(join(dir, 'folder'));
  const created = await cli(['guru', 'create', 'docs']);
  expect(created.code, created.stderr).toBe(0);
});

afterAll(async () => {
  await Promise.all([site.close(), youtube.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('guru-mcp add with URLs', () => {
  it('adds web pages, videos and files in one request and waits until they are processed', async () => {
    const result = await cli(['add', 'docs', site.url('/docs/pooling'), 'https://youtu.be/dQw4w9WgXcQ', join(dir, 'keys.md'), '--label', 'manual']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^ID\s+TYPE\s+STATUS\s+NAME\s+ERROR$/m);
    expect(result.stdout).toMatch(/^\d+\s+Website\s+SUCCESS\s+Connection pooling$/m);
    expect(result.stdout).toMatch(/^\d+\s+YouTube\s+SUCCESS\s+Calibrating the zorbix coil$/m);
    expect(result.stdout).toMatch(/^\d+\s+Text\s+SUCCESS\s+keys\.md$/m);
    expect(result.stderr).toMatch(/^Processing: 3\/3$/m);
    // GURU_YOUTUBE_URL sent the video's requests to the stand-in.
    expect(youtube.server.requests.some((request) => request.path.startsWith('/watch?v=dQw4w9WgXcQ'))).toBe(true);

    const search = await cli(['search', 'docs', 'zorbix', 'coil', '--label', 'manual', '--json']);
    expect(JSON.parse(search.stdout)).toMatchObject({ sources: [{ title: 'Calibrating the zorbix coil', link: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' }] });
  });

  it('answers EXISTS for a URL already added', async () => {
    const result = await cli(['add', 'docs', `${site.url('/docs/pooling')}#settings`, '--no-wait', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      { id: expect.any(Number), type: 'Website', name: 'Connection pooling', url: site.url('/docs/pooling'), status: 'EXISTS', error: '', added: 'exists' },
    ]);
  });

  it('says "already added" for a URL already there, and shows a URL given twice as one source', async () => {
    const again = await cli(['add', 'docs', site.url('/docs/pooling'), `${site.url('/docs/pooling')}#settings`]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.split('\n').filter((line) => /^\d+\s+Website/.test(line))).toHaveLength(1);
    expect(again.stdout).toMatch(/^\d+\s+Website\s+SUCCESS \(already added\)\s+Connection pooling$/m);
    expect(again.stdout).toMatch(/^1 source: 1 SUCCESS; 1 of them already added$/m);

    // New, and the same page again in the same request: one source, new.
    const twice = await cli(['add', 'docs', site.url('/changelog'), `${site.url('/changelog')}#latest`, '--json']);
    expect(twice.code, twice.stderr).toBe(0);
    expect(JSON.parse(twice.stdout)).toEqual([expect.objectContaining({ name: 'Changelog', status: 'SUCCESS', added: 'success' })]);
    expect(site.requests.filter((request) => request.path === '/changelog')).toHaveLength(1);
  });

  it('fails with exit code 1 when a source fails, showing its error', async () => {
    const result = await cli(['add', 'docs', 'https://www.youtube.com/watch?v=aaaaaaaaaaa']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^\d+\s+YouTube\s+FAIL\s+https:\/\/www\.youtube\.com\/watch\?v=aaaaaaaaaaa\s+This video has no transcript/m);
    expect(result.stderr).toContain('guru-mcp: 1 of 1 sources failed to process');
  });

  it('--kind sends every URL as that kind; integration kinds need the integration', async () => {
    const youtubeAsPage = await cli(['add', 'docs', '--kind', 'website', 'https://youtu.be/dQw4w9WgXcQ', '--no-wait', '--json']);
    expect(youtubeAsPage.code, youtubeAsPage.stderr).toBe(0);
    expect(JSON.parse(youtubeAsPage.stdout)).toEqual([expect.objectContaining({ type: 'Website', url: 'https://youtu.be/dQw4w9WgXcQ' })]);

    const jira = await cli(['add', 'docs', '--kind', 'jira', 'https://example.atlassian.net/browse/OPS-12']);
    expect(jira.code).toBe(1);
    expect(jira.stderr).toContain('guru-mcp: Jira integration is not set up for this guru');
    expect(jira.stderr).toContain('hint: Set it with `guru-mcp integration set docs jira --url <site>');
  });

  it('refuses a wrong command line with exit code 2', async () => {
    const badKind = await cli(['add', 'docs', '--kind', 'github', 'https://github.com/x/y']);
    expect(badKind.code).toBe(2);
    expect(badKind.stderr).toContain('--kind must be one of website, youtube, jira, zendesk, confluence, not "github"');
    expect(badKind.stderr).toContain('guru-mcp add --help');

    const kindWithoutUrl = await cli(['add', 'docs', '--kind', 'youtube', join(dir, 'keys.md')]);
    expect(kindWithoutUrl.code).toBe(2);
    expect(kindWithoutUrl.stderr).toContain('--kind applies to URL arguments');

    const nameForUrl = await cli(['add', 'docs', site.url('/changelog'), '--name', 'Log']);
    expect(nameForUrl.code).toBe(2);
    expect(nameForUrl.stderr).toContain('URL sources are named after their pages');

    const notAUrl = await cli(['add', 'docs', 'https://']);
    expect(notAUrl.code).toBe(1);
    expect(notAUrl.stderr).toMatch(/guru-mcp: Invalid request parameters\nhint: website_urls: /);
  });
});

describe('guru-mcp add with many URLs', () => {
  const urls = () => [...Array.from({ length: KB_PAGES }, (_, index) => site.url(`/kb/${index + 1}`)), site.url('/kb/gone')];

  it('sums them up: counts by status and the failures with their reasons; --verbose and --json list every one', async () => {
    const result = await cli(['add', 'docs', ...urls()]);
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`${KB_PAGES + 1} sources: ${KB_PAGES} SUCCESS, 1 FAIL`);
    expect(result.stdout).toMatch(/^Failed:\nID\s+TYPE\s+STATUS\s+NAME\s+ERROR\n\d+\s+Website\s+FAIL\s+http:\S+\/kb\/gone\s+\S.*404/m);
    expect(lines.at(-1)).toBe('Every source: --verbose, or --json.');
    expect(lines.filter((line) => /^\d+\s+Website/.test(line))).toHaveLength(1);
    expect(result.stderr).toContain(`guru-mcp: 1 of ${KB_PAGES + 1} sources failed to process`);

    const verbose = await cli(['add', 'docs', ...urls(), '--verbose']);
    expect(verbose.stdout.split('\n').filter((line) => /^\d+\s+Website/.test(line))).toHaveLength(KB_PAGES + 1);
    expect(verbose.stdout).toMatch(/^\d+\s+Website\s+SUCCESS \(already added\)\s+Article 7$/m);
    const json = await cli(['add', 'docs', ...urls(), '--json']);
    expect(JSON.parse(json.stdout)).toHaveLength(KB_PAGES + 1);
  });
});

describe('guru-mcp add --no-wait', () => {
  it('leaves the sources to a command that processes: read-only commands take no work', async () => {
    const queued = site.url('/queued');
    const accepted = await cli(['add', 'docs', queued, '--no-wait', '--json']);
    expect(JSON.parse(accepted.stdout)).toEqual([expect.objectContaining({ status: 'NOT_PROCESSED', added: 'success' })]);

    for (const args of [['sources', 'docs'], ['search', 'docs', 'queued'], ['ask', 'docs', 'What is queued?'], ['sessions', 'docs']]) {
      const result = await cli(args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    }
    expect(site.requests.filter((request) => request.path === '/queued')).toEqual([]);
    expect((await listing()).results.find((source) => source.url === queued)).toMatchObject({ status: 'NOT_PROCESSED' });

    // A command that waits for processing takes the work over.
    const waited = await cli(['add', 'docs', queued]);
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toMatch(/^\d+\s+Website\s+SUCCESS \(already added\)\s+Queued page$/m);
  });
});

describe('guru-mcp upload', () => {
  it('uploads documents, waits until they are processed, and prints one row per file', async () => {
    const result = await cli(['upload', 'docs', join(dir, 'notes.pdf'), '--private', '--label', 'field']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^ID\s+TYPE\s+STATUS\s+FILE\s+TITLE\s+ERROR$/m);
    expect(result.stdout).toMatch(new RegExp(`^\\d+\\s+PDF\\s+SUCCESS\\s+${join(dir, 'notes.pdf').replaceAll('/', '\\/')}\\s+Okapi field notes$`, 'm'));
    expect(result.stderr).toMatch(/^Processing: 1\/1$/m);

    const source = (await listing()).results.find((item) => item.title === 'Okapi field notes');
    expect(source).toMatchObject({ type: 'PDF', status: 'SUCCESS', private: true });
    expect(source).not.toHaveProperty('url');
    const search = await cli(['search', 'docs', 'okapi', 'leaves', '--label', 'field', '--json']);
    expect(JSON.parse(search.stdout)).toMatchObject({ total_sources: 1 });
  });

  it('refuses a file it cannot read as a document, adds the others, and exits with 1', async () => {
    const result = await cli(['upload', 'docs', join(dir, 'tapir.pdf'), join(dir, 'photo.png'), '--json']);
    expect(result.code).toBe(1);
    const rows = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(rows).toEqual([
      { file: join(dir, 'tapir.pdf'), status: 'SUCCESS', id: expect.any(Number), type: 'PDF', title: 'Tapir sightings', private: false, error: '' },
      { file: join(dir, 'photo.png'), status: 'REFUSED', error: expect.stringContaining('not a supported document') },
    ]);
    expect(result.stderr).toContain('guru-mcp: 1 of 2 files refused');
  });

  it('uploads nothing when a path is a directory or cannot be read', async () => {
    const before = (await listing()).count;
    const folder = await cli(['upload', 'docs', join(dir, 'tapir.pdf'), join(dir, 'folder')]);
    expect(folder.code).toBe(1);
    expect(folder.stderr).toContain(`guru-mcp: cannot upload ${join(dir, 'folder')}: it is a directory`);
    const missing = await cli(['upload', 'docs', join(dir, 'missing.pdf')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('missing.pdf: no such file');
    expect((await listing()).count).toBe(before);

    const none = await cli(['upload', 'docs']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('missing <file>');
  });

  it('is refused on the remote backend, which administers nothing', async () => {
    const result = await runCli(['upload', 'docs', join(dir, 'notes.pdf'), '--backend', 'remote'], {
      env: { GURU_API_KEY: 'guru_key', GURU_API_URL: 'http://127.0.0.1:9/api/v1' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('guru-mcp: This backend cannot administer gurus.');
  });
});

describe('guru-mcp sources', () => {
  it('lists the sources as a table, newest first, with errors', async () => {
    const result = await cli(['sources', 'docs']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^ID\s+TYPE\s+STATUS\s+TITLE\s+URL\s+LABELS\s+ERROR$/);
    expect(lines[1]).toMatch(/^\d+\s+PDF\s+SUCCESS\s+Tapir sightings$/);
    expect(result.stdout).toMatch(/^\d+\s+WEBSITE\s+SUCCESS\s+Connection pooling\s+http:\/\/127\.0\.0\.1:\d+\/docs\/pooling\s+manual$/m);
    expect(result.stdout).toMatch(/^\d+\s+YOUTUBE\s+FAIL\s+https:\/\/www\.youtube\.com\/watch\?v=aaaaaaaaaaa\s+(manual\s+)?This video has no transcript/m);
    expect(result.stdout).toMatch(/^Sources 1-\d+ of \d+, newest first\.$/m);
    expect(result.stdout).not.toContain('More on the next page');
  });

  it('pages with --page and --page-size, and says how to get the next page', async () => {
    const { count } = await listing();
    const first = await cli(['sources', 'docs', '--page-size', '2']);
    expect(first.stdout.split('\n').filter((line) => /^\d+\s/.test(line))).toHaveLength(2);
    expect(first.stdout).toContain(`Sources 1-2 of ${count}, newest first.`);
    expect(first.stdout).toContain('More on the next page: --page 2 --page-size 2');

    const json = await cli(['sources', 'docs', '--page', '2', '--page-size', '2', '--json']);
    const page = JSON.parse(json.stdout) as Listing;
    expect(page).toMatchObject({ count, page: 2, page_size: 2 });
    expect(page.results).toHaveLength(2);

    const past = await cli(['sources', 'docs', '--page', '99']);
    expect(past.stdout).toContain(`Page 99 is past the end: ${count} sources, 50 per page.`);

    for (const bad of [['--page-size', '0'], ['--page-size', '1001'], ['--page', 'two']]) {
      const result = await cli(['sources', 'docs', ...bad]);
      expect(result.code, bad.join(' ')).toBe(2);
      expect(result.stderr).toContain(`${bad[0]} must be a whole number from 1`);
    }
  });

  it('says when a guru has no sources, and names an unknown guru', async () => {
    expect((await cli(['guru', 'create', 'empty'])).code).toBe(0);
    expect((await cli(['sources', 'empty'])).stdout).toContain('No sources yet.');
    const unknown = await cli(['sources', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^guru-mcp: .*nope/m);
  });
});

describe('guru-mcp reindex', () => {
  it('fetches sources again by id and waits with progress', async () => {
    const added = await cli(['add', 'docs', site.url('/changelog'), '--json']);
    expect(added.code, added.stderr).toBe(0);
    const [{ id }] = JSON.parse(added.stdout) as [Row];

    changelogVersion = 'xylophone';
    const result = await cli(['reindex', 'docs', String(id)]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^Reindexing 1 data source$/m);
    expect(result.stderr).toMatch(/^Reindexing: 1\/1$/m);
    expect(result.stdout).toMatch(new RegExp(`^${id}\\s+WEBSITE\\s+SUCCESS\\s+Changelog$`, 'm'));
    expect(site.requests.filter((request) => request.path === '/changelog')).toHaveLength(2);

    const search = await cli(['search', 'docs', 'xylophone', '--json']);
    expect(JSON.parse(search.stdout)).toMatchObject({ sources: [{ title: 'Changelog' }] });
    expect((await listing()).results.find((source) => source.id === id)).toMatchObject({ reindex_count: 1 });

    const quick = await cli(['reindex', 'docs', String(id), '--no-wait', '--json']);
    expect(quick.code).toBe(0);
    expect(JSON.parse(quick.stdout)).toEqual({ msg: 'Reindexing 1 data source' });
    expect(quick.stderr).not.toContain('Reindexing:');
  });

  it('refuses ids of no source with the service error, and what is no id with exit code 2', async () => {
    const unknown = await cli(['reindex', 'docs', '99999']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('guru-mcp: Invalid request parameters\nhint: no data source with id 99999 in this guru');

    const bad = await cli(['reindex', 'docs', '12x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('source ids are whole numbers from 1 (see guru-mcp sources), not "12x"');
    expect((await cli(['reindex', 'docs'])).code).toBe(2);
  });
});
