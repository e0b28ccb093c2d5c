/**
 * What only the local engine does: keys at rest, resuming work, its answer stages, on each store
 * (SQLite and PostgreSQL); and its SQLite database file. The behaviour every Assistant shares is
 * held by the contract suite in test/contract/, against this engine and the remote adapter.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GuruError } from '../../src/core/errors.js';
import { LocalEngine } from '../../src/engine/local-engine.js';
import { CONFIG_GUIDE, INSTALL_GUIDE } from '../contract/fixtures.js';
import { onEachStore, type EngineDatabase } from '../support/engine-stores.js';

describe('LocalEngine', () => onEachStore((store) => {
  let dir: string;
  let database: EngineDatabase;
  let engine: LocalEngine;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-engine-'));
    database = await store.database(dir);
    engine = await LocalEngine.open({ dataDir: dir, ...database.settings, clock: () => new Date('2026-11-20T12:00:00Z') });
    await engine.createGuru({ slug: 'frob', name: 'Frobnicator' });
  });

  afterEach(async () => {
    await engine.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function addDocs() {
    await engine.createDataSources('frob', {
      text_sources: [
        { name: 'Install guide', content: INSTALL_GUIDE },
        { name: 'Configuration', content: CONFIG_GUIDE },
      ],
    });
    await engine.whenIdle();
  }

  const countRows = (table: 'questions' | 'binges') => database.rows(table);

  describe('gurus and keys', () => {
    it('stores keys only as hashes and resolves them to their guru', async () => {
      const created = await engine.createGuru({ slug: 'other' });
      expect(created).toEqual({ slug: 'other', name: 'other', api_key: expect.stringMatching(/^guru_[A-Za-z0-9_-]{43}$/) });
      expect(await engine.authenticate(created.api_key)).toBe('other');
      expect(await engine.authenticate(`${created.api_key}x`)).toBeUndefined();
      const extra = await engine.createApiKey('other');
      expect(extra.api_key).not.toBe(created.api_key);
      expect(await engine.authenticate(extra.api_key)).toBe('other');

      const dump = JSON.stringify(await database.all('SELECT * FROM api_keys'));
      expect(dump).not.toContain(created.api_key);
      expect(dump).not.toContain(extra.api_key);
    });

    it('refuses a taken slug and lists gurus', async () => {
      await expect(engine.createGuru({ slug: 'frob' })).rejects.toMatchObject({ status: 409 });
      expect((await engine.listGurus()).map((g) => g.slug)).toEqual(['frob']);
      await expect(engine.createApiKey('nope')).rejects.toBeInstanceOf(GuruError);
      for (const slug of ['Bad Slug', '-x', 'a--', '', 'x'.repeat(65)]) {
        await expect(engine.createGuru({ slug })).rejects.toMatchObject({ status: 400 });
      }
      expect((await engine.listGurus()).map((g) => g.slug)).toEqual(['frob']);
    });
  });

  describe('processing', () => {
    it('resumes processing left unfinished by a stopped process', async () => {
      await engine.createDataSources('frob', { text_sources: [{ name: 'Install guide', content: INSTALL_GUIDE }] });
      await engine.close(); // closed before the worker ran
      // Whatever it had claimed it gave back: a new process takes it up at once, not when a lease runs out.
      expect(await database.get('SELECT count(*) AS n FROM jobs WHERE lease_owner IS NOT NULL')).toEqual({ n: 0 });
      engine = await LocalEngine.open({ dataDir: dir, ...database.settings });
      await engine.whenIdle();
      const [source] = (await engine.listDataSources('frob', { page: 1, page_size: 10 })).results;
      expect(source?.status).toBe('SUCCESS');
    });
  });

  describe('answers', () => {
    it('reports its stages while answering', async () => {
      await addDocs();
      const stages: string[] = [];
      await engine.ask('frob', { question: 'Where does Frobnicator read its settings?', fetch_existing: false }, { onStage: (line) => stages.push(line) });
      expect(stages).toEqual(['Searching the knowledge base', 'Writing the answer']);
    });

    it('streams in several pieces', async () => {
      await addDocs();
      const pieces: string[] = [];
      const answer = await engine.ask('frob', { question: 'How do I install Frobnicator?', fetch_existing: false }, { onText: (delta) => pieces.push(delta) });
      expect(pieces.length).toBeGreaterThan(1);
      expect(pieces.join('')).toBe(answer.content);
    });

    it('keeps the answer when the caller aborts while the text streams, so it can be fetched afterwards', async () => {
      await addDocs();
      const controller = new AbortController();
      const ask = engine.ask(
        'frob',
        { question: 'How do I install Frobnicator?', fetch_existing: false },
        { signal: controller.signal, onText: () => controller.abort() },
      );
      await expect(ask).rejects.toThrow();
      expect(await countRows('questions')).toBe(1);
      const fetched = await engine.ask('frob', { question: 'How do I install Frobnicator?', fetch_existing: true });
      expect(fetched.content).toContain('npm install -g frobnicator');
      expect(await countRows('questions')).toBe(1);
    });

    it('stores nothing when the caller aborted before asking', async () => {
      const controller = new AbortController();
      controller.abort();
      await expect(engine.ask('frob', { question: 'hello', fetch_existing: false }, { signal: controller.signal })).rejects.toThrow();
      expect(await countRows('questions')).toBe(0);
    });
  });

  describe('sessions', () => {
    it('keeps no conversation text of a deleted session', async () => {
      const answer = await engine.ask('frob', { question: 'hello', fetch_existing: false });
      expect(await countRows('questions')).toBe(1);
      await engine.deleteSession('frob', answer.session_id);
      expect(await countRows('questions')).toBe(0);
    });
  });
}));

/** SQLite only: several engines on one file, and its user_version (PostgreSQL's: test/engine/store/postgres-schema.test.ts). */
describe('database', () => {
  it('opens one data directory from several engines at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guru-shared-'));
    const engines = await Promise.all(Array.from({ length: 4 }, () => LocalEngine.open({ dataDir: dir })));
    try {
      await engines[0]!.createGuru({ slug: 'shared' });
      await engines[1]!.createDataSources('shared', { text_sources: [{ name: 'n', content: 'The shared zebu grazes.' }] });
      await Promise.all(engines.map((engine) => engine.whenIdle()));
      for (const engine of engines) {
        expect((await engine.semanticSearch('shared', { question: 'zebu' })).total_sources).toBe(1);
      }
    } finally {
      await Promise.all(engines.map((engine) => engine.close()));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a database written by a newer version', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guru-newer-'));
    try {
      await (await LocalEngine.open({ dataDir: dir })).close();
      const db = new Database(join(dir, 'guru.sqlite'));
      db.pragma('user_version = 999');
      db.close();
      await expect(LocalEngine.open({ dataDir: dir })).rejects.toThrow(/newer guru-mcp/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
