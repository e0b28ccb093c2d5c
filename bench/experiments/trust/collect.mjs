// Answers every question of the QA sets with the built answerer over kept bench gurus
// (GURU_BENCH_QA_DATA of an earlier `GURU_BENCH_PARTS=qa` run) and writes, for each answer,
// the signals its trust score was estimated from and whether the benchmark scores it right.
//   node bench/experiments/trust/collect.mjs DATA_DIR [SETS] > rows.json
import { join } from 'node:path';
import process from 'node:process';
import { URL } from 'node:url';
import { readSet } from '../../qa/benchmark.js';
import { scoreAnswer } from '../../qa/score.js';

const dist = (p) => import(new URL(`../../../dist/${p}`, import.meta.url).href);
const { openDatabase } = await dist('engine/store/database.js');
const { Retriever } = await dist('engine/search/retriever.js');
const { Answerer } = await dist('engine/answer/answerer.js');

const [dataRoot, sets = 'sqlite,postgresql,python,git,django,apache'] = process.argv.slice(2);
if (!dataRoot) throw new Error('usage: collect.mjs DATA_DIR [SETS]');
const rows = [];
for (const name of sets.split(',')) {
  const set = readSet(name);
  const db = openDatabase(join(dataRoot, name));
  const guru = db.prepare('SELECT id, name FROM gurus').get();
  const chunks = db.prepare('SELECT count(*) AS n FROM chunks WHERE guru_id = ?').get(guru.id).n;
  const answerer = new Answerer(new Retriever(db), () => chunks);
  const asked = [...set.questions.map((q) => ['on-topic', q]), ...set.offTopic.map((text) => ['off-topic', { question: text, pages: [], terms: [] }])];
  for (const [kind, question] of asked) {
    const draft = answerer.draft({ guruId: guru.id, guruName: guru.name, question: question.question });
    const answer = { content: draft.content, references: draft.references, trust_score: draft.trustScore, can_receive_feedback: draft.answered };
    const scored = scoreAnswer(question, answer, kind, 0);
    rows.push({ set: name, kind, question: question.question, correct: scored.correct, declined: scored.declined, trust: draft.trustScore, signals: draft.signals });
  }
  db.close();
}
process.stdout.write(`${JSON.stringify(rows)}\n`);
