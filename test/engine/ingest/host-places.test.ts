/**
 * The per-host limit bounds what is fetched from a host at once, not what is being extracted: a
 * page whose extraction takes long gives its host's place to the next page as soon as it has
 * been fetched.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { respond, startLoopbackServer, type LoopbackServer } from '../../support/loopback-server.js';
import { DOCS_PAGE } from '../../support/pages.js';

/** Some 3 MB of paragraphs: a second or more of extraction, against milliseconds for a usual page. */
const HUGE_PAGE = `<html><body><main>${'<p>Some words of text here, <b>bold</b> and <i>more</i>.</p>'.repeat(50_000)}</main></body></html>`;

let dir: string;
let site: LoopbackServer;
let engine: LocalEngine | undefined;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'guru-host-places-'));
  site = await startLoopbackServer({
    '/huge': respond(HUGE_PAGE, { 'content-type': 'text/html; charset=utf-8' }),
    '/docs': respond(DOCS_PAGE, { 'content-type': 'text/html; charset=utf-8' }),
  });
});

afterEach(async () => {
  await engine?.close();
  engine = undefined;
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});

it('fetches and indexes the next page of a host while the one before it is still extracted', async () => {
  engine = await LocalEngine.open({ dataDir: dir, allowPrivateNetwork: true, extraction: { threads: 2 }, processing: { concurrency: 2, perHost: 1 } });
  await engine.createGuru({ slug: 'docs' });
  const [huge, docs] = await engine.createDataSources('docs', { website_urls: [site.url('/huge'), site.url('/docs')] });
  const statuses = async () => {
    const { results } = await engine!.listDataSources('docs', { page: 1, page_size: 10 });
    return new Map(results.map((source) => [source.id, source.status]));
  };

  let seen = await statuses();
  while (seen.get(docs!.id) === 'NOT_PROCESSED') {
    await sleep(10);
    seen = await statuses();
  }
  // Had /huge kept its host's place until it was read, /docs could not have been indexed before it.
  expect(seen.get(docs!.id)).toBe('SUCCESS');
  expect(seen.get(huge!.id)).toBe('NOT_PROCESSED');

  await engine.whenIdle();
  expect((await statuses()).get(huge!.id)).toBe('SUCCESS');
  expect(site.requests.map((request) => request.url.href)).toEqual([site.url('/huge'), site.url('/docs')]);
});
