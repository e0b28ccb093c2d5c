// The real writer thread (dist/bin/writer-thread.js) that dies as soon as it has opened the
// database and said it is ready, every time: a thread with a bug that no restart mends.
import process from 'node:process';
import { setImmediate } from 'node:timers';
import { URL } from 'node:url';

await import(new URL('../../dist/bin/writer-thread.js', import.meta.url).href);
setImmediate(() => process.exit(70));
