/**
 * Images of a question sent to a language model that reads images (GURU_LLM_IMAGES): as
 * `image_url` parts of the answer call's user message, after its text, on the embedded engine
 * with the model a loopback stand-in of the chat-completions wire format.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AskInput } from '../../../src/core/schemas.js';
import { MODEL_FALLBACK_NOTE } from '../../../src/engine/answer/model/generation.js';
import { createLogger } from '../../../src/log.js';
import { streamOf, type ChatCall, type ContentPart } from '../../stand-ins/chat-completions.js';
import { openModelEngine, stepCalls, systemMessage, userMessage, type ModelEngine } from './model-replies.js';

const INSTALL = 'How do I install Frobnicator?';
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const JPEG = 'data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8U';
const NOT_READ = '1 image was not read: no language model that reads images is configured.';

const image = (name: string, data: string) => ({ name, type: data.slice(5, data.indexOf(';')), data });

/** The content parts of the call's user message; undefined when it is plain text. */
function partsOf(call: ChatCall): readonly ContentPart[] | undefined {
  const content = call.body.messages.find((message) => message.role === 'user')?.content;
  return typeof content === 'string' ? undefined : content;
}

const imageUrls = (call: ChatCall): string[] =>
  (partsOf(call) ?? []).flatMap((part) => (part.type === 'image_url' ? [part.image_url.url] : []));

describe('images in ask, with a model that reads images', () => {
  let opened: ModelEngine;
  afterEach(() => opened.close());

  async function open(readsImages: boolean, log?: string[]): Promise<ModelEngine> {
    opened = await openModelEngine(
      [{ slug: 'frob', name: 'Frobnicator' }],
      { readsImages },
      log && createLogger('warn', (line) => log.push(line)),
    );
    return opened;
  }

  const ask = (input: Partial<AskInput> & { question: string }) => opened.engine.ask('frob', { fetch_existing: false, ...input });

  it('sends the images after the text of the answer call, data URLs intact and in order; the note no longer says "not read"', async () => {
    const { model } = await open(true);
    const answer = await ask({ question: INSTALL, images: [image('first.png', PNG), image('second.jpg', JPEG)] });

    expect(answer.attachment_note).toBeUndefined();
    expect(answer.can_receive_feedback).toBe(true);
    const [call] = stepCalls(model, 'answer');
    const parts = partsOf(call!);
    expect(parts?.map((part) => part.type)).toEqual(['text', 'image_url', 'image_url']);
    expect(imageUrls(call!)).toEqual([PNG, JPEG]);
    expect(userMessage(call!)).toContain(`Question: ${INSTALL}`);
    expect(systemMessage(call!)).toContain('The user attached images');
    // Every other call stays plain text.
    for (const other of model.calls.filter((each) => each !== call)) expect(typeof other.body.messages.at(-1)?.content).toBe('string');
  });

  it('sends only the images within the limits: the note names the skipped one, and no image as not read', async () => {
    const { model, engine } = await open(true);
    await engine.updateGuruSettings('frob', { attachment_limits: { images: { count: 1 } } });
    const answer = await ask({ question: INSTALL, images: [image('first.png', PNG), image('second.jpg', JPEG)] });

    expect(answer.attachment_note).toBe('Skipped 1 image (this guru takes at most 1 image of up to 5 MB each).');
    expect(imageUrls(stepCalls(model, 'answer')[0]!)).toEqual([PNG]);
  });

  it('keeps no image with the session: a follow-up sends none', async () => {
    const { model, dir } = await open(true);
    const first = await ask({ question: INSTALL, images: [image('first.png', PNG)] });
    await ask({ question: 'Where does Frobnicator read its settings from?', session_id: first.session_id });

    const [withImage, followUp] = stepCalls(model, 'answer');
    expect(imageUrls(withImage!)).toEqual([PNG]);
    expect(partsOf(followUp!)).toBeUndefined();
    // Nowhere in the database files (WAL included).
    const payload = PNG.slice(PNG.indexOf(',') + 1);
    const files = readdirSync(dir).filter((name) => name.startsWith('guru.sqlite'));
    expect(files).toContain('guru.sqlite');
    for (const name of files) expect(readFileSync(join(dir, name), 'latin1')).not.toContain(payload);
  });

  it('asks the model even when the knowledge finds nothing: the image may be the question; trust 0, nothing to vote on', async () => {
    const { model, replies } = await open(true);
    replies.answer = () => streamOf('The screenshot shows error E-4242 [1]; the sources do not cover it.');
    const answer = await ask({ question: 'What does this error mean?', images: [image('error.png', PNG)] });

    const [call] = stepCalls(model, 'answer');
    expect(userMessage(call!)).toContain('Sources: none were found.');
    expect(imageUrls(call!)).toEqual([PNG]);
    // The invented citation is dropped: there was no source 1.
    expect(answer.content).toBe('The screenshot shows error E-4242; the sources do not cover it.');
    expect(answer.trust_score).toBe(0);
    expect(answer.references).toEqual([]);
    expect(answer.can_receive_feedback).toBe(false);
    expect(stepCalls(model, 'grade')).toEqual([]);
  });

  it('without GURU_LLM_IMAGES sends no image and notes it as not read; without a question\'s image the model is not asked when nothing is found', async () => {
    const { model } = await open(false);
    const answer = await ask({ question: INSTALL, images: [image('first.png', PNG)] });
    expect(answer.attachment_note).toBe(NOT_READ);
    expect(partsOf(stepCalls(model, 'answer')[0]!)).toBeUndefined();

    const nothing = await ask({ question: 'What does this error mean?', images: [image('error.png', PNG)] });
    expect(nothing.can_receive_feedback).toBe(false);
    expect(stepCalls(model, 'answer')).toHaveLength(1);
  });

  it("sends no image for a guru that does not use the model, and notes it as not read for that reason", async () => {
    const { model, engine } = await open(true);
    await engine.updateGuruSettings('frob', { use_model: false });
    const answer = await ask({ question: INSTALL, images: [image('first.png', PNG), image('second.jpg', JPEG)] });
    expect(answer.attachment_note).toBe("2 images were not read: this guru's answers do not use the language model (its use_model setting is off).");
    expect(model.calls).toEqual([]);
  });

  it('falls back to the extractive answer when the model refuses images (400), and the log says to turn GURU_LLM_IMAGES off', async () => {
    const log: string[] = [];
    const { replies } = await open(true, log);
    replies.answer = () => ({
      kind: 'status',
      status: 400,
      body: { error: { message: 'Invalid content type. image_url is only supported by certain models.', type: 'invalid_request_error' } },
    });
    const answer = await ask({ question: INSTALL, images: [image('first.png', PNG)] });

    expect(answer.content.startsWith(MODEL_FALLBACK_NOTE)).toBe(true);
    expect(answer.content).toContain('npm install -g frobnicator');
    expect(answer.can_receive_feedback).toBe(true);
    const warning = log.find((line) => line.includes('language model failed'));
    expect(warning).toContain('answered 400');
    expect(warning).toContain('turn GURU_LLM_IMAGES off');
  });
});
