/**
 * What only the embedded engine shows of follow-up examples: where they are
 * kept, that they go with their session, and the spec's 500 when making them
 * fails (here: a stored answer whose references cannot be read).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { onEachStore, type EngineDatabase, type StoreUnderTest } from '../../support/engine-stores.js';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { createLogger } from '../../../src/log.js';
import { FROB_GUIDES } from '../../contract/fixtures.js';

function localFollowUps(store: StoreUnderTest): void {
describe('LocalFollowUps', () => {
  let dir: string;
  let database: EngineDatabase;
  let engine: LocalEngine;
  const logLines: string[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-follow-ups-'));
    logLines.length = 0;
    database = await store.database(dir);
    engine = await LocalEngine.open({ dataDir: dir, ...database.settings, logger: createLogger('error', (line) => logLines.push(line)) });
    await engine.createGuru({ slug: 'frob' });
    await engine.createDataSources('frob', FROB_GUIDES);
    await engine.whenIdle();
  });

  afterEach(async () => {
    await engine.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });


  it('keeps the examples with the answer, and forgets them with its session', async () => {
    const answer = await engine.ask('frob', { question: 'How do I install Frobnicator?', fetch_existing: false });
    const made = await engine.followUpExamples('frob', { question_slug: answer.slug });
    const stored = await database.all('SELECT examples_json FROM follow_up_examples');
    expect(stored).toEqual([{ examples_json: JSON.stringify(made.follow_up_examples) }]);
    await engine.deleteSession('frob', answer.session_id);
    expect(await database.get('SELECT count(*) AS n FROM follow_up_examples')).toEqual({ n: 0 });
  });

  it('answers 500 "An error occurred while generating follow-up examples" when making them fails, and logs why', async () => {
    const answer = await engine.ask('frob', { question: 'How do I install Frobnicator?', fetch_existing: false });
    await database.run("UPDATE questions SET references_json = '{broken' WHERE slug = ?", [answer.slug]);
    await expect(engine.followUpExamples('frob', { question_slug: answer.slug })).rejects.toMatchObject({
      status: 500,
      field: 'error',
      message: 'An error occurred while generating follow-up examples',
    });
    expect(logLines.join('\n')).toContain('follow-up examples failed');
    expect(await database.get('SELECT count(*) AS n FROM follow_up_examples')).toEqual({ n: 0 });
  });
});
}

/** One document is all the knowledge: every section names the keeper, so the question touches them all. */
const LIGHTHOUSE = `## The lamp

The keeper polishes the lens and the brass of the lamp every morning, trims the wick and fills the reservoir with
paraffin before dusk. A clean lens carries the beam twenty miles out to sea.

## Fog signals

When fog rolls in, the keeper starts the diaphone and sounds it every thirty seconds until the air clears. The
keeper checks the compressor of the diaphone each week.

## The log book

The keeper writes every watch in the log book: the weather, the ships that passed, and the hours the beam burned.
Inspectors read the log book on their visits.

## Relief and supplies

A relief boat brings fresh water, food and paraffin to the keeper every fortnight, weather permitting, and takes the
outgoing keeper ashore.
`;

function oneDocument(store: StoreUnderTest): void {
describe('follow-ups in a guru of one document', () => {
  let dir: string;
  let database: EngineDatabase;
  let engine: LocalEngine;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-follow-ups-one-'));
    database = await store.database(dir);
    engine = await LocalEngine.open({ dataDir: dir, ...database.settings });
    await engine.createGuru({ slug: 'light', name: 'Lighthouse' });
    await engine.createDataSources('light', { text_sources: [{ name: 'Keeping the light', content: LIGHTHOUSE }] });
    await engine.whenIdle();
  });

  afterEach(async () => {
    await engine.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('suggests the sections of the page that the answer did not cover', async () => {
    const answer = await engine.ask('light', { question: 'What does a keeper polish?', fetch_existing: false });
    expect(answer.content).toContain('polishes the lens');
    const { follow_up_examples: examples } = await engine.followUpExamples('light', { question_slug: answer.slug });
    expect(examples).toEqual(['What should I know about fog signals?', 'What should I know about the log book?', 'What should I know about relief and supplies?']);

    // Asked, each finds its own section.
    const next = await engine.ask('light', { question: examples[0]!, session_id: answer.session_id, fetch_existing: false });
    expect(next.content).toContain('diaphone');
    const { follow_up_examples: later } = await engine.followUpExamples('light', { question_slug: next.slug });
    expect(later).not.toContain('What should I know about fog signals?');
    expect(later).not.toContain('What should I know about the lamp?');
  });
});
}

onEachStore((store) => {
  localFollowUps(store);
  oneDocument(store);
});
