/** `guru-mcp ask --attach FILE`: each file placed by its content, then asked with the question. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachmentsOf } from '../../src/cli/attachments.js';
import { run } from '../../src/cli/commands/ask.js';
import { findCommand } from '../../src/cli/registry.js';
import type { CommandContext } from '../../src/cli/spec.js';
import { openBackend } from '../../src/compose.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Answer } from '../../src/core/schemas.js';
import { silentLogger } from '../../src/log.js';
import { startChatCompletionsStandIn, streamOf, type ChatCompletionsStandIn } from '../stand-ins/chat-completions.js';
import { reportPdf } from '../support/documents.js';
import { runCli } from './run-cli.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const file = (name: string, data: Uint8Array | string) => ({ name, data: typeof data === 'string' ? Buffer.from(data) : data });

describe('attachments by content', () => {
  it.each([
    ['image/png', PNG],
    ['image/jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])],
    ['image/gif', Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1')],
    ['image/webp', Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')])],
    ['image/tiff', Buffer.from([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0])],
    ['image/avif', Buffer.concat([Buffer.from([0, 0, 0, 0x1c]), Buffer.from('ftypavif')])],
  ])('takes %s by its magic bytes, whatever the name', (mime, data) => {
    expect(attachmentsOf([file('picture.txt', data)])).toEqual({ images: [{ name: 'picture.txt', type: mime, data: `data:${mime};base64,${data.toString('base64')}` }] });
  });

  it('takes a PDF by its header, and UTF-8 text as a log file', () => {
    const pdf = Buffer.from('%PDF-1.7\n');
    expect(attachmentsOf([file('doc', pdf), file('app.log', 'Grüße\nERROR x')])).toEqual({
      pdf_files: [{ name: 'doc', type: 'application/pdf', data: `data:application/pdf;base64,${pdf.toString('base64')}` }],
      log_files: [{ name: 'app.log', data: 'Grüße\nERROR x' }],
    });
  });

  it.each([
    ['invalid UTF-8', Buffer.from([0x41, 0xc3, 0x28, 0x42])],
    ['NUL bytes', Buffer.from('text\u0000more')],
    ['a ZIP archive', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0xff, 0xfe])],
  ])('refuses a binary file that is no image (%s)', (_, data) => {
    expect(() => attachmentsOf([file('blob.bin', data)])).toThrow(
      'cannot attach blob.bin: it is neither a PDF, an image (PNG, JPEG, GIF, WebP, BMP, TIFF, AVIF) nor UTF-8 text',
    );
  });
});

describe('guru-mcp ask --attach', () => {
  let dir: string;
  let config: Config;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-cli-attach-'));
    config = loadConfig({ env: {}, flags: { dataDir: join(dir, 'data') } });
    const backend = await openBackend(config, silentLogger);
    try {
      await backend.admin!.createGuru({ slug: 'docs' });
    } finally {
      await backend.close();
    }
    writeFileSync(join(dir, 'server.log'), '12:00:01 INFO starting\n12:00:02 FATAL port 7311 is taken by the zorbulator daemon\n');
    writeFileSync(join(dir, 'report.pdf'), await reportPdf());
    writeFileSync(join(dir, 'shot.png'), PNG);
    writeFileSync(join(dir, 'blob.bin'), Buffer.from([0, 1, 2, 0xff]));
    mkdirSync(join(dir, 'folder'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const ask = async (question: string, attach: string[]) => {
    let stdout = '';
    const context: CommandContext = {
      command: findCommand('ask')!,
      args: ['docs', question],
      values: { json: true, attach },
      config,
      logger: silentLogger,
      terminal: {
        stdin: Readable.from([]),
        stdout: new Writable({
          write(chunk: Buffer | string, _encoding, done) {
            stdout += String(chunk);
            done();
          },
        }),
        stderr: new Writable({ write: (_chunk, _encoding, done) => done() }),
      },
      openBackend: () => openBackend(config, silentLogger),
    };
    const code = await run(context);
    return { code, answer: JSON.parse(stdout) as Answer };
  };

  it('sends the files with the question: the log and the PDF are searched and cited, the image noted as not read', async () => {
    const { code, answer } = await ask('Which daemon took port 7311?', [join(dir, 'server.log'), join(dir, 'report.pdf'), join(dir, 'shot.png')]);
    expect(code).toBe(0);
    expect(answer.content).toContain('zorbulator');
    expect(answer.references.map((reference) => reference.title)).toContain('server.log');
    expect(answer.attachment_note).toBe('1 image was not read: no language model that reads images is configured.');
    const pdf = await ask('Which offices led the revenue growth?', [join(dir, 'report.pdf')]);
    expect(pdf.answer.references.map((reference) => reference.title)).toEqual(['report.pdf']);
  });

  it('refuses a file it cannot attach before asking anything', async () => {
    await expect(ask('q', [join(dir, 'blob.bin')])).rejects.toThrow(/^cannot attach blob\.bin: it is neither a PDF/);
    await expect(ask('q', [join(dir, 'missing.log')])).rejects.toThrow(`cannot read ${join(dir, 'missing.log')}: no such file`);
    await expect(ask('q', [join(dir, 'folder')])).rejects.toThrow(`cannot attach ${join(dir, 'folder')}: it is a directory`);
    const backend = await openBackend(config, silentLogger);
    try {
      const sessions = await backend.assistant.listSessions('docs', { page_num: 1, search_query: 'q' });
      expect([...sessions.today, ...sessions.last_week, ...sessions.older].filter((session) => session.root_question_name === 'q')).toEqual([]);
    } finally {
      await backend.close();
    }
  });
});

describe('guru-mcp ask --attach with --llm-images', () => {
  let dir: string;
  let model: ChatCompletionsStandIn;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-cli-images-'));
    model = await startChatCompletionsStandIn({ respond: () => streamOf('It shows a stack trace.') });
    writeFileSync(join(dir, 'shot.png'), PNG);
  });

  afterAll(async () => {
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the image to the model only with the flag; without it the image is noted as not read', async () => {
    const common = ['--attach', join(dir, 'shot.png'), '--json', '--data-dir', join(dir, 'data'), '--llm-url', model.baseUrl, '--llm-model', 'llava'];
    expect((await runCli(['guru', 'create', 'docs', '--data-dir', join(dir, 'data')])).code).toBe(0);

    const read = await runCli(['ask', 'docs', 'What does this error mean?', ...common, '--llm-images']);
    expect(read.code).toBe(0);
    expect((JSON.parse(read.stdout) as Answer).attachment_note).toBeUndefined();
    const answerCall = model.calls.find((call) => Array.isArray(call.body.messages.at(-1)?.content));
    expect(answerCall?.body.messages.at(-1)?.content).toContainEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } });

    const calls = model.calls.length;
    const unread = await runCli(['ask', 'docs', 'What does this error mean?', ...common]);
    expect((JSON.parse(unread.stdout) as Answer).attachment_note).toBe('1 image was not read: no language model that reads images is configured.');
    expect(model.calls.slice(calls).some((call) => Array.isArray(call.body.messages.at(-1)?.content))).toBe(false);
  });
});
