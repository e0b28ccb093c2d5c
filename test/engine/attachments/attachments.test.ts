/**
 * Attachments of ask on the embedded engine: the guru's limits, the note, PDFs refused before
 * anything is answered, attachment passages searched and cited with the knowledge base, kept for
 * the session's follow-ups, and gone with the session.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AskInput } from '../../../src/core/schemas.js';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { openDatabase } from '../../../src/engine/store/database.js';
import { MIGRATIONS } from '../../../src/engine/store/migrations.js';
import { reportPdf } from '../../support/documents.js';
import { onEachStore, type EngineDatabase } from '../../support/engine-stores.js';

const GUIDE = `# Frobnicator guide

## Installing

Install the frobnicator with \`npm install frobnicator\`. It needs Node 20 or newer.

## Colours

Set FROB_COLOR to choose the colour of the frobnicator's output.
`;

/** A log whose error only the log explains: the knowledge base never mentions it. */
const CRASH_LOG = [
  '2026-11-20 10:00:01 INFO frobnicator starting',
  '2026-11-20 10:00:02 INFO loading plugins',
  '2026-11-20 10:00:03 ERROR plugin quasargrid failed: checksum mismatch in quasargrid.wasm',
  '2026-11-20 10:00:03 INFO shutting down',
].join('\n');

const pdfDataUrl = (bytes: Uint8Array) => `data:application/pdf;base64,${Buffer.from(bytes).toString('base64')}`;
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
/** A data URL of `bytes` bytes of the given type (its content does not matter to the limits). */
const sized = (mime: string, bytes: number) => `data:${mime};base64,${Buffer.alloc(bytes, 1).toString('base64')}`;

describe('attachments in ask', () => onEachStore((store) => {
  let dir: string;
  let database: EngineDatabase;
  let engine: LocalEngine;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-attachments-'));
    database = await store.database(dir);
    engine = await LocalEngine.open({ dataDir: dir, ...database.settings });
    await engine.createGuru({ slug: 'frob', name: 'Frobnicator' });
    await engine.createDataSources('frob', { text_sources: [{ name: 'Guide', content: GUIDE }] });
    await engine.whenIdle();
  });

  afterEach(async () => {
    await engine.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const ask = (input: Omit<AskInput, 'fetch_existing'>, onText?: (delta: string) => void) =>
    engine.ask('frob', { fetch_existing: false, ...input }, onText ? { onText } : {});

  const fileBytes = () =>
    ['guru.sqlite', 'guru.sqlite-wal']
      .map((file) => join(dir, file))
      .filter((path) => existsSync(path))
      .map((path) => readFileSync(path).toString('latin1'))
      .join('\n');

  /** Whether the store's bytes (SQLite: the database file and its log) or rows (PostgreSQL) hold `text`. */
  const storeHolds = async (text: string) =>
    store.kind === 'sqlite' ? fileBytes().includes(text) : (await database.holding(text)).some((place) => place.startsWith('table '));

  describe('log files and PDFs as context', () => {
    it('answers from a log file, citing it by its name and a guru:// link of the session', async () => {
      const answer = await ask({ question: 'Why did the quasargrid plugin fail?', log_files: [{ name: 'crash.log', data: CRASH_LOG }] });
      expect(answer.can_receive_feedback).toBe(true);
      expect(answer.content).toContain('checksum mismatch');
      expect(answer.references).toContainEqual({ title: 'crash.log', link: `guru://frob/sessions/${answer.session_id}/attachments/1`, icon: '' });
      expect(answer.references.every((reference) => reference.inherited === undefined)).toBe(true);
      expect(answer.attachment_note).toBeUndefined();
    });

    it.each([
      'Why does my app log say the pool is exhausted?',
      'The attached file says the pool is exhausted. Why?',
      'My log says pool exhausted, what should I change?',
      'Why is the pool exhausted in app.log?',
    ])('answers from the log when the question points at it in everyday words: %s', async (question) => {
      const log = '2024-01-01 ERROR pool exhausted: max_connections reached';
      const answer = await ask({ question, log_files: [{ name: 'app.log', data: log }] });
      expect(answer.can_receive_feedback).toBe(true);
      expect(answer.content).toContain(log);
      expect(answer.references[0]).toMatchObject({ title: 'app.log', link: `guru://frob/sessions/${answer.session_id}/attachments/1` });
    });

    it('without the log, the same question finds nothing', async () => {
      const answer = await ask({ question: 'Why did the quasargrid plugin fail?' });
      expect(answer.trust_score).toBe(0);
      expect(answer.references).toEqual([]);
    });

    it('answers from the text of a PDF, read by the extraction workers', async () => {
      const answer = await ask({
        question: 'Which offices led the revenue growth?',
        pdf_files: [{ name: 'report.pdf', type: 'application/pdf', data: pdfDataUrl(await reportPdf()) }],
      });
      expect(answer.content).toContain('northern offices');
      expect(answer.references).toContainEqual({ title: 'report.pdf', link: `guru://frob/sessions/${answer.session_id}/attachments/1`, icon: '' });
    });

    it('keeps the attachments for the follow-ups of the session, listed there as inherited', async () => {
      const first = await ask({ question: 'How do I install the frobnicator?', log_files: [{ name: 'crash.log', data: CRASH_LOG }] });
      expect(first.references.map((reference) => reference.title)).toEqual(['Guide']);
      const followUp = await ask({ question: 'Why did the quasargrid plugin fail?', session_id: first.session_id });
      expect(followUp.content).toContain('checksum mismatch');
      expect(followUp.references).toContainEqual({
        title: 'crash.log',
        link: `guru://frob/sessions/${first.session_id}/attachments/1`,
        icon: '',
        inherited: true,
      });
      // A later attachment of the session takes the next number.
      const third = await ask({ question: 'What does the second log say about zorbexian modules?', session_id: first.session_id, log_files: [{ name: 'more.log', data: 'WARN zorbexian modules are deprecated' }] });
      expect(third.references).toContainEqual({ title: 'more.log', link: `guru://frob/sessions/${first.session_id}/attachments/2`, icon: '' });
      // Another session does not see them.
      const elsewhere = await ask({ question: 'Why did the quasargrid plugin fail?' });
      expect(elsewhere.references).toEqual([]);
      // The session's turns keep their references as answered.
      const session = await engine.getSession('frob', first.session_id);
      expect(session.conversation[1]?.references).toEqual(followUp.references);
    });

    it('gives two asks at the same moment in one session, both with files, numbers of their own', async () => {
      const first = await ask({ question: 'How do I install the frobnicator?', log_files: [{ name: 'crash.log', data: CRASH_LOG }] });
      const session_id = first.session_id;
      const [left, right] = await Promise.all([
        ask({ question: 'What does the left log say about zorbexian modules?', session_id, log_files: [{ name: 'left.log', data: 'WARN zorbexian modules are deprecated' }] }),
        ask({ question: 'What does the right log say about plimbic frames?', session_id, log_files: [{ name: 'right.log', data: 'WARN plimbic frames are dropped' }, { name: 'extra.log', data: 'INFO extra' }] }),
      ]);
      const linkOf = (answer: typeof left, title: string) => answer.references.find((reference) => reference.title === title)?.link;
      const links = [linkOf(left, 'left.log'), linkOf(right, 'right.log')];
      expect(links.every((link) => link?.startsWith(`guru://frob/sessions/${session_id}/attachments/`))).toBe(true);
      expect(new Set(links).size).toBe(2);
      expect(links).not.toContain(`guru://frob/sessions/${session_id}/attachments/1`);
      expect(await database.rows('question_attachments')).toBe(4);
      // A later file of the session takes a number none of them has.
      const later = await ask({ question: 'What does the later log say about quibbly sprockets?', session_id, log_files: [{ name: 'later.log', data: 'ERROR quibbly sprockets jammed' }] });
      expect(linkOf(later, 'later.log')).toBe(`guru://frob/sessions/${session_id}/attachments/5`);
    });

    it('takes files of the same name, in one question or in turns of a session, each cited by its own link', async () => {
      const first = await ask({
        question: 'Why did the quasargrid plugin fail?',
        log_files: [
          { name: 'app.log', data: CRASH_LOG },
          { name: 'app.log', data: 'WARN zorbexian modules are deprecated' },
        ],
      });
      expect(first.references).toContainEqual({ title: 'app.log', link: `guru://frob/sessions/${first.session_id}/attachments/1`, icon: '' });
      const again = await ask({ question: 'What about plimbic frames?', session_id: first.session_id, log_files: [{ name: 'app.log', data: 'WARN plimbic frames are dropped' }] });
      expect(again.references).toContainEqual({ title: 'app.log', link: `guru://frob/sessions/${first.session_id}/attachments/3`, icon: '' });
    });

    // SQLite only: an embedded data directory from before migration 12 (PostgreSQL starts after it).
    it.skipIf(store.kind !== 'sqlite')('numbers the files of a session stored before migration 12 after the ones it holds', async () => {
      const old = mkdtempSync(join(tmpdir(), 'guru-attachments-old-'));
      try {
        const db = openDatabase(old, MIGRATIONS.filter((migration) => migration.version <= 11));
        const now = new Date().toISOString();
        const guruId = db.prepare<[string], { id: number }>("INSERT INTO gurus (slug, name, date_created) VALUES ('frob', 'Frobnicator', ?) RETURNING id").get(now)!.id;
        db.prepare("INSERT INTO binges (id, guru_id, date_created, last_used) VALUES ('s-old', ?, ?, ?)").run(guruId, now, now);
        const questionId = db
          .prepare<[number, string, string], { id: number }>(
            `INSERT INTO questions (guru_id, binge_id, slug, user_question, question, content, trust_score, references_json, can_receive_feedback, source, date_created, date_updated)
             VALUES (?, 's-old', 'q-1', 'q', 'q', 'a', 0, '[]', 0, 'API', ?, ?) RETURNING id`,
          )
          .get(guruId, now, now)!.id;
        const insert = db.prepare<[number, number, string]>("INSERT INTO question_attachments (question_id, binge_id, ordinal, kind, name, text, date_created) VALUES (?, 's-old', ?, 'LOG', 'old.log', 'INFO old', ?)");
        insert.run(questionId, 1, now);
        insert.run(questionId, 2, now);
        db.close();

        const upgraded = await LocalEngine.open({ dataDir: old, processQueue: false });
        try {
          const answer = await upgraded.ask('frob', { question: 'What about zorbexian modules?', session_id: 's-old', fetch_existing: false, log_files: [{ name: 'new.log', data: 'WARN zorbexian modules are deprecated' }] });
          expect(answer.references).toContainEqual({ title: 'new.log', link: 'guru://frob/sessions/s-old/attachments/3', icon: '' });
        } finally {
          await upgraded.close();
        }
      } finally {
        rmSync(old, { recursive: true, force: true });
      }
    });

    it("searches, on a follow-up, the session's latest files of each kind, as many as one question may carry", async () => {
      const first = await ask({ question: 'How do I install the frobnicator?', log_files: [{ name: 'old.log', data: 'ERROR alphazorb exploded' }] });
      for (let i = 1; i <= 5; i++) {
        await ask({ question: 'How do I install the frobnicator?', session_id: first.session_id, log_files: [{ name: `new-${i}.log`, data: `ERROR betazorb${i} exploded` }] });
      }
      const latest = await ask({ question: 'Why did betazorb1 explode?', session_id: first.session_id });
      expect(latest.references).toContainEqual(expect.objectContaining({ title: 'new-1.log', inherited: true }));
      const oldest = await ask({ question: 'Why did alphazorb explode?', session_id: first.session_id });
      expect(oldest.references).toEqual([]);
      expect(await database.rows('question_attachments')).toBe(6);
    });

    it('deleting the session removes its attachments from the database file', async () => {
      const answer = await ask({ question: 'Why did the quasargrid plugin fail?', log_files: [{ name: 'crash.log', data: CRASH_LOG }] });
      expect(await database.rows('question_attachments')).toBe(1);
      expect(await storeHolds('quasargrid.wasm')).toBe(true);
      await engine.deleteSession('frob', answer.session_id);
      expect(await database.rows('question_attachments')).toBe(0);
      await engine.close();
      engine = await LocalEngine.open({ dataDir: dir, ...database.settings });
      expect(await storeHolds('quasargrid.wasm')).toBe(false);
    });
  });

  describe("the guru's limits", () => {
    it('skips log files over the size limit and beyond the count, saying how many in the note and first in the stream', async () => {
      const logs = [
        { name: 'huge.log', data: 'x'.repeat(1_000_001) },
        ...Array.from({ length: 6 }, (_, i) => ({ name: `small-${i}.log`, data: `line ${i}` })),
      ];
      let streamed = '';
      const answer = await ask({ question: 'How do I install the frobnicator?', log_files: logs }, (delta) => (streamed += delta));
      const note = 'Skipped 2 log files (this guru takes at most 5 log files of up to 1 MB each).';
      expect(answer.attachment_note).toBe(note);
      expect(streamed).toBe(answer.content);
      expect(answer.content.startsWith(`> ${note}\n\n`)).toBe(true);
      expect(await database.rows('question_attachments')).toBe(5);
      // The answer itself is unchanged below the note.
      expect(answer.references.map((reference) => reference.title)).toEqual(['Guide']);
      // fetch_existing returns the note too.
      const existing = await engine.ask('frob', { question: 'How do I install the frobnicator?', fetch_existing: true, session_id: answer.session_id });
      expect(existing.attachment_note).toBe(note);
    });

    it('takes a log file of exactly the size limit', async () => {
      const answer = await ask({ question: 'How do I install the frobnicator?', log_files: [{ name: 'full.log', data: 'é'.repeat(500_000) }] });
      expect(answer.attachment_note).toBeUndefined();
      expect(await database.rows('question_attachments')).toBe(1);
    });

    it('counts a log file in UTF-8 bytes', async () => {
      const answer = await ask({ question: 'How do I install the frobnicator?', log_files: [{ name: 'over.log', data: 'é'.repeat(500_001) }] });
      expect(answer.attachment_note).toBe('Skipped 1 log file (this guru takes at most 5 log files of up to 1 MB each).');
    });

    it('skips images over the size limit and beyond the count; without a model the rest are noted as not read', async () => {
      const images = [
        { name: 'big.png', type: 'image/png', data: sized('image/png', 5_000_001) },
        { name: 'max.png', type: 'image/png', data: sized('image/png', 5_000_000) },
        ...Array.from({ length: 5 }, (_, i) => ({ name: `shot-${i}.png`, type: 'image/png', data: PNG })),
      ];
      const answer = await ask({ question: 'How do I install the frobnicator?', images });
      expect(answer.attachment_note).toBe(
        'Skipped 2 images (this guru takes at most 5 images of up to 5 MB each). 5 images were not read: no language model that reads images is configured.',
      );
      expect(await database.rows('question_attachments')).toBe(0);
    });

    it('notes one image not read', async () => {
      const answer = await ask({ question: 'How do I install the frobnicator?', images: [{ name: 'shot.png', type: 'image/png', data: PNG }] });
      expect(answer.attachment_note).toBe('1 image was not read: no language model that reads images is configured.');
    });

    it('names both kinds when images and log files are skipped', async () => {
      const answer = await ask({
        question: 'How do I install the frobnicator?',
        images: [{ name: 'big.png', type: 'image/png', data: sized('image/png', 5_000_001) }],
        log_files: [{ name: 'huge.log', data: 'x'.repeat(1_000_001) }],
      });
      expect(answer.attachment_note).toBe(
        'Skipped 1 image (this guru takes at most 5 images of up to 5 MB each) and 1 log file (this guru takes at most 5 log files of up to 1 MB each).',
      );
    });

    it('says a guru takes no files of a kind set to none', async () => {
      await engine.updateGuruSettings('frob', { attachment_limits: { images: { count: 0 } } });
      const answer = await ask({ question: 'How do I install the frobnicator?', images: [{ name: 'a.png', type: 'image/png', data: sized('image/png', 10) }] });
      expect(answer.attachment_note).toBe('Skipped 1 image (this guru takes no images).');
    });

    it("follows the guru's own limits", async () => {
      await engine.updateGuruSettings('frob', { attachment_limits: { log_files: { count: 1, max_bytes: 100 }, pdf_files: { count: 0 } } });
      const answer = await ask({
        question: 'How do I install the frobnicator?',
        log_files: [
          { name: 'a.log', data: 'fits' },
          { name: 'b.log', data: 'fits as well, but one is all this guru takes' },
          { name: 'c.log', data: 'x'.repeat(101) },
        ],
      });
      expect(answer.attachment_note).toBe('Skipped 2 log files (this guru takes at most 1 log file of up to 100 bytes each).');
      await expect(ask({ question: 'q', pdf_files: [{ name: 'a.pdf', type: 'application/pdf', data: pdfDataUrl(await reportPdf()) }] })).rejects.toMatchObject({
        status: 400,
        message: 'This guru takes no PDF files: 1 PDF file was attached. No answer was generated.',
      });
      // With logs turned off, a follow-up searches none of the session's logs, and later files still get numbers of their own.
      await engine.updateGuruSettings('frob', { attachment_limits: { log_files: { count: 0 }, pdf_files: { count: 3 } } });
      const followUp = await ask({ question: 'What does the report say about revenue in the northern offices?', session_id: answer.session_id, pdf_files: [{ name: 'r.pdf', type: 'application/pdf', data: pdfDataUrl(await reportPdf()) }] });
      expect(followUp.references).toContainEqual({ title: 'r.pdf', link: `guru://frob/sessions/${answer.session_id}/attachments/2`, icon: '' });
      expect((await ask({ question: 'What fits?', session_id: answer.session_id })).references).toEqual([]);
    });

    it('refuses more PDFs than the limit with 400 before answering, storing nothing', async () => {
      const pdf = { name: 'report.pdf', type: 'application/pdf', data: pdfDataUrl(await reportPdf()) };
      await expect(ask({ question: 'Which offices led the revenue growth?', pdf_files: [pdf, pdf, pdf, pdf] })).rejects.toMatchObject({
        status: 400,
        field: 'msg',
        message: 'Too many PDF files: 4 attached, this guru takes at most 3 PDF files per question. No answer was generated.',
      });
      expect(await database.rows('questions')).toBe(0);
      expect(await database.rows('question_attachments')).toBe(0);
      expect((await engine.listSessions('frob', { page_num: 1, search_query: '' })).today).toEqual([]);
    });

    it('refuses a PDF over the size limit with 400 naming it, storing nothing', async () => {
      await expect(
        ask({ question: 'What is in it?', pdf_files: [{ name: 'scan.pdf', type: 'application/pdf', data: sized('application/pdf', 10_000_001) }] }),
      ).rejects.toMatchObject({
        status: 400,
        message: "The PDF file scan.pdf is 10,000,001 bytes, over this guru's limit of 10 MB per PDF file. No answer was generated.",
      });
      expect(await database.rows('questions')).toBe(0);
    });

    it('refuses a PDF that is not one, or has no text, with 400', async () => {
      await expect(ask({ question: 'q', pdf_files: [{ name: 'fake.pdf', type: 'application/pdf', data: sized('application/pdf', 100) }] })).rejects.toMatchObject({
        status: 400,
        message: 'The file fake.pdf in pdf_files is not a PDF document.',
      });
      const empty = '%PDF-1.4\n%%EOF\n';
      await expect(
        ask({ question: 'q', pdf_files: [{ name: 'broken.pdf', type: 'application/pdf', data: `data:application/pdf;base64,${Buffer.from(empty).toString('base64')}` }] }),
      ).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/^The PDF file broken\.pdf could not be read: /) });
      expect(await database.rows('questions')).toBe(0);
    });
  });

  describe('the answer-progress line', () => {
    const pdf = (name: string, data: string) => ({ name, type: 'application/pdf', data });
    const progressOf = (user: string) => engine.answerProgress('frob', { external_user_id: user });

    it('says "Reading the attachments…" before the PDFs are read, then the stages of the answer', async () => {
      const stages: string[] = [];
      await engine.ask(
        'frob',
        { question: 'Which offices led the revenue growth?', external_user_id: 'reader', fetch_existing: false, pdf_files: [pdf('report.pdf', pdfDataUrl(await reportPdf()))] },
        { onStage: (line) => stages.push(line) },
      );
      expect(stages).toEqual(['Reading the attachments', 'Searching the knowledge base', 'Writing the answer']);
    });

    it('leaves "Reading the attachments…" as the line of a PDF that could not be read: the stage came before reading it', async () => {
      const broken = `data:application/pdf;base64,${Buffer.from('%PDF-1.4\n%%EOF\n').toString('base64')}`;
      const stages: string[] = [];
      await expect(
        engine.ask('frob', { question: 'q', external_user_id: 'broken', fetch_existing: false, pdf_files: [pdf('broken.pdf', broken)] }, { onStage: (line) => stages.push(line) }),
      ).rejects.toMatchObject({ status: 400 });
      expect(stages).toEqual(['Reading the attachments']);
      expect((await progressOf('broken')).status_text).toBe('Reading the attachments…');
    });

    it('reports no reading for files refused by the limits, nor for images alone', async () => {
      const stages: string[] = [];
      const onStage = (line: string) => stages.push(line);
      const tooMany = Array.from({ length: 4 }, (_, i) => pdf(`${i}.pdf`, pdfDataUrl(Buffer.from('%PDF-1.4'))));
      await expect(engine.ask('frob', { question: 'q', external_user_id: 'limited', fetch_existing: false, pdf_files: tooMany }, { onStage })).rejects.toMatchObject({ status: 400 });
      expect(stages).toEqual([]);
      await engine.ask('frob', { question: 'How do I install the frobnicator?', fetch_existing: false, images: [{ name: 'shot.png', type: 'image/png', data: PNG }] }, { onStage });
      expect(stages).toEqual(['Searching the knowledge base', 'Writing the answer']);
    });
  });

  describe('malformed data URLs', () => {
    it.each([
      // The request's schema refuses what does not even start like a data URL.
      ['no base64 marker', 'data:image/png,abc', 'Images and PDFs must be data URLs: data:<mime>;base64,<payload>'],
      ['no MIME type', 'data:;base64,AAAA', 'Images and PDFs must be data URLs: data:<mime>;base64,<payload>'],
      ['a MIME type without subtype', 'data:image;base64,AAAA', 'images[0] (a.png) is not a data URL: expected data:<mime type>;base64,<base64 data>'],
      ['no data', 'data:image/png;base64,', 'images[0] (a.png) is empty'],
      ['characters outside base64', 'data:image/png;base64,AA*A', 'images[0] (a.png) does not hold valid base64 data (only A-Z, a-z, 0-9, + and /, padded with = to a multiple of 4 characters)'],
      ['missing padding', 'data:image/png;base64,AAA', 'images[0] (a.png) does not hold valid base64 data (only A-Z, a-z, 0-9, + and /, padded with = to a multiple of 4 characters)'],
      ['white space', 'data:image/png;base64,AAAA AAAA', 'images[0] (a.png) does not hold valid base64 data (only A-Z, a-z, 0-9, + and /, padded with = to a multiple of 4 characters)'],
      ['padding inside', 'data:image/png;base64,AA==AAAA', 'images[0] (a.png) does not hold valid base64 data (only A-Z, a-z, 0-9, + and /, padded with = to a multiple of 4 characters)'],
      ['a type that is no image', 'data:text/plain;base64,AAAA', "images[0] (a.png) is not an image: its data URL's type is text/plain"],
    ])('an image with %s -> 400', async (_, data, message) => {
      await expect(ask({ question: 'q', images: [{ name: 'a.png', type: 'image/png', data }] })).rejects.toMatchObject({ status: 400, field: 'msg', message });
      expect(await database.rows('questions')).toBe(0);
    });

    it('names the PDF and its place in the list', async () => {
      await expect(ask({ question: 'q', pdf_files: [{ name: 'x.pdf', type: 'application/pdf', data: 'data:application/pdf;base64,%%%%' }] })).rejects.toMatchObject({
        status: 400,
        message: 'pdf_files[0] (x.pdf) does not hold valid base64 data (only A-Z, a-z, 0-9, + and /, padded with = to a multiple of 4 characters)',
      });
    });

    it('answers or refuses with a message, never crashes, whatever the data URL (fuzzing)', async () => {
      let seed = 7;
      const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
      const alphabet = 'data:image/png;base64,AZaz09+/=;,% \n\u00e9';
      for (let round = 0; round < 200; round++) {
        const length = Math.floor(random() * 40);
        const tail = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
        const data = random() < 0.5 ? `data:image/png;base64,${tail}` : tail;
        const kind = random() < 0.5 ? 'images' : 'pdf_files';
        const file = { name: 'f', type: kind === 'images' ? 'image/png' : 'application/pdf', data };
        try {
          const answer = await ask({ question: 'How do I install the frobnicator?', [kind]: [file] });
          expect(answer.content.length).toBeGreaterThan(0);
        } catch (error) {
          expect(error).toMatchObject({ status: 400, field: 'msg', message: expect.any(String) });
        }
      }
    });
  });
}));
