import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { onEachStore, type EngineDatabase } from '../../support/engine-stores.js';
import { isGuruError } from '../../../src/core/errors.js';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { openDatabase } from '../../../src/engine/store/database.js';
import { MIGRATIONS } from '../../../src/engine/store/migrations.js';

describe('guru settings', () => onEachStore((store) => {
  let dir: string;
  let database: EngineDatabase;
  let engine: LocalEngine;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-settings-'));
    database = await store.database(dir);
    engine = await LocalEngine.open({ dataDir: dir, ...database.settings, processQueue: false });
    await engine.createGuru({ slug: 'docs' });
  });

  afterEach(async () => {
    await engine.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts from DESIGN.md's defaults", async () => {
    expect(await engine.guruSettings('docs')).toEqual({
      model_instructions: '',
      use_model: true,
      speech_provider: false,
      attachment_limits: {
        images: { count: 5, max_bytes: 5_000_000 },
        log_files: { count: 5, max_bytes: 1_000_000 },
        pdf_files: { count: 3, max_bytes: 10_000_000 },
      },
    });
  });

  it('changes only the fields a patch names, limits field by field, and keeps them across reopening', async () => {
    await engine.updateGuruSettings('docs', { model_instructions: 'Answer as Acme support.', attachment_limits: { pdf_files: { count: 1 } } });
    const settings = await engine.updateGuruSettings('docs', { use_model: false, attachment_limits: { images: { max_bytes: 2_000_000 } } });
    const expected = {
      model_instructions: 'Answer as Acme support.',
      use_model: false,
      speech_provider: false,
      attachment_limits: {
        images: { count: 5, max_bytes: 2_000_000 },
        log_files: { count: 5, max_bytes: 1_000_000 },
        pdf_files: { count: 1, max_bytes: 10_000_000 },
      },
    };
    expect(settings).toEqual(expected);
    await engine.close();
    engine = await LocalEngine.open({ dataDir: dir, ...database.settings, processQueue: false });
    expect(await engine.guruSettings('docs')).toEqual(expected);
  });

  it('refuses unknown fields, out-of-range limits and over-long instructions, changing nothing', async () => {
    const bad = [
      { colour: 'blue' },
      { attachment_limits: { images: { count: 21 } } },
      { attachment_limits: { videos: { count: 1 } } },
      { attachment_limits: { pdf_files: { max_bytes: 0 } } },
      { model_instructions: 'x'.repeat(4001) },
      { use_model: 'yes' },
    ];
    for (const patch of bad) {
      const error = await engine.updateGuruSettings('docs', patch as never).catch((caught: unknown) => caught);
      expect(isGuruError(error) && error.status).toBe(400);
    }
    expect((await engine.guruSettings('docs')).attachment_limits.images.count).toBe(5);
  });

  it("refuses attachment limits over the operator's ceiling, by default the default limits, saying which and where it is set", async () => {
    const error = await engine.updateGuruSettings('docs', { attachment_limits: { images: { count: 20, max_bytes: 50_000_000 } } }).catch((caught: unknown) => caught);
    expect(isGuruError(error) && { status: error.status, message: error.message, hint: error.hint }).toEqual({
      status: 400,
      message: "Invalid request parameters: attachment_limits.images.count must be at most 5 on this server (its operator's ceiling), not 20",
      hint: expect.stringContaining('GURU_ATTACHMENT_CEILING'),
    });
    const size = await engine.updateGuruSettings('docs', { attachment_limits: { pdf_files: { max_bytes: 10_000_001 } } }).catch((caught: unknown) => caught);
    expect(isGuruError(size) && size.message).toBe("Invalid request parameters: attachment_limits.pdf_files.max_bytes must be at most 10000000 on this server (its operator's ceiling), not 10000001");
    expect((await engine.guruSettings('docs')).attachment_limits.images).toEqual({ count: 5, max_bytes: 5_000_000 });
    // At the ceiling and below is taken.
    const lowered = await engine.updateGuruSettings('docs', { attachment_limits: { images: { count: 5, max_bytes: 1_000_000 } } });
    expect(lowered.attachment_limits.images).toEqual({ count: 5, max_bytes: 1_000_000 });
  });

  it('takes limits up to a raised ceiling, and clamps stored ones to a ceiling lowered later', async () => {
    await engine.close();
    engine = await LocalEngine.open({ dataDir: dir, ...database.settings, processQueue: false, attachmentCeiling: { images: { count: 20, max_bytes: 50_000_000 } } });
    const raised = await engine.updateGuruSettings('docs', { attachment_limits: { images: { count: 20, max_bytes: 50_000_000 } } });
    expect(raised.attachment_limits.images).toEqual({ count: 20, max_bytes: 50_000_000 });
    // Other kinds keep the default limits as their ceiling.
    const error = await engine.updateGuruSettings('docs', { attachment_limits: { log_files: { count: 6 } } }).catch((caught: unknown) => caught);
    expect(isGuruError(error) && error.status).toBe(400);

    await engine.close();
    engine = await LocalEngine.open({ dataDir: dir, ...database.settings, processQueue: false, attachmentCeiling: { images: { count: 2, max_bytes: 1_000_000 } } });
    expect((await engine.guruSettings('docs')).attachment_limits).toEqual({
      images: { count: 2, max_bytes: 1_000_000 },
      log_files: { count: 5, max_bytes: 1_000_000 },
      pdf_files: { count: 3, max_bytes: 10_000_000 },
    });
  });

  it('answers not found for an unknown guru', async () => {
    const error = await engine.guruSettings('nope').catch((caught: unknown) => caught);
    expect(isGuruError(error) && error.status).toBe(404);
  });

  // SQLite only: an embedded data directory from before the settings table (PostgreSQL starts after it).
  it.skipIf(store.kind !== 'sqlite')('carries a guru that spoke through the speech provider over from the schema before settings', async () => {
    const old = mkdtempSync(join(tmpdir(), 'guru-settings-old-'));
    try {
      const db = openDatabase(old, MIGRATIONS.filter((migration) => migration.version <= 8));
      const now = new Date().toISOString();
      const guruId = db.prepare<[string, string, string], { id: number }>("INSERT INTO gurus (slug, name, date_created) VALUES (?, ?, ?) RETURNING id").get('loud', 'loud', now)!.id;
      db.prepare("INSERT INTO gurus (slug, name, date_created) VALUES ('quiet', 'quiet', ?)").run(now);
      db.prepare('INSERT INTO speech_provider_gurus (guru_id, enabled_at) VALUES (?, ?)').run(guruId, now);
      db.close();

      const upgraded = await LocalEngine.open({ dataDir: old, processQueue: false });
      try {
        expect((await upgraded.guruSettings('loud')).speech_provider).toBe(true);
        expect((await upgraded.guruSettings('quiet')).speech_provider).toBe(false);
      } finally {
        await upgraded.close();
      }
    } finally {
      rmSync(old, { recursive: true, force: true });
    }
  });
}));
