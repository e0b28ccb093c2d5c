// Part `evidence`: evidence recall over MCP (ask and semantic_search at several evidence_tokens
// budgets) beside the plain concatenation of the index's BM25 top chunks, on the QA sets
// (GURU_BENCH_QA_SETS, GURU_BENCH_QA_DATA as for `qa`); see bench/qa/evidence.js.
import { printEvidence, runEvidencePart } from '../qa/evidence.js';

/** @type {import('../lib/part.js').BenchPart} */
export default {
  name: 'evidence',
  run: async () => ({ sets: await runEvidencePart() }),
  print: (result) => printEvidence(result.sets),
};
