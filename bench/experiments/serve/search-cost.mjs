// Where a semantic search's time goes on a guru: the FTS5 match alone, with BM25, with the chunk join, grouped.
import console from 'node:console';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
const db = new Database(process.argv[2], { readonly: true });
const words = process.argv.slice(3).length ? process.argv.slice(3) : ['vacuum', 'table'];
const match = words.map((w) => `"${w}"`).join(' OR ');
const queries = {
  count: 'SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH @match',
  bm25: 'WITH x AS MATERIALIZED (SELECT -bm25(chunks_fts, 2.0, 1.5, 1.0) AS s FROM chunks_fts WHERE chunks_fts MATCH @match) SELECT max(s) FROM x',
  rankLimit: 'SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH @match ORDER BY bm25(chunks_fts, 2.0, 1.5, 1.0) LIMIT 200',
  join: 'SELECT count(*) FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH @match AND c.guru_id = 1',
  joinBm25: 'WITH x AS MATERIALIZED (SELECT -bm25(chunks_fts, 2.0, 1.5, 1.0) AS s FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH @match AND c.guru_id = 1) SELECT max(s) FROM x',
  grouped: `WITH scored AS MATERIALIZED (SELECT c.source_id AS sourceId, -bm25(chunks_fts, 2.0, 1.5, 1.0) AS score FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH @match AND c.guru_id = 1)
    SELECT scored.sourceId, max(scored.score) AS score FROM scored JOIN data_sources s ON s.id = scored.sourceId GROUP BY scored.sourceId ORDER BY score DESC LIMIT 20`,
};
console.log('matches', db.prepare(queries.count).pluck().get({ match }));
for (const [name, sql] of Object.entries(queries)) {
  const statement = db.prepare(sql);
  const times = [];
  for (let i = 0; i < 15; i++) { const t = performance.now(); statement.all({ match }); times.push(performance.now() - t); }
  times.sort((a, b) => a - b);
  console.log(name.padEnd(10), times[7].toFixed(2), 'ms');
}
// Scoring the full query over the rows of the rarest term only.
const rare = `"${process.argv[3] ?? 'vacuum'}"`;
const restricted = {
  inSub: `WITH x AS MATERIALIZED (SELECT rowid AS id, -bm25(chunks_fts, 2.0, 1.5, 1.0) AS s FROM chunks_fts WHERE chunks_fts MATCH @match AND rowid IN (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH @rare)) SELECT count(*), max(s) FROM x`,
  join: `WITH r AS MATERIALIZED (SELECT rowid AS id FROM chunks_fts WHERE chunks_fts MATCH @rare),
    x AS MATERIALIZED (SELECT chunks_fts.rowid AS id, -bm25(chunks_fts, 2.0, 1.5, 1.0) AS s FROM r JOIN chunks_fts ON chunks_fts.rowid = r.id WHERE chunks_fts MATCH @match) SELECT count(*), max(s) FROM x`,
  rareCount: 'SELECT count(*), 0 FROM chunks_fts WHERE chunks_fts MATCH @rare',
};
for (const [name, sql] of Object.entries(restricted)) {
  const statement = db.prepare(sql);
  const times = [];
  let row;
  for (let i = 0; i < 15; i++) { const t = performance.now(); row = statement.raw().get({ match, rare }); times.push(performance.now() - t); }
  times.sort((a, b) => a - b);
  console.log(name.padEnd(10), times[7].toFixed(2), 'ms', row);
}
