/**
 * Context selection over a real index: the best passages with their
 * neighbours of the same section (never of another), grouped per document,
 * within the token budget; and simple interactions told from questions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateTokens, selectContext } from '../../../src/engine/answer/model/context-window.js';
import { simpleReply } from '../../../src/engine/answer/model/simple-interactions.js';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { parseQuery } from '../../../src/engine/search/query.js';
import { Retriever } from '../../../src/engine/search/retriever.js';
import { SqliteSql } from '../../../src/engine/store/sqlite-sql.js';
import { openDatabase, type Db } from '../../../src/engine/store/database.js';

/** A paragraph of about 400 characters, marked so that the test can tell where it came from. */
const paragraph = (marker: string) =>
  `${marker}: the cache keeps recently read pages in memory so that a second read of the same page costs nothing, ` +
  'and the pager writes them back when a transaction commits. Sizing it well matters more than any other setting ' +
  'for read-heavy work, and the defaults suit a small database on a laptop rather than a server with plenty of memory.';

/** One section long enough for several chunks, the rare word only in its middle, then another section. */
const TUNING = `# Tuning

## Cache sizing

${['before-one', 'before-two', 'before-three'].map(paragraph).join('\n\n')}

The zorblax setting caps the cache at a number of pages. ${paragraph('middle')}

${['after-one', 'after-two', 'after-three'].map(paragraph).join('\n\n')}

## Logging

${['logging-one', 'logging-two', 'logging-three', 'logging-four'].map(paragraph).join('\n\n')}
`;

/** Many other documents that mention the word, to overflow the budget. */
const others = Array.from({ length: 12 }, (_, i) => ({
  name: `Note ${i + 1}`,
  content: `# Note ${i + 1}\n\n## Zorblax ${i + 1}\n\n${Array.from({ length: 4 }, (_, j) => paragraph(`note-${i + 1}-${j + 1} zorblax`)).join('\n\n')}\n`,
}));

describe('context selection', () => {
  let dir: string;
  let db: Db;
  let retriever: Retriever;
  let guruId: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-context-'));
    const engine = await LocalEngine.open({ dataDir: dir });
    try {
      await engine.createGuru({ slug: 'db', name: 'Db' });
      await engine.createDataSources('db', { text_sources: [{ name: 'Tuning', content: TUNING }, ...others] });
      await engine.whenIdle();
    } finally {
      await engine.close();
    }
    db = openDatabase(dir);
    retriever = new Retriever(new SqliteSql(db));
    guruId = (db.prepare("SELECT id FROM gurus WHERE slug = 'db'").get() as { id: number }).id;
  });

  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const hitsFor = (question: string) => retriever.search(guruId, parseQuery(question), { limit: 40 });

  it('expands the best passage to its neighbours in the same section, never into the next section', async () => {
    const hits = (await hitsFor('What does the zorblax setting of the cache do?')).filter((hit) => hit.title === 'Tuning');
    expect(hits.length).toBeGreaterThan(0);
    const [tuning] = await selectContext(retriever, hits.slice(0, 1));
    const text = tuning!.sections.map((section) => section.text).join('\n');
    expect(text).toContain('The zorblax setting caps the cache');
    // The chunks of the section before and after the one found came along.
    expect(text).toMatch(/before-(two|three)/);
    expect(text).toMatch(/after-(one|two)/);
    expect(text).not.toContain('logging-');
    expect(tuning!.sections.every((section) => section.headings.endsWith('Cache sizing'))).toBe(true);
  });

  it('stays within the token budget, one source per document in order of its best passage', async () => {
    const hits = await hitsFor('zorblax');
    const sources = await selectContext(retriever, hits, 1_000);
    const tokens = sources.flatMap((source) => source.sections).reduce((sum, section) => sum + estimateTokens(section.text), 0);
    expect(tokens).toBeLessThanOrEqual(1_000 + 10);
    expect(sources.length).toBeGreaterThan(1);
    expect(new Set(sources.map((source) => source.sourceId)).size).toBe(sources.length);
    const firstOfEach = [...new Set(hits.map((hit) => hit.sourceId))].filter((id) => sources.some((source) => source.sourceId === id));
    expect(sources.map((source) => source.sourceId)).toEqual(firstOfEach);
    expect((await selectContext(retriever, hits)).length).toBeGreaterThan(sources.length);
  });
});

describe('simple interactions', () => {
  it.each([
    ['hi', /^Hello! Ask me anything about Db/],
    ['Hello there!', /^Hello!/],
    ['Thanks a lot :)', /^You're welcome/],
    ['ok, thank you so much', /^You're welcome/],
    ['Vielen Dank!', /^Gern geschehen/],
    ['¡Hola!', /^¡Hola!/],
    ['bye', /^Goodbye/],
  ])('replies to %j', (message, reply) => {
    expect(simpleReply(message, 'Db')).toMatch(reply);
  });

  it.each(['hi, how do I install it?', 'thanks, but what about WAL?', 'high availability', 'hello world program in C', ''])('treats %j as a question', (message) => {
    expect(simpleReply(message, 'Db')).toBeUndefined();
  });
});
