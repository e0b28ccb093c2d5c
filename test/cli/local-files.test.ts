/**
 * `add` with files from disk and folders, spawning the built bin on a temporary data directory:
 * each file read by what it is (HTML through the web page extraction), folders read recursively
 * with what was skipped reported, and a folder added again reading only what changed.
 */
import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { titledPdf } from '../support/documents.js';
import { startHostedServer, type HostedServer } from './hosted-server.js';
import { runCli } from './run-cli.js';

let dir: string;
let dataDir: string;

const cli = (args: readonly string[]) => runCli([...args, '--data-dir', dataDir]);

const QUICKSTART = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Quickstart — Flask Documentation</title>
<style>body { color: #333 }</style><script>window.analytics = 1;</script></head>
<body><nav class="navbar"><a href="index.html">Home</a> <a href="api.html">API</a></nav>
<main><h1>Quickstart</h1>
<p>A minimal application registers a view with the <code>route()</code> decorator; the marmoset server then answers on port 5000.</p>
<h2>Debug mode</h2><p>Run <code>flask run --debug</code> to reload the application when the code changes.</p></main>
<footer>© Pallets</footer></body></html>
`;

interface Row {
  id: number;
  type: string;
  name: string;
  status: string;
  added: string;
}

/** The stored text of each source, by name, read straight from the database the CLI wrote. */
function storedTexts(): Map<string, { title: string; content: string }> {
  const db = new Database(join(dataDir, 'guru.sqlite'), { readonly: true });
  try {
    const rows = db.prepare('SELECT name, title, content FROM data_sources').all() as { name: string; title: string; content: string }[];
    return new Map(rows.map((row) => [row.name, { title: row.title, content: row.content }]));
  } finally {
    db.close();
  }
}

async function sourcesFound(guru: string, ...words: string[]): Promise<string[]> {
  const result = await cli(['search', guru, ...words, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { sources: { title: string }[] }).sources.map((source) => source.title);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'guru-cli-files-'));
  dataDir = join(dir, 'data');
  writeFileSync(join(dir, 'quickstart.html'), QUICKSTART);
  writeFileSync(join(dir, 'logo.png'), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));

  const manual = join(dir, 'manual');
  mkdirSync(join(manual, 'guide', 'advanced'), { recursive: true });
  mkdirSync(join(manual, '.git'));
  mkdirSync(join(manual, 'node_modules', 'left-pad'), { recursive: true });
  mkdirSync(join(manual, 'images'));
  writeFileSync(join(manual, 'index.md'), '# Manual\n\nThe okapi gateway forwards every request to the backend.\n');
  writeFileSync(join(manual, 'guide', 'install.html'), QUICKSTART.replace('Quickstart — Flask Documentation', 'Installing').replace('marmoset', 'capybara'));
  writeFileSync(join(manual, 'guide', 'advanced', 'tuning.txt'), 'Tuning: raise the quokka pool to 64 connections under load.\n');
  writeFileSync(join(manual, 'guide', 'advanced', 'handbook.pdf'), await titledPdf('Pangolin handbook', 'The pangolin rolls into a ball when threatened.'));
  writeFileSync(join(manual, '.git', 'notes.md'), 'The axolotl secret lives in the hidden folder.\n');
  writeFileSync(join(manual, 'node_modules', 'left-pad', 'README.md'), 'The wombat package pads strings on the left.\n');
  writeFileSync(join(manual, 'images', 'diagram.png'), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
  writeFileSync(join(manual, 'images', 'photo.jpg'), new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1]));
  // Links: one back up to the folder itself (a loop), one out of it.
  symlinkSync('..', join(manual, 'guide', 'back-up'));
  symlinkSync(dir, join(manual, 'outside'));

  const created = await cli(['guru', 'create', 'docs']);
  expect(created.code, created.stderr).toBe(0);
  const other = await cli(['guru', 'create', 'folders']);
  expect(other.code, other.stderr).toBe(0);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('guru-mcp add with a local HTML file', () => {
  it('indexes the page as a web page is: its text under its title, without tags, scripts or navigation', async () => {
    const result = await cli(['add', 'docs', join(dir, 'quickstart.html'), '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      { id: expect.any(Number), type: 'Text', name: 'Quickstart — Flask Documentation', status: 'SUCCESS', error: '', added: 'success' },
    ]);

    const stored = storedTexts().get('quickstart.html');
    expect(stored?.content).toContain('marmoset server then answers on port 5000');
    expect(stored?.content).toContain('Debug mode');
    expect(stored?.content).not.toMatch(/<\/?(?:html|head|body|main|p|code|h1|script|style|nav)\b|doctype/i);
    expect(stored?.content).not.toContain('window.analytics');

    const answer = await cli(['ask', 'docs', 'Which port does the marmoset server answer on?', '--json']);
    expect(answer.code, answer.stderr).toBe(0);
    const { content } = JSON.parse(answer.stdout) as { content: string };
    expect(content).toContain('port 5000');
    expect(content).not.toMatch(/<\/?(?:html|head|body|main|p|code)\b|doctype/i);
  });

  it('adds a PDF named on the command line as a document', async () => {
    writeFileSync(join(dir, 'tapir.pdf'), await titledPdf('Tapir sightings', 'The tapir bathes in the river at dawn.'));
    const result = await cli(['add', 'docs', join(dir, 'tapir.pdf')]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^\d+\s+PDF\s+SUCCESS\s+Tapir sightings\s*$/m);
    expect(await sourcesFound('docs', 'tapir', 'river')).toEqual(['Tapir sightings']);
  });

  it('refuses an image named on the command line with the reason, and exits with 1', async () => {
    const result = await cli(['add', 'docs', join(dir, 'logo.png')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`guru-mcp: cannot add ${join(dir, 'logo.png')}: logo.png is an image`);
  });
});

describe('guru-mcp add with a folder', () => {
  it('adds every file below it, one source each, skipping hidden folders, node_modules, images and links out or back, and says so', async () => {
    const result = await cli(['add', 'folders', join(dir, 'manual'), '--json']);
    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as Row[];
    expect(rows.map((row) => [row.type, row.name, row.status]).sort()).toEqual(
      [
        ['PDF', 'Pangolin handbook', 'SUCCESS'],
        ['Text', 'Installing', 'SUCCESS'],
        ['Text', 'manual/guide/advanced/tuning.txt', 'SUCCESS'],
        ['Text', 'manual/index.md', 'SUCCESS'],
      ].sort(),
    );
    expect(result.stderr).toMatch(/^Processing: 4\/4$/m);
    const skipped = result.stderr.split('\n').find((line) => line.startsWith('Skipped')) ?? '';
    expect(skipped).toContain('1 hidden folder (manual/.git)');
    expect(skipped).toContain('1 node_modules folder (manual/node_modules)');
    expect(skipped).toContain('2 unsupported files (manual/images/diagram.png, manual/images/photo.jpg)');
    expect(skipped).toContain('1 link leading outside the folder (manual/outside)');
    expect(skipped).toContain('1 folder already read (manual/guide/back-up)');

    expect(await sourcesFound('folders', 'okapi', 'gateway')).toEqual(['manual/index.md']);
    expect(await sourcesFound('folders', 'quokka', 'pool')).toEqual(['manual/guide/advanced/tuning.txt']);
    expect(await sourcesFound('folders', 'capybara')).toEqual(['Installing']);
    expect(await sourcesFound('folders', 'pangolin')).toEqual(['Pangolin handbook']);
    expect(await sourcesFound('folders', 'axolotl')).toEqual([]);
    expect(await sourcesFound('folders', 'wombat')).toEqual([]);
    expect(storedTexts().get('manual/guide/install.html')?.content).not.toMatch(/<\/?(?:html|body|p)\b/);
  });

  it('adding it again reports unchanged files as already added and reads the changed ones again', async () => {
    const before = storedTexts();
    writeFileSync(join(dir, 'manual', 'guide', 'advanced', 'tuning.txt'), 'Tuning: raise the numbat pool to 128 connections under load.\n');
    const result = await cli(['add', 'folders', join(dir, 'manual')]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^\d+\s+Text\s+SUCCESS \(already added\)\s+manual\/index\.md\s*$/m);
    expect(result.stdout).toMatch(/^\d+\s+Text\s+SUCCESS \(already added\)\s+Installing\s*$/m);
    expect(result.stdout).toMatch(/^\d+\s+PDF\s+SUCCESS \(already added\)\s+Pangolin handbook\s*$/m);
    expect(result.stdout).toMatch(/^\d+\s+Text\s+SUCCESS\s+manual\/guide\/advanced\/tuning\.txt\s*$/m);
    expect(result.stdout).toMatch(/^4 sources: 4 SUCCESS; 3 of them already added$/m);

    expect(await sourcesFound('folders', 'numbat', 'pool')).toEqual(['manual/guide/advanced/tuning.txt']);
    expect(await sourcesFound('folders', 'quokka')).toEqual([]);
    const listing = await cli(['sources', 'folders', '--json']);
    expect((JSON.parse(listing.stdout) as { count: number }).count).toBe(4);
    expect(storedTexts().size).toBe(before.size);
  });

  it('--no-wait answers EXISTS for the files already added', async () => {
    const result = await cli(['add', 'folders', join(dir, 'manual'), '--no-wait', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as Row[];
    expect(rows).toHaveLength(4);
    expect(rows.every((row) => row.status === 'EXISTS' && row.added === 'exists')).toBe(true);
  });

  it('refuses a folder over the caps (files, depth) as a whole, adding nothing', async () => {
    const many = join(dir, 'many');
    mkdirSync(many);
    for (let index = 0; index <= 1000; index++) writeFileSync(join(many, `note-${index}.txt`), `Note ${index}.\n`);
    let deep = join(dir, 'deep');
    for (let level = 0; level <= 17; level++) deep = join(deep, `level-${level}`);
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, 'bottom.txt'), 'The bottom of the well.\n');

    const countBefore = storedTexts().size;
    const tooMany = await cli(['add', 'folders', many]);
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toContain('the folders hold more than 1000 files');
    const tooDeep = await cli(['add', 'folders', join(dir, 'deep')]);
    expect(tooDeep.code).toBe(1);
    expect(tooDeep.stderr).toContain('it is nested more than 16 folders deep');
    expect(storedTexts().size).toBe(countBefore);
  });
});

describe('guru-mcp add with a built documentation site', () => {
  it("skips the site's stylesheets and scripts and Sphinx's copies of its pages' sources, and says so", async () => {
    const site = join(dir, 'html');
    mkdirSync(join(site, '_sources', 'guide'), { recursive: true });
    mkdirSync(join(site, '_static'));
    mkdirSync(join(site, 'guide'));
    writeFileSync(join(site, 'index.html'), QUICKSTART.replace('marmoset', 'tapir'));
    writeFileSync(join(site, 'guide', 'install.html'), QUICKSTART.replace('Quickstart — Flask Documentation', 'Installing').replace('marmoset', 'capybara'));
    writeFileSync(join(site, '_sources', 'index.rst.txt'), 'Quickstart\n==========\n\nThe tapir server answers on port 5000.\n');
    writeFileSync(join(site, '_sources', 'guide', 'install.rst.txt'), 'Installing\n==========\n\nThe capybara server answers.\n');
    // A source whose page is not in the folder is knowledge of its own.
    writeFileSync(join(site, '_sources', 'orphan.md.txt'), '# Orphan\n\nThe dugong page was never built.\n');
    writeFileSync(join(site, '_static', 'basic.css'), 'body { margin: 0 } /* tapir */\n');
    writeFileSync(join(site, '_static', 'doctools.js'), 'const tapir = () => document.title;\n');
    writeFileSync(join(site, 'searchindex.js'), 'Search.setIndex({"terms": {"tapir": [0]}});\n');
    expect((await cli(['guru', 'create', 'site'])).code).toBe(0);

    const result = await cli(['add', 'site', site, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as Row[];
    expect(rows.map((row) => row.name).sort()).toEqual(['Installing', 'Quickstart — Flask Documentation', 'html/_sources/orphan.md.txt']);
    const skipped = result.stderr.split('\n').find((line) => line.startsWith('Skipped')) ?? '';
    expect(skipped).toContain("2 copies of pages' sources (html/_sources/guide/install.rst.txt, html/_sources/index.rst.txt)");
    expect(skipped).toContain('3 stylesheets and scripts (html/_static/basic.css, html/_static/doctools.js, html/searchindex.js)');
    expect(await sourcesFound('site', 'tapir')).toEqual(['Quickstart — Flask Documentation']);
  });
});

describe('guru-mcp add with a folder over the remote backend', () => {
  let hosted: HostedServer;

  beforeAll(async () => {
    hosted = await startHostedServer();
  });

  afterAll(() => hosted.close());

  const remote = (args: readonly string[]) => runCli([...args, '--data-dir', dataDir], { env: hosted.env });

  it('sends the text files as texts, HTML read by the server as a web page, and skips documents and images', async () => {
    const result = await remote(['add', 'hosted', join(dir, 'manual'), '--json']);
    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as Row[];
    expect(rows.map((row) => row.name).sort()).toEqual(['manual/guide/advanced/tuning.txt', 'manual/guide/install.html', 'manual/index.md']);
    expect(rows.every((row) => row.status === 'SUCCESS')).toBe(true);
    expect(result.stderr).toMatch(/unsupported files \(manual\/guide\/advanced\/handbook\.pdf, manual\/images\/diagram\.png, manual\/images\/photo\.jpg\)/);

    const search = await hosted.backend.assistant.semanticSearch('hosted', { question: 'capybara server port' });
    expect(search.sources.map((source) => source.title)).toEqual(['manual/guide/install.html']);
    const answer = await hosted.backend.assistant.ask('hosted', { question: 'Which port does the capybara server answer on?', fetch_existing: false });
    expect(answer.content).toContain('port 5000');
    expect(answer.content).not.toMatch(/<\/?(?:html|body|main|p|code)\b|doctype/i);

    const again = await remote(['add', 'hosted', join(dir, 'manual'), '--no-wait', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as Row[]).map((row) => row.status)).toEqual(['EXISTS', 'EXISTS', 'EXISTS']);
  });
});
