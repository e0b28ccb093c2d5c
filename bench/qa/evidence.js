// Evidence recall on the QA sets: the share of on-topic questions whose required terms (each set's
// `terms`) all appear in what a model gets back over MCP, at several budgets of evidence_tokens:
//   ask     every text content of the `ask` tool (the answer, its references and the passages)
//   search  every text content of `semantic_search` (titles, links and each source's excerpt)
//   bm25    beside them, in the same run: the index's BM25 top chunks (raw FTS5 over the chunks
//           table, ordered by bm25(); the question's words as the engine's query parser makes them),
//           each as "title › headings" and body, simply concatenated and cut at the budget.
// Tokens are estimated as characters / 4 (src/core/evidence.ts) for all three. The budget bounds the
// passages; ask's answer and references and search's titles come on top (the mean size of what is
// returned is reported beside).
//
// The MCP client is the SDK's, connected in-process to the stdio serving of the built server
// (dist/) over the engine. Each set is ingested as the `qa` part does (GURU_BENCH_QA_DATA keeps it).
import console from 'node:console';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import Database from 'better-sqlite3';
import { dist } from '../lib/common.js';
import { openLocalBackend } from '../lib/engine.js';
import { ensureDebianPackage } from '../lib/manual-site.js';
import { ingest, qaSettings, readSet } from './benchmark.js';
import { missingTerms } from './score.js';

export const BUDGETS = (process.env.GURU_BENCH_EVIDENCE_BUDGETS ?? '500,1000,1500,3000').split(',').map(Number);
/** The BM25 chunks concatenated: more than any budget takes. */
const BM25_CHUNKS = 100;
const estimateTokens = (text) => Math.ceil(text.length / 4);

const textOf = (result) =>
  result.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');

/** The BM25 top chunks of the guru for the question, concatenated and cut at `budget` tokens. */
function bm25Concatenation(db, guruId, match, budget) {
  if (match === undefined) return '';
  const rows = db
    .prepare(
      `SELECT c.title, c.headings, c.body FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
        WHERE chunks_fts MATCH ? AND c.guru_id = ? ORDER BY bm25(chunks_fts) LIMIT ?`,
    )
    .all(match, guruId, BM25_CHUNKS);
  const text = rows.map((row) => `${[row.title, row.headings].filter(Boolean).join(' › ')}\n\n${row.body}`).join('\n\n');
  return text.slice(0, budget * 4);
}

/** Recall per budget for one set. */
export async function runEvidenceSet(name, settings = qaSettings()) {
  const set = readSet(name);
  const missing = ensureDebianPackage(set.package, set.dir);
  if (missing !== undefined) return { set: name, skipped: missing };
  const dataDir = settings.keepDir ? join(settings.keepDir, name) : mkdtempSync(join(tmpdir(), `guru-bench-evidence-${name}-`));
  mkdirSync(dataDir, { recursive: true });
  const backend = await openLocalBackend(dataDir);
  const { serveConnection } = await dist('mcp/stdio.js');
  const { silentLogger } = await dist('log.js');
  const { parseQuery } = await dist('engine/search/query.js');
  const client = new Client({ name: 'guru-bench-evidence', version: '1.0.0' });
  const db = new Database(join(dataDir, 'guru.sqlite'), { readonly: true, fileMustExist: false });
  try {
    await ingest(backend, set, name, dataDir);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    serveConnection({ backend, logger: silentLogger }, serverSide);
    await client.connect(clientSide);
    await client.listTools();
    const guruId = db.prepare('SELECT id FROM gurus WHERE slug = ?').get(name).id;
    const kinds = ['ask', 'search', 'bm25'];
    const held = Object.fromEntries(kinds.map((kind) => [kind, BUDGETS.map(() => 0)]));
    const returned = Object.fromEntries(kinds.map((kind) => [kind, BUDGETS.map(() => 0)]));
    const misses = [];
    for (const question of set.questions) {
      for (const [b, budget] of BUDGETS.entries()) {
        const texts = {
          ask: textOf(await client.callTool({ name: 'ask', arguments: { question: question.question, guru_slug: name, evidence_tokens: budget } })),
          search: textOf(await client.callTool({ name: 'semantic_search', arguments: { question: question.question, guru_slug: name, evidence_tokens: budget } })),
          bm25: bm25Concatenation(db, guruId, parseQuery(question.question).match, budget),
        };
        for (const kind of kinds) {
          returned[kind][b] += estimateTokens(texts[kind]);
          const lacking = missingTerms(texts[kind], question.terms);
          if (lacking.length === 0) held[kind][b] += 1;
          else if (kind === 'ask' && settings.verbose) misses.push(`${budget}: ${question.question} lacks ${lacking.join(', ')}`);
        }
      }
    }
    const n = set.questions.length;
    const share = (counts) => counts.map((count) => count / n);
    const mean = (sums) => sums.map((sum) => Math.round(sum / n));
    if (settings.verbose) for (const line of misses) console.log(`  ${line}`);
    return {
      set: name,
      name: set.name,
      heldOut: set.heldOut === true,
      questions: n,
      budgets: BUDGETS,
      recall: { ask: share(held.ask), search: share(held.search), bm25: share(held.bm25) },
      meanTokensReturned: { ask: mean(returned.ask), search: mean(returned.search), bm25: mean(returned.bm25) },
    };
  } finally {
    await client.close();
    db.close();
    await backend.close();
    if (!settings.keepDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function runEvidencePart(settings = qaSettings()) {
  const results = [];
  for (const name of settings.sets) {
    console.log(`Evidence recall on the ${name} set...`);
    results.push(await runEvidenceSet(name, settings));
  }
  return results;
}

const pad = (text, width) => String(text).padStart(width);

export function printEvidence(results) {
  for (const result of results) {
    if (result.skipped) {
      console.log(`${result.set}: skipped (${result.skipped})`);
      continue;
    }
    console.log(`${result.name}${result.heldOut ? ' (held out)' : ''}: evidence recall of ${result.questions} on-topic questions (mean tokens returned)`);
    console.log(`  ${'budget'.padEnd(8)}${['ask', 'search', 'bm25 concat'].map((kind) => pad(kind, 18)).join('')}`);
    for (const [b, budget] of result.budgets.entries()) {
      const cell = (kind) => pad(`${result.recall[kind][b].toFixed(2)} (${result.meanTokensReturned[kind][b]})`, 18);
      console.log(`  ${String(budget).padEnd(8)}${cell('ask')}${cell('search')}${cell('bm25')}`);
    }
  }
}
