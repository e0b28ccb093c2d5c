// The attacking client of the speech-load part, in a process of its own so that it does not share
// an event loop with the client whose searches are timed: node speech-attacker.js JSON_ARGS, with
// { origin, key, streams, text }. It keeps `streams` offline-voice streams in flight, each read as
// fast as it comes, a refused one sent again 250 ms later (a broken one at once), until its stdin closes; then it leaves
// the streams under way and writes its tally as JSON to stdout.
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fetch } from 'undici';

const { AbortController } = globalThis;
const { origin, key, streams, text } = JSON.parse(process.argv[2]);
const tally = { accepted: 0, finished: 0, broken: 0, audioBytes: 0, refused: {} };
const stop = new AbortController();

async function attacker(signal) {
  while (!signal.aborted) {
    try {
      const response = await fetch(`${origin}/api/v1/docs/text-to-speech/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ text }),
        signal,
      });
      if (response.status === 200) {
        tally.accepted++;
        for await (const chunk of response.body) tally.audioBytes += chunk.length;
        tally.finished++;
      } else {
        await response.text();
        tally.refused[response.status] = (tally.refused[response.status] ?? 0) + 1;
        await sleep(250, undefined, { signal });
      }
    } catch {
      // A stream the server cut (one that failed after its first bytes): counted, and sent again.
      if (!signal.aborted) tally.broken++;
    }
  }
}

const attackers = Array.from({ length: streams }, () => attacker(stop.signal));
process.stdin.resume();
process.stdin.on('end', () => stop.abort());
await Promise.all(attackers);
process.stdout.write(JSON.stringify(tally));
