/**
 * guru://{guru_slug}/sessions/{session_id}/attachments/{n}, the link of an answer's reference to an
 * attachment, read with the SDK client in both protocol eras over a real engine.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Answer } from '../../src/core/schemas.js';
import { silentLogger } from '../../src/log.js';
import { reportPdf } from '../support/documents.js';
import { ERAS, INSTALL_GUIDE, connectClient, expectNotFound, openTestBackend } from './support.js';
import type { TestBackend } from './support.js';

const CRASH_LOG = 'INFO starting\nERROR plugin quasargrid failed: checksum mismatch\n';

describe.each(ERAS)('attachment resources (%s)', (era) => {
  let test: TestBackend;
  let client: Client;
  let answer: Answer;

  beforeEach(async () => {
    test = await openTestBackend();
    await test.backend.admin!.createGuru({ slug: 'frob', name: 'Frobnicator' });
    await test.backend.admin!.createGuru({ slug: 'pancakes' });
    await test.backend.assistant.createDataSources('frob', { text_sources: [{ name: 'Install guide', content: INSTALL_GUIDE }] });
    const pdf = `data:application/pdf;base64,${Buffer.from(await reportPdf()).toString('base64')}`;
    answer = await test.backend.assistant.ask('frob', {
      question: 'Why did the quasargrid plugin fail?',
      fetch_existing: false,
      log_files: [{ name: 'crash.log', data: CRASH_LOG }],
      pdf_files: [{ name: 'report.pdf', type: 'application/pdf', data: pdf }],
    });
    client = await connectClient({ backend: test.backend, logger: silentLogger }, era);
  });

  afterEach(async () => {
    await client.close();
    await test.close();
  });

  const uriOf = (n: number | string, guru = 'frob', session = answer.session_id) => `guru://${guru}/sessions/${session}/attachments/${n}`;


  it("resolves the link of the answer's reference to a log file: its text as sent, its name and text/plain", async () => {
    const link = answer.references.find((reference) => reference.title === 'crash.log')?.link;
    expect(link).toBe(uriOf(1));
    const { contents } = await client.readResource({ uri: link! });
    expect(contents).toEqual([{ uri: link, mimeType: 'text/plain', text: CRASH_LOG, _meta: { name: 'crash.log' } }]);
  });

  it("resolves a PDF's link to the Markdown extracted from it", async () => {
    const { contents } = await client.readResource({ uri: uriOf(2) });
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri: uriOf(2), mimeType: 'text/markdown', _meta: { name: 'report.pdf' } });
    expect((contents[0] as { text: string }).text).toContain('northern offices');
  });

  it('offers the template, completing the guru', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toContain('guru://{guru_slug}/sessions/{session_id}/attachments/{n}');
    const completion = await client.complete({
      ref: { type: 'ref/resource', uri: 'guru://{guru_slug}/sessions/{session_id}/attachments/{n}' },
      argument: { name: 'guru_slug', value: 'pan' },
    });
    expect(completion.completion.values).toEqual(['pancakes']);
  });

  it('finds no attachment of another number, guru or session, nor a number written otherwise', async () => {
    for (const uri of [uriOf(3), uriOf(0), uriOf('01'), uriOf('-1'), uriOf('one'), uriOf(1, 'pancakes'), uriOf(1, 'nope'), uriOf(1, 'frob', 'no-such-session'), uriOf(1, 'frob', '%E0%A4%A')]) {
      await expectNotFound(client, uri);
    }
  });

  it('finds none once the session is deleted', async () => {
    await test.backend.assistant.deleteSession('frob', answer.session_id);
    await expectNotFound(client, uriOf(1));
  });
});
