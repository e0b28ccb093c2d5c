// The full-text indexing of NFCorpus on PostgreSQL alone (issue 30): NFCorpus's chunks written
// straight into a throwaway PostgreSQL's `chunks`, then indexed as the processor does (a
// transaction and an indexSources call per 16 sources), timed, after the tokenizer alone.
// Then the postings INSERT in variants (ORDER BY, how spans are sent, which indexes), each
// writing the same postings into a table of its own. `npm run build` first.
//   node bench/experiments/pg-index/postings.mjs [documents] [rounds]
import console from 'node:console';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { dist } from '../../lib/common.js';
import { startPostgres } from '../../lib/services.js';
import { readCorpus } from '../../parts/nfcorpus.js';

const documents = Number(process.argv[2] ?? Number.POSITIVE_INFINITY);
const rounds = Number(process.argv[3] ?? 3);
const PER_TRANSACTION = 16;
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

const { PostgresSql } = await dist('engine/store/postgres-sql.js');
const { migratePostgres } = await dist('engine/store/postgres-migrations.js');
const { ChunkRepository } = await dist('engine/store/chunks.js');
const { chunkMarkdown } = await dist('engine/ingest/chunker.js');
const { PostgresFullText } = await dist('engine/search/postgres/postgres-full-text.js');
const { Fts5Tokenizer } = await dist('engine/search/postgres/tokenizer.js');
const { COLUMN_WEIGHTS } = await dist('engine/search/full-text.js');

const server = await startPostgres();
const sql = PostgresSql.connect({ url: await server.freshDatabase() });
try {
  await migratePostgres(sql);
  const corpus = readCorpus().slice(0, documents);
  await sql.run("INSERT INTO gurus (id, slug, name, date_created) VALUES (1, 'nf', 'nf', '2026-01-01')");
  const sources = [];
  await sql.transaction(async (tx) => {
    const chunks = new ChunkRepository(tx);
    for (const doc of corpus) {
      const { id } = await tx.get("INSERT INTO data_sources (guru_id, type, name, date_created) VALUES (1, 'TEXT', ?, '2026-01-01') RETURNING id", [doc._id]);
      await chunks.replace(id, 1, doc.title, chunkMarkdown(`# ${doc.title}\n\n${doc.text}`, { title: doc.title }));
      sources.push(id);
    }
  });
  const rows = await sql.all('SELECT id, guru_id, source_id, title, headings, body FROM chunks ORDER BY id');
  console.log(`${corpus.length} sources, ${rows.length} chunks (load ${load()})`);

  // The tokenizer alone, a source at a time.
  const bySource = new Map();
  for (const row of rows) bySource.set(row.source_id, [...(bySource.get(row.source_id) ?? []), row]);
  const tokenizer = new Fts5Tokenizer();
  let started = performance.now();
  const tokensOf = new Map();
  for (const [id, chunks] of bySource) tokensOf.set(id, tokenizer.tokenize(chunks.map((c) => [c.title, c.headings, c.body])));
  console.log(`tokenizer, a source at a time: ${(performance.now() - started).toFixed(0)} ms (again, cached terms: ${timeTokenizer(tokenizer, bySource)} ms)`);
  for (const group of [16, 100, 1000]) {
    started = performance.now();
    const all = [...bySource.values()];
    for (let at = 0; at < all.length; at += group) tokenizer.tokenize(all.slice(at, at + group).flat().map((c) => [c.title, c.headings, c.body]));
    console.log(`tokenizer, ${group} sources at a time: ${(performance.now() - started).toFixed(0)} ms`);
  }

  // Indexing as the processor does.
  for (let round = 0; round < rounds; round += 1) {
    await sql.run('DELETE FROM chunk_index');
    await sql.exec('VACUUM ANALYZE chunk_terms');
    await sql.exec('VACUUM ANALYZE chunk_index');
    started = performance.now();
    for (let at = 0; at < sources.length; at += PER_TRANSACTION) {
      await sql.transaction(async (tx) => {
        await new PostgresFullText(tx).indexSources(sources.slice(at, at + PER_TRANSACTION));
      });
    }
    const [{ n }] = await sql.all('SELECT count(*) AS n FROM chunk_terms');
    console.log(`indexSources, ${PER_TRANSACTION} sources a call and transaction: ${(performance.now() - started).toFixed(0)} ms, ${n} postings (load ${load()})`);
  }

  // The postings INSERT alone, in variants.
  const weights = [COLUMN_WEIGHTS.title, COLUMN_WEIGHTS.headings, COLUMN_WEIGHTS.body];
  const postingsOf = new Map();
  const ids = [...bySource.keys()];
  for (let at = 0; at < ids.length; at += PER_TRANSACTION) {
    const group = ids.slice(at, at + PER_TRANSACTION);
    postingsOf.set(group[0], postings(group.flatMap((id) => bySource.get(id)), group.flatMap((id) => tokensOf.get(id)), weights));
  }
  const variants = {
    'text spans, ORDER BY, 2 indexes': { order: true, spans: 'text', index: true },
    'text spans, no ORDER BY, 2 indexes': { order: false, spans: 'text', index: true },
    'flat spans, no ORDER BY, 2 indexes': { order: false, spans: 'flat', index: true },
    'flat spans, ORDER BY, 2 indexes': { order: true, spans: 'flat', index: true },
    'text spans, ORDER BY, PK only': { order: true, spans: 'text', index: false },
    'flat spans, no ORDER BY, PK only': { order: false, spans: 'flat', index: false },
    'flat spans, ORDER BY, PK only': { order: true, spans: 'flat', index: false },
  };
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, variant] of Object.entries(variants)) {
      await sql.exec(`DROP TABLE IF EXISTS v_terms; CREATE TABLE v_terms (
        term text COLLATE "C" NOT NULL, chunk_id bigint NOT NULL, guru_id bigint NOT NULL, source_id bigint NOT NULL,
        tf double precision NOT NULL, len integer NOT NULL, spans integer[] NOT NULL, PRIMARY KEY (term, chunk_id));
        ${variant.index ? 'CREATE INDEX v_terms_chunk ON v_terms (chunk_id);' : ''}`);
      started = performance.now();
      for (let at = 0; at < sources.length; at += PER_TRANSACTION) {
        await sql.transaction((tx) => insert(tx, postingsOf.get(sources[at]), variant));
      }
      console.log(`${name.padEnd(40)} ${(performance.now() - started).toFixed(0).padStart(6)} ms (load ${load()})`);
    }
  }
} finally {
  await sql.close();
  await server.stop();
}

function timeTokenizer(tokenizer, bySource) {
  const started = performance.now();
  for (const chunks of bySource.values()) tokenizer.tokenize(chunks.map((c) => [c.title, c.headings, c.body]));
  return (performance.now() - started).toFixed(0);
}

function postings(chunks, tokens, weights) {
  const p = { term: [], chunk: [], guru: [], source: [], tf: [], len: [], spans: [], flat: [], counts: [] };
  chunks.forEach((chunk, index) => {
    const len = tokens[index].reduce((sum, column) => sum + column.length, 0);
    const terms = new Map();
    tokens[index].forEach((columnTokens, column) => {
      for (const token of columnTokens) {
        let entry = terms.get(token.term);
        if (!entry) terms.set(token.term, (entry = { tf: 0, spans: [] }));
        entry.tf += weights[column];
        entry.spans.push(column, token.start, token.end);
      }
    });
    for (const [term, { tf, spans }] of terms) {
      p.term.push(term);
      p.chunk.push(chunk.id);
      p.guru.push(chunk.guru_id);
      p.source.push(chunk.source_id);
      p.tf.push(tf);
      p.len.push(len);
      p.spans.push(`{${spans.join(',')}}`);
      p.flat.push(...spans);
      p.counts.push(spans.length);
    }
  });
  return p;
}

async function insert(tx, p, { order, spans }) {
  const orderBy = order ? 'ORDER BY term' : '';
  if (spans === 'text') {
    await tx.run(
      `INSERT INTO v_terms (term, chunk_id, guru_id, source_id, tf, len, spans)
       SELECT term, chunk, guru, source, tf, len, spans::integer[]
       FROM unnest(@term::text[], @chunk::bigint[], @guru::bigint[], @source::bigint[], @tf::float8[], @len::integer[], @spans::text[])
         AS p(term, chunk, guru, source, tf, len, spans) ${orderBy}`,
      { term: p.term, chunk: p.chunk, guru: p.guru, source: p.source, tf: p.tf, len: p.len, spans: p.spans },
    );
  } else {
    // Each row's spans are a slice of one flat integer array: (ends - counts, ends].
    const ends = [];
    let end = 0;
    for (const count of p.counts) ends.push((end += count));
    await tx.run(
      `INSERT INTO v_terms (term, chunk_id, guru_id, source_id, tf, len, spans)
       SELECT term, chunk, guru, source, tf, len, (@flat::integer[])[e - n + 1:e]
       FROM unnest(@term::text[], @chunk::bigint[], @guru::bigint[], @source::bigint[], @tf::float8[], @len::integer[], @ends::integer[], @counts::integer[])
         AS p(term, chunk, guru, source, tf, len, e, n) ${orderBy}`,
      { term: p.term, chunk: p.chunk, guru: p.guru, source: p.source, tf: p.tf, len: p.len, flat: p.flat, ends, counts: p.counts },
    );
  }
}
