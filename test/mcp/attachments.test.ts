/** The ask tool's attachments: the same fields, limits and note as REST, through the real SDK client. */
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { ERAS, INSTALL_GUIDE, connectClient, openTestBackend, textOf } from './support.js';
import type { TestBackend } from './support.js';
import { answerOf } from '../support/mcp-answer.js';

const LOG = 'ERROR frob: the wobblecache lock file is stale; remove /var/lib/frob/wobble.lock and restart';

describe.each(ERAS)('ask with attachments over MCP (%s)', (era) => {
  let test: TestBackend;
  let client: Client;

  beforeEach(async () => {
    test = await openTestBackend();
    await test.backend.admin!.createGuru({ slug: 'frob', name: 'Frobnicator' });
    await test.backend.assistant.createDataSources('frob', { text_sources: [{ name: 'Install guide', content: INSTALL_GUIDE }] });
    client = await connectClient({ backend: test.backend, logger: silentLogger }, era);
  });

  afterEach(async () => {
    await client.close();
    await test.close();
  });

  const ask = async (args: Record<string, unknown>) => (await client.callTool({ name: 'ask', arguments: args })) as CallToolResult;

  it('answers from a log file and cites it; a follow-up lists it as inherited', async () => {
    const result = await ask({ question: 'What should I do about the stale wobblecache lock file?', log_files: [{ name: 'frob.log', data: LOG }] });
    expect(result.isError, textOf(result)).toBeFalsy();
    const answer = answerOf(result);
    expect(answer.content).toContain('wobble.lock');
    expect(answer.references).toContainEqual({ title: 'frob.log', link: `guru://frob/sessions/${answer.session_id}/attachments/1`, icon: '' });

    const followUp = answerOf(await ask({ question: 'Which wobblecache lock file was stale?', session_id: answer.session_id }));
    expect(followUp.references).toContainEqual(expect.objectContaining({ title: 'frob.log', inherited: true }));
  });

  it('says which attachments were skipped, in attachment_note and first in the text', async () => {
    const logs = Array.from({ length: 6 }, (_, i) => ({ name: `${i}.log`, data: `line ${i}` }));
    const result = await ask({ question: 'How do I install Frobnicator?', log_files: logs });
    const answer = answerOf(result);
    expect(answer.attachment_note).toBe('Skipped 1 log file (this guru takes at most 5 log files of up to 1 MB each).');
    expect(textOf(result).startsWith(`> ${answer.attachment_note}`)).toBe(true);
  });

  it("refuses PDFs over the guru's limits with the REST API's message", async () => {
    const pdf = { name: 'a.pdf', type: 'application/pdf', data: `data:application/pdf;base64,${Buffer.from('%PDF-1.4').toString('base64')}` };
    const result = await ask({ question: 'What is in them?', pdf_files: [pdf, pdf, pdf, pdf] });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Too many PDF files: 4 attached, this guru takes at most 3 PDF files per question\. No answer was generated\./);
  });
});
