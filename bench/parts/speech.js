// Part `speech`: the offline voice on a 200-word answer: time to the first MP3 byte and the real-time
// factor (synthesis and encoding time over the audio's duration), through the port, as REST streams it.
import console from 'node:console';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { dist, fixed, median, positiveInt, table } from '../lib/common.js';
import { openLocalBackend } from '../lib/engine.js';

const runs = positiveInt(process.env.GURU_BENCH_SPEECH_RUNS, 5);

/** About 200 words, shaped like an answer: a heading, paragraphs, a list and code. */
const ANSWER = `# Rotating API keys

Each guru has its own API keys, and a key reaches only the guru it was made for. To rotate a key without downtime, create the new key first, deploy it to every client that calls the service, and only then delete the old one. Clients that still send the old key get "Invalid API key" from that moment on, so check your logs for such refusals during the change.

You can create a key from the command line:

\`\`\`sh
guru-mcp key create docs
\`\`\`

The command prints the key once; it is stored only as a hash, so keep it somewhere safe right away. Keys have no expiry date of their own, which means that a rotation schedule is up to you.

- Rotate keys at least every ninety days, and at once when a laptop or a build server is lost.
- Give every client its own key, so that one can be replaced without touching the others.
- Never put keys in command lines, where other users of the machine can read them; use the \`GURU_API_KEY\` variable or the configuration file instead.

When all clients use the new key, the old one can go, and the rotation is complete.`;

async function run() {
  try {
    execFileSync('espeak-ng', ['--version'], { stdio: 'ignore' });
  } catch {
    return { skipped: 'the espeak-ng program is not installed' };
  }
  const { readMp3 } = await dist('core/mp3-frames.js');
  const words = ANSWER.split(/\s+/).filter((word) => /\w/.test(word)).length;
  const dataDir = mkdtempSync(join(tmpdir(), 'guru-bench-speech-'));
  const backend = await openLocalBackend(dataDir, undefined);
  const samples = [];
  try {
    await backend.admin.createGuru({ slug: 'docs' });
    for (let i = 0; i < runs + 1; i++) {
      const started = performance.now();
      const stream = await backend.assistant.textToSpeech('docs', { text: ANSWER });
      let firstByteMs;
      const chunks = [];
      for await (const chunk of stream) {
        firstByteMs ??= performance.now() - started;
        chunks.push(chunk);
      }
      const totalMs = performance.now() - started;
      const audio = readMp3(Buffer.concat(chunks));
      // The first run loads the encoder's WebAssembly; it is reported apart.
      samples.push({ firstByteMs, totalMs, audioSeconds: audio.durationSeconds, bytes: chunks.reduce((sum, chunk) => sum + chunk.length, 0) });
    }
  } finally {
    await backend.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const [cold, ...warm] = samples;
  return {
    words,
    audioSeconds: Number(cold.audioSeconds.toFixed(1)),
    bytes: cold.bytes,
    cold: { firstByteMs: Math.round(cold.firstByteMs), totalMs: Math.round(cold.totalMs) },
    firstByteMs: Math.round(median(warm.map((sample) => sample.firstByteMs))),
    totalMs: Math.round(median(warm.map((sample) => sample.totalMs))),
    realTimeFactor: Number((median(warm.map((sample) => sample.totalMs)) / 1000 / cold.audioSeconds).toFixed(3)),
  };
}

function print(result) {
  console.log(`\nSpeech (offline voice, ${result.words}-word answer, ${result.audioSeconds} s of MP3, ${result.bytes} bytes; median of ${runs} runs):`);
  console.log(
    table(
      ['', 'first byte (ms)', 'whole text (ms)', 'real-time factor'],
      [
        ['first call', String(result.cold.firstByteMs), String(result.cold.totalMs), fixed(result.cold.totalMs / 1000 / result.audioSeconds, 3)],
        ['later calls', String(result.firstByteMs), String(result.totalMs), fixed(result.realTimeFactor, 3)],
      ],
    ),
  );
}

export default { name: 'speech', run, print };
