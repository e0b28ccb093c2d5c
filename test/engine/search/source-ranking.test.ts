/**
 * Semantic search ranks sources by their best chunk. It first asks FTS5 for the index's best chunks
 * alone and reads the guru's every match only when those cannot tell; either way the answer must be
 * what ranking every match gives: best score first, the higher source id first among equal scores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { parseQuery } from '../../../src/engine/search/query.js';
import { COLUMN_WEIGHTS } from '../../../src/engine/search/full-text.js';

const SOURCES_SHOWN = 10;

describe('semantic search ranking of sources', () => {
  let dir: string;
  let engine: LocalEngine;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-ranking-'));
    engine = await LocalEngine.open({ dataDir: dir });
    for (const slug of ['loud', 'quiet', 'same', 'few']) await engine.createGuru({ slug });
    const text = (name: string, content: string) => ({ name, content });
    // `loud` fills the index's best chunks for "lamp": `quiet`'s matches all rank below them.
    await engine.createDataSources('loud', {
      text_sources: Array.from({ length: 100 }, (_, i) => text(`loud-${i}`, `lamp lamp lamp lamp oil ${'wick '.repeat(i % 7)}`)),
    });
    // Two chunks of a source, duplicate texts (equal scores), lengths that spread the scores.
    await engine.createDataSources('quiet', {
      text_sources: [
        ...Array.from({ length: 30 }, (_, i) => text(`quiet-${i}`, `The lamp of the tower. ${'Fog and rain. '.repeat(i % 9)}`)),
        ...Array.from({ length: 4 }, (_, i) => text(`twin-${i}`, 'The lamp of the tower, the lamp of the keeper.')),
        text('long', `# Lamp\n\n${'The lamp is trimmed at dusk. '.repeat(40)}\n\n## Oil\n\n${'Oil is carried up the stairs. '.repeat(200)}`),
      ],
    });
    // Every source scores the same: which ten are shown is decided by the tie order alone.
    await engine.createDataSources('same', {
      text_sources: Array.from({ length: 120 }, (_, i) => text(`same-${i}`, 'The lamp is lit at dusk.')),
    });
    await engine.createDataSources('few', { text_sources: [text('one', 'A lamp.'), text('two', 'A lamp and a lamp.'), text('three', 'No light.')] });
    await engine.whenIdle();
  });

  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The guru's sources as ranking all its matching chunks orders them (the names of the first ten). */
  function rankedByEveryMatch(slug: string, question: string): string[] {
    const db = new Database(join(dir, 'guru.sqlite'), { readonly: true });
    try {
      const { title, headings, body } = COLUMN_WEIGHTS;
      const rows = db
        .prepare<[string, string], { id: number; name: string; score: number }>(
          `SELECT s.id AS id, s.name AS name, -bm25(chunks_fts, ${title}, ${headings}, ${body}) AS score
           FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN data_sources s ON s.id = c.source_id
           JOIN gurus g ON g.id = c.guru_id
           WHERE chunks_fts MATCH ? AND g.slug = ?`,
        )
        .all(parseQuery(question).match as string, slug);
      const best = new Map<number, { id: number; name: string; score: number }>();
      for (const row of rows) if ((best.get(row.id)?.score ?? -Infinity) < row.score) best.set(row.id, row);
      return [...best.values()]
        .sort((a, b) => b.score - a.score || b.id - a.id)
        .slice(0, SOURCES_SHOWN)
        .map((row) => row.name);
    } finally {
      db.close();
    }
  }

  const searched = async (slug: string, question: string) =>
    (await engine.semanticSearch(slug, { question })).sources.map((source) => source.title);

  it('finds a guru whose matches all rank below another guru\'s', async () => {
    const expected = rankedByEveryMatch('quiet', 'lamp');
    expect(expected).toHaveLength(SOURCES_SHOWN);
    expect(await searched('quiet', 'lamp')).toEqual(expected);
    expect(await searched('quiet', 'lamp tower')).toEqual(rankedByEveryMatch('quiet', 'lamp tower'));
  });

  it('ranks the guru that holds the best chunks', async () => {
    const expected = rankedByEveryMatch('loud', 'lamp oil wick');
    expect(expected).toHaveLength(SOURCES_SHOWN);
    expect(await searched('loud', 'lamp oil wick')).toEqual(expected);
  });

  it('shows a source with several matching chunks once', async () => {
    const shown = await searched('quiet', 'lamp oil');
    expect(shown[0]).toBe('long');
    expect(new Set(shown).size).toBe(shown.length);
    expect(shown).toEqual(rankedByEveryMatch('quiet', 'lamp oil'));
  });

  it('orders equal scores the higher source id first, also past the best chunks FTS5 was asked for', async () => {
    const expected = rankedByEveryMatch('same', 'lamp dusk');
    expect(expected).toEqual(Array.from({ length: SOURCES_SHOWN }, (_, i) => `same-${119 - i}`));
    expect(await searched('same', 'lamp dusk')).toEqual(expected);
    const twins = await searched('quiet', 'lamp keeper');
    expect(twins.slice(0, 4)).toEqual(['twin-3', 'twin-2', 'twin-1', 'twin-0']);
  });

  it('returns every match when there are fewer than it shows', async () => {
    expect(await searched('few', 'lamp')).toEqual(['two', 'one']);
    expect(await searched('few', 'candle')).toEqual([]);
  });
});
