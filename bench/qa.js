// `node bench/qa.js` (after `npm run build`): question answering on real documentation, scored
// against the answers a reader needs. See bench/qa/benchmark.js for the sets and settings.
import console from 'node:console';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, URL } from 'node:url';
import { printQa, qaSettings, runQaPart } from './qa/benchmark.js';

const settings = qaSettings();
const results = await runQaPart(settings);
printQa(results, settings);
const resultsDir = fileURLToPath(new URL('results', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
const file = join(resultsDir, 'qa-latest.json');
writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), results }, null, 2)}\n`);
console.log(`\nWrote ${file}`);
