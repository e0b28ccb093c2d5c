import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../src/engine/store/database.js';
import { SqliteSql } from '../../../src/engine/store/sqlite-sql.js';
import { GuruRepository } from '../../../src/engine/gurus/repository.js';
import { IntegrationRepository } from '../../../src/engine/store/integrations.js';
import { SecretBox } from '../../../src/engine/store/secrets.js';

describe('integrations at rest', () => {
  let dir: string;
  let db: Db;
  let guruId: number;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-secrets-'));
    db = openDatabase(dir);
    guruId = (await new GuruRepository(new SqliteSql(db)).create('acme', 'Acme', new Date().toISOString()))!.id;
  });

  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps tokens sealed in the database and the key readable by its owner only', async () => {
    const integrations = new IntegrationRepository(new SqliteSql(db), new SecretBox(dir));
    const token = 'ATATT3xFfGF0-super-secret-token';
    await integrations.set(guruId, { kind: 'JIRA', baseUrl: 'https://acme.atlassian.net', email: 'bot@acme.test', token }, '2026-11-22T00:00:00Z');

    expect(await integrations.credentials(guruId, 'JIRA')).toEqual({ kind: 'JIRA', baseUrl: 'https://acme.atlassian.net', email: 'bot@acme.test', token });
    expect(await integrations.list(guruId)).toEqual([
      { kind: 'JIRA', baseUrl: 'https://acme.atlassian.net', email: 'bot@acme.test', dateCreated: '2026-11-22T00:00:00Z' },
    ]);
    db.pragma('wal_checkpoint(TRUNCATE)');
    expect(readFileSync(join(dir, 'guru.sqlite')).includes(Buffer.from(token))).toBe(false);
    expect(statSync(join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
  });

  it('replaces an integration set again, and removes it', async () => {
    const integrations = new IntegrationRepository(new SqliteSql(db), new SecretBox(dir));
    await integrations.set(guruId, { kind: 'ZENDESK', baseUrl: 'https://a.zendesk.com', email: 'a@b.c', token: 'one' }, 'now');
    await integrations.set(guruId, { kind: 'ZENDESK', baseUrl: 'https://b.zendesk.com', email: null, token: 'two' }, 'now');
    expect(await integrations.credentials(guruId, 'ZENDESK')).toMatchObject({ baseUrl: 'https://b.zendesk.com', email: null, token: 'two' });
    expect(await integrations.remove(guruId, 'ZENDESK')).toBe(true);
    expect(await integrations.remove(guruId, 'ZENDESK')).toBe(false);
    expect(await integrations.credentials(guruId, 'ZENDESK')).toBeUndefined();
  });

  it('says clearly when a token cannot be opened with the key on disk', async () => {
    const integrations = new IntegrationRepository(new SqliteSql(db), new SecretBox(dir));
    await integrations.set(guruId, { kind: 'CONFLUENCE', baseUrl: 'https://c.example', email: null, token: 't' }, 'now');
    writeFileSync(join(dir, 'secret.key'), Buffer.alloc(32, 7));
    await expect(new IntegrationRepository(new SqliteSql(db), new SecretBox(dir)).credentials(guruId, 'CONFLUENCE')).rejects.toThrow(/set the integration again/);
  });
});
