// Times the under-load part's requests in process, against a data directory that holds a guru
// with the PostgreSQL manual (e.g. a copy of a kept QA guru): semantic search and answer, per question.
import console from 'node:console';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { openLocalBackend } from '../../lib/engine.js';

const [dataDir, slug = 'postgresql', rounds = '5'] = process.argv.slice(2);
const QUESTIONS = [
  'CREATE INDEX CONCURRENTLY', 'How do I vacuum a table?', 'pg_dump custom archive format', 'window functions',
  'What does work_mem control?', 'jsonb containment operator', 'How do I create a role that can log in?',
  'point in time recovery', 'logical replication subscription', 'How are deadlocks detected?',
  'partitioned table attach partition', 'What is a TOAST table?',
];
const backend = await openLocalBackend(dataDir);
const { assistant } = backend;
const times = { search: new Map(), answer: new Map() };
for (let round = 0; round < Number(rounds); round++) {
  for (const question of QUESTIONS) {
    let t = performance.now();
    await assistant.semanticSearch(slug, { question });
    if (round > 0) (times.search.get(question) ?? times.search.set(question, []).get(question)).push(performance.now() - t);
    t = performance.now();
    await assistant.ask(slug, { question, fetch_existing: false });
    if (round > 0) (times.answer.get(question) ?? times.answer.set(question, []).get(question)).push(performance.now() - t);
  }
}
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const question of QUESTIONS) {
  console.log(question.padEnd(40), 'search', median(times.search.get(question)).toFixed(1).padStart(6), 'answer', median(times.answer.get(question)).toFixed(1).padStart(6));
}
await backend.close();
