/** `guru-mcp speak [<slug>] [TEXT...|-] [-o FILE] [--v2]`: the text read aloud, as MP3, to a file or to stdout. */
import { open, rm } from 'node:fs/promises';
import type { OpenedBackend } from '../../compose.js';
import { withGuru } from '../backend.js';
import { CommandFailure, UsageError } from '../failures.js';
import type { CommandContext, OutputStream } from '../spec.js';
import { readStdin } from '../input.js';
import { commandLine } from '../invocation.js';
import { flag, stringOption } from '../values.js';

export async function run(context: CommandContext): Promise<number> {
  const out = stringOption(context.values, 'out');
  const { stdout } = context.terminal;
  if (out === undefined && stdout.isTTY === true) {
    throw new UsageError(`refusing to write MP3 audio to a terminal: give --out FILE or redirect stdout (${commandLine(context.config, 'speak docs "Hello"')} > hello.mp3)`, 'speak');
  }
  await withGuru(context, async (backend, { slug, args }) => {
    const words = args.join(' ').trim();
    const text = words === '' || words === '-' ? await readStdin(context.terminal, 'Reading the text to speak from stdin; end it with Ctrl-D.') : words;
    const version = flag(context.values, 'v2') ? 2 : 1;
    if (out === undefined) await writeToStream(stdout, speech(backend, slug, text, version));
    else await writeToFile(out, speech(backend, slug, text, version));
  });
  return 0;
}

async function* speech(backend: OpenedBackend, slug: string, text: string, version: 1 | 2): AsyncGenerator<Uint8Array> {
  yield* await backend.assistant.textToSpeech(slug, { text }, { version });
}

/** Streams to stdout, waiting whenever the reader (a player, a pipe) falls behind. */
async function writeToStream(stream: OutputStream, audio: AsyncIterable<Uint8Array>): Promise<void> {
  for await (const chunk of audio) {
    if (stream.write(chunk) === false && hasDrain(stream)) await new Promise<void>((resolve) => stream.once('drain', resolve));
  }
}

const hasDrain = (stream: OutputStream): stream is OutputStream & NodeJS.EventEmitter => typeof (stream as Partial<NodeJS.EventEmitter>).once === 'function';

/** Writes the file as the audio comes; a failure leaves no partial file behind. */
async function writeToFile(path: string, audio: AsyncIterable<Uint8Array>): Promise<void> {
  let file;
  try {
    file = await open(path, 'w');
  } catch (error) {
    throw new CommandFailure(`cannot write ${path}: ${(error as Error).message}`);
  }
  try {
    for await (const chunk of audio) await file.write(chunk);
    await file.close();
  } catch (error) {
    await file.close().catch(() => {});
    await rm(path, { force: true });
    throw error;
  }
}
