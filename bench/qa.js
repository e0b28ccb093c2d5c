// `node bench/qa.js` (after `npm run build`): the question-answering part of the bench on its own,
// writing bench/results/qa-latest.json with every answer. Sets and settings: bench/qa/benchmark.js.
import console from 'node:console';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './lib/common.js';
import qa from './parts/qa.js';

const result = await qa.run();
qa.print(result);
const resultsDir = join(repoRoot, 'bench', 'results');
mkdirSync(resultsDir, { recursive: true });
const file = join(resultsDir, 'qa-latest.json');
writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), ...result }, null, 2)}\n`);
console.log(`\nWrote ${file}`);
