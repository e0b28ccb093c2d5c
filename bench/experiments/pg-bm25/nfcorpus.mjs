// What the pg-bm25 scripts share: BEIR NFCorpus (corpus, test judgements, queries parsed as the
// engine parses them), nDCG@10, and a throwaway PostgreSQL from test/support/postgres.ts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { transformSync } from 'esbuild';
import { dist, repoRoot } from '../../lib/common.js';

const dataPath = process.env.GURU_BENCH_DATA ?? join(repoRoot, '..', 'shared', 'bench', 'nfcorpus');
const jsonLines = (path) => readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));

export const corpus = jsonLines(join(dataPath, 'corpus.jsonl'));

/** Test query id → (document id → relevance). */
export const qrels = new Map();
for (const line of readFileSync(join(dataPath, 'qrels-test.tsv'), 'utf8').split('\n').slice(1)) {
  const [q, d, s] = line.replace(/\r$/, '').split('\t');
  if (!d) continue;
  if (!qrels.has(q)) qrels.set(q, new Map());
  qrels.get(q).set(d, Number(s));
}

const allQueries = new Map(jsonLines(join(dataPath, 'queries.jsonl')).map((q) => [q._id, q.text]));
const { parseQuery } = await dist('engine/search/query.js');
/** The judged test queries, with parseQuery's reading of each. */
export const queries = [...qrels.keys()].map((id) => ({ id, text: allQueries.get(id), parsed: parseQuery(allQueries.get(id)) }));

export function ndcgAt10(ranked, judged) {
  let dcg = 0;
  ranked.slice(0, 10).forEach((id, i) => (dcg += (judged.get(id) ?? 0) / Math.log2(i + 2)));
  const ideal = [...judged.values()].sort((a, b) => b - a).slice(0, 10);
  const idcg = ideal.reduce((s, r, i) => s + r / Math.log2(i + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}

/** A throwaway PostgreSQL (test/support/postgres.ts, compiled on the fly); stop() stops it and cleans up. */
export async function throwawayPostgres() {
  const scratch = mkdtempSync(join(tmpdir(), 'guru-pg-bm25-'));
  const supportJs = join(scratch, 'postgres.mjs');
  writeFileSync(supportJs, transformSync(readFileSync(join(repoRoot, 'test/support/postgres.ts'), 'utf8'), { loader: 'ts', format: 'esm', platform: 'node' }).code);
  const { startPostgres } = await import(supportJs);
  const server = await startPostgres();
  return {
    url: server.url,
    stop: async () => {
      await server.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
