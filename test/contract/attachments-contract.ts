/**
 * Attachments of ask, part of the Assistant contract: assistantContract runs these against the
 * local engine and the remote adapter over REST alike.
 */
import { describe, expect, it } from 'vitest';
import type { Assistant } from '../../src/core/assistant.js';
import { reportPdf } from '../support/documents.js';
import type { CurrentHarness } from './around-answer-contract.js';
import { INSTALL_GUIDE } from './fixtures.js';

const LOG = [
  '10:00:01 INFO frob starting',
  '10:00:02 ERROR frob: the wobblecache lock file is stale; remove /var/lib/frob/wobble.lock and restart',
].join('\n');

const pdfOf = (name: string, bytes: Uint8Array) => ({ name, type: 'application/pdf', data: `data:application/pdf;base64,${Buffer.from(bytes).toString('base64')}` });

export function attachmentsContract(current: CurrentHarness): void {
  const assistant = (): Assistant => current().assistant;

  describe('attachments', () => {
    it('cites a log file by name and keeps it for the follow-ups of the session, there as inherited', async () => {
      await assistant().createDataSources('frob', { text_sources: [{ name: 'Install guide', content: INSTALL_GUIDE }] });
      await current().whenIdle();
      const first = await assistant().ask('frob', {
        fetch_existing: false,
        question: 'What should I do about the stale wobblecache lock file?',
        log_files: [{ name: 'frob.log', data: LOG }],
      });
      expect(first.content).toContain('wobble.lock');
      const link = `guru://frob/sessions/${first.session_id}/attachments/1`;
      expect(first.references).toContainEqual({ title: 'frob.log', link, icon: '' });

      const followUp = await assistant().ask('frob', { fetch_existing: false, question: 'Which wobblecache lock file was stale?', session_id: first.session_id });
      expect(followUp.references).toContainEqual({ title: 'frob.log', link, icon: '', inherited: true });
    });

    it('answers from the text of a PDF', async () => {
      const answer = await assistant().ask('frob', {
        fetch_existing: false,
        question: 'Which offices led the revenue growth?',
        pdf_files: [pdfOf('report.pdf', await reportPdf())],
      });
      expect(answer.content).toContain('northern offices');
      expect(answer.references.map((reference) => reference.title)).toEqual(['report.pdf']);
    });

    it('streams the note on skipped log files first, and the answer carries it', async () => {
      let streamed = '';
      const answer = await assistant().ask(
        'frob',
        { fetch_existing: false, question: 'What does the wobblecache do?', log_files: [{ name: 'huge.log', data: 'x'.repeat(1_000_001) }] },
        { onText: (delta) => (streamed += delta) },
      );
      const note = 'Skipped 1 log file (this guru takes at most 5 log files of up to 1 MB each).';
      expect(answer.attachment_note).toBe(note);
      expect(streamed.startsWith(`> ${note}\n\n`)).toBe(true);
      expect(streamed).toBe(answer.content);
    });

    it('refuses PDFs over the limits with 400 before answering, storing nothing', async () => {
      const pdf = pdfOf('a.pdf', Buffer.from('%PDF-1.4'));
      await expect(assistant().ask('frob', { fetch_existing: false, question: 'What is in them?', pdf_files: [pdf, pdf, pdf, pdf] })).rejects.toMatchObject({
        status: 400,
        message: 'Too many PDF files: 4 attached, this guru takes at most 3 PDF files per question. No answer was generated.',
      });
      expect(await current().storedRows('questions')).toBe(0);
      expect(await current().storedRows('question_attachments')).toBe(0);
    });

    it('refuses a malformed data URL with 400 naming the file', async () => {
      await expect(
        assistant().ask('frob', { fetch_existing: false, question: 'q', images: [{ name: 'shot.png', type: 'image/png', data: 'data:image/png;base64,AAA' }] }),
      ).rejects.toMatchObject({
        status: 400,
        message: 'images[0] (shot.png) does not hold valid base64 data (only A-Z, a-z, 0-9, + and /, padded with = to a multiple of 4 characters)',
      });
    });
  });
}
