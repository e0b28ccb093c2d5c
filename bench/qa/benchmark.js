// Question answering on real documentation: each set (bench/qa/<set>.json) names a Debian package
// holding an HTML manual (optionally the language of the pages to take from it and pages to leave
// out), questions in a user's words with the pages that answer them and the terms a right answer
// must contain, and questions off the manual's topic. The manual is served
// on 127.0.0.1 and added to a fresh guru as website sources; every question is asked once through
// the Assistant port without a language model, and the answers are scored (see score.js).
//
// Settings (environment):
//   GURU_BENCH_QA_SETS     comma list of sets (default: sqlite,postgresql,python,git,django,apache,node,pytest,sphinx)
//   GURU_BENCH_QA_DATA     a folder to keep each set's ingested guru in (<folder>/<set>) and reuse
//                          on the next run, so that answering can be tried again without ingesting
//                          (default: a temporary folder, removed afterwards)
//   GURU_BENCH_QA_VERBOSE  1: print every answer's verdict
//   GURU_BENCH_QA_STORES   comma list of stores each set is ingested into and asked on: sqlite (the
//                          embedded default), postgres (a throwaway PostgreSQL 15 on 127.0.0.1,
//                          bench/lib/services.js, a fresh database per set; skipped with a note
//                          without Debian's postgresql-15). With both, the figures are printed side by
//                          side with every question whose answer differs (default: sqlite).
//                          GURU_BENCH_QA_DATA keeps the SQLite gurus only: the PostgreSQL server goes
//                          with its data at the end of the run
import console from 'node:console';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';
import { batchSize, isOn } from '../lib/common.js';
import { openLocalBackend, waitUntilProcessed } from '../lib/engine.js';
import { ensureDebianPackage, serveFolder } from '../lib/manual-site.js';
import { missingPostgres, startPostgres } from '../lib/services.js';
import { GOALS, missingTerms, scoreAnswer, summarize } from './score.js';

const setsDir = fileURLToPath(new URL('.', import.meta.url));

/**
 * The sets the trust estimate (src/engine/answer/trust.ts) was fitted to: on them its ranking of
 * answers is measured in-sample. bench/experiments/trust/NOTES.md gives each one's figure from a
 * fit that left it out.
 */
const TRUST_FITTED_ON = new Set(['sqlite', 'postgresql', 'python', 'git', 'django', 'apache']);

/**
 * @typedef {import('./score.js').OnTopicQuestion} OnTopicQuestion
 * @typedef {{
 *   name: string, package: string, dir: string, language?: string, leaveOut?: string[], heldOut?: boolean, note?: string,
 *   questions: OnTopicQuestion[], offTopic: string[]
 * }} QuestionSet
 */

/** The stores a set can be answered on, by their GURU_BENCH_QA_STORES names. */
const STORE_NAMES = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

const list = (value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** GURU_BENCH_QA_STORES, checked. */
function qaStores() {
  const stores = list(process.env.GURU_BENCH_QA_STORES ?? 'sqlite');
  const unknown = stores.filter((store) => !(store in STORE_NAMES));
  if (unknown.length > 0) throw new Error(`GURU_BENCH_QA_STORES: unknown store ${unknown.join(', ')}; known: ${Object.keys(STORE_NAMES).join(', ')}`);
  return [...new Set(stores)];
}

export const qaSettings = () => ({
  sets: list(process.env.GURU_BENCH_QA_SETS ?? 'sqlite,postgresql,python,git,django,apache,node,pytest,sphinx'),
  stores: qaStores(),
  keepDir: process.env.GURU_BENCH_QA_DATA ? resolve(process.env.GURU_BENCH_QA_DATA) : undefined,
  verbose: isOn(process.env.GURU_BENCH_QA_VERBOSE),
});

/** @returns {QuestionSet} */
export function readSet(name) {
  return JSON.parse(readFileSync(join(setsDir, `${name}.json`), 'utf8'));
}

/** The language a page declares on its root element (`<html lang="pt-br">`), lower-cased, if any. */
const declaredLanguage = (html) => /<html\b[^>]*\slang="([^"]*)"/i.exec(html)?.[1].toLowerCase();

/**
 * Whether a page belongs to the set: with a `language`, a page that declares another one is left
 * out (Debian's apache2-doc has a few Portuguese pages among its English ones).
 */
const inLanguage = (file, language) => {
  if (language === undefined) return true;
  const declared = declaredLanguage(readFileSync(file, 'utf8'));
  return declared === undefined || declared === language || declared.startsWith(`${language}-`);
};

/**
 * Every HTML page below the set's folder (in its language, when given), as paths relative to it,
 * but for the pages it leaves out (Node.js's all.html repeats every other page in one).
 */
function htmlPages(set) {
  const leaveOut = new Set(set.leaveOut ?? []);
  return readdirSync(set.dir, { recursive: true })
    .map(String)
    .filter((path) => path.endsWith('.html') && !leaveOut.has(path.split(sep).join('/')) && inLanguage(join(set.dir, path), set.language))
    .sort();
}

const pageText = (html) =>
  html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    // Highlighted code is a run of <span>s, one a token: a browser shows `admin.site.register(`, not `admin . site . register (`.
    .replace(/<\/?span\b[^>]*>/gi, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&nbsp;|&#160;/g, ' ')
    .replace(/&amp;/g, '&');

/**
 * Mistakes in the question file itself: a page that does not exist, is left out or is not in the
 * set's language, a required term that none of the question's pages contains (then no answer quoted
 * from them could be right).
 */
export function checkSet(set) {
  const problems = [];
  for (const question of set.questions) {
    const texts = [];
    for (const page of question.pages) {
      const file = join(set.dir, page);
      if (!existsSync(file)) problems.push(`${question.question}: page ${page} does not exist`);
      else if (set.leaveOut?.includes(page)) problems.push(`${question.question}: page ${page} is left out of the set`);
      else if (!inLanguage(file, set.language)) problems.push(`${question.question}: page ${page} is not in ${set.language}`);
      else texts.push(pageText(readFileSync(file, 'utf8')));
    }
    const missing = missingTerms(texts.join('\n'), question.terms);
    if (missing.length > 0) problems.push(`${question.question}: no listed page contains ${missing.join(', ')}`);
  }
  return problems;
}

/** Adds the set's pages to a new guru unless the kept data directory already holds them. Returns seconds spent. */
export async function ingest(backend, set, slug, dir) {
  const { assistant, admin } = backend;
  const gurus = await admin.listGurus?.();
  if (gurus?.some((guru) => guru.slug === slug)) return 0;
  await admin.createGuru({ slug, name: set.name });
  const root = resolve(set.dir);
  const site = await serveFolder(root);
  try {
    const urls = htmlPages({ ...set, dir: root }).map((page) => `${site.origin}/${page.split(sep).join('/')}`);
    console.log(`  ingesting ${urls.length} pages of ${set.name} from ${site.origin} into ${dir}...`);
    const started = performance.now();
    for (let offset = 0; offset < urls.length; offset += batchSize) {
      await assistant.createDataSources(slug, { website_urls: urls.slice(offset, offset + batchSize) });
    }
    await waitUntilProcessed(assistant, slug);
    return (performance.now() - started) / 1000;
  } finally {
    await site.close();
  }
}

async function ask(assistant, slug, question) {
  const started = performance.now();
  const answer = await assistant.ask(slug, { question });
  return { answer, ms: performance.now() - started };
}

/**
 * Ingests one set and asks all its questions, on SQLite, or on PostgreSQL when `postgres` (a server
 * of lib/services.js's startPostgres) is given: then in a fresh database of its own.
 */
export async function runQaSet(name, settings = qaSettings(), postgres = undefined) {
  const store = postgres === undefined ? 'sqlite' : 'postgres';
  const set = readSet(name);
  const missing = ensureDebianPackage(set.package, set.dir);
  if (missing !== undefined) return { set: name, store, skipped: missing };
  const problems = checkSet(set);
  if (problems.length > 0) throw new Error(`bench/qa/${name}.json:\n  ${problems.join('\n  ')}`);

  const kept = settings.keepDir !== undefined && postgres === undefined;
  const dataDir = kept ? join(settings.keepDir, name) : mkdtempSync(join(tmpdir(), `guru-bench-qa-${name}-`));
  mkdirSync(dataDir, { recursive: true });
  const backend = await openLocalBackend(dataDir, undefined, await postgres?.freshDatabase());
  try {
    const slug = name;
    const ingestSeconds = await ingest(backend, set, slug, dataDir);
    const scored = [];
    const answers = [];
    for (const question of set.questions) {
      const { answer, ms } = await ask(backend.assistant, slug, question.question);
      scored.push(scoreAnswer(question, answer, 'on-topic', ms));
      answers.push({ question: question.question, content: answer.content, trust: answer.trust_score });
    }
    for (const text of set.offTopic) {
      const { answer, ms } = await ask(backend.assistant, slug, text);
      scored.push(scoreAnswer({ question: text, pages: [], terms: [] }, answer, 'off-topic', ms));
      answers.push({ question: text, content: answer.content, trust: answer.trust_score });
    }
    return { set: name, store, name: set.name, heldOut: set.heldOut === true, pages: htmlPages(set).length, ingestSeconds, summary: summarize(scored), scored, answers };
  } finally {
    await backend.close();
    if (!kept) rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The `qa` part of `npm run bench`: each set on each store, one after the other. */
export async function runQaPart(settings = qaSettings()) {
  const results = [];
  const unavailable = settings.stores.includes('postgres') ? missingPostgres() : undefined;
  const postgres = settings.stores.includes('postgres') && unavailable === undefined ? await startPostgres() : undefined;
  try {
    for (const name of settings.sets) {
      for (const store of settings.stores) {
        console.log(`Question answering on the ${name} set${settings.stores.length > 1 ? ` (${STORE_NAMES[store]})` : ''}...`);
        if (store === 'postgres' && postgres === undefined) results.push({ set: name, store, skipped: unavailable });
        else results.push(await runQaSet(name, settings, store === 'postgres' ? postgres : undefined));
      }
    }
  } finally {
    await postgres?.stop();
  }
  return results;
}

const percent = (share) => `${(share * 100).toFixed(1)} %`;

export function printQa(results, settings = qaSettings()) {
  const severalStores = new Set(results.map((result) => result.store ?? 'sqlite')).size > 1;
  const onStore = (result) => (severalStores ? ` on ${STORE_NAMES[result.store ?? 'sqlite']}` : '');
  for (const result of results) {
    if (result.skipped) {
      console.log(`\nNote: ${result.skipped}; skipping the ${result.set} question set${onStore(result)}.`);
      continue;
    }
    const s = result.summary;
    if (settings.verbose) {
      console.log(`\n${result.name}: every answer`);
      for (const q of result.scored) {
        const verdict = q.correct ? 'ok  ' : 'MISS';
        const detail = q.kind === 'off-topic' ? (q.declined ? 'declined' : `answered from ${q.cited.join(', ')}`) : q.declined ? 'declined' : `missing [${q.missingTerms.join('; ')}] cited ${q.cited.join(', ')}`;
        const flags = [q.rightPage || q.kind === 'off-topic' ? '' : 'wrong-page', q.fencesClosed ? '' : 'UNCLOSED-FENCE', q.danglingLeadIns.length > 0 ? 'DANGLING-LEAD-IN' : ''].filter(Boolean);
        console.log(`  ${verdict} trust ${String(q.trust).padStart(3)} ${String(q.words).padStart(4)} w  ${q.question}  — ${q.correct && q.kind === 'on-topic' ? `cited ${q.cited.join(', ')}` : detail} ${flags.join(' ')}`);
      }
    }
    const held = result.heldOut ? ' (held out: no answer rule tuned on it)' : '';
    console.log(`\n${result.name}${onStore(result)}${held}: ${s.questions} questions, ${s.offTopic} off-topic, ${result.pages} pages${result.ingestSeconds > 0 ? `, ingested in ${result.ingestSeconds.toFixed(1)} s` : ''}`);
    const rows = [
      ['correct', percent(s.correct), `(${s.declinedOnTopic} declined)`],
      ['right page cited', percent(s.rightPage), ''],
      ['on-topic declined', `${s.declinedOnTopic} of ${s.questions}`, ''],
      ['"covers this only in part" openings', `${s.partialOpenings} of ${s.answered}`, `(of the ${s.answeredRight} right answers: ${s.partialOpeningsRight})`],
      ['confidently wrong (trust ≥ 70, wrong)', percent(s.confidentlyWrong), ''],
      ['off-topic declined', `${s.offTopicDeclined} of ${s.offTopic}`, ''],
      ['median words', String(s.medianWords), ''],
      ['unclosed fences / dangling lead-ins', `${s.unclosedFences} / ${s.danglingLeadIns}`, ''],
      ['right among trust ≥ 70', s.confident === 0 ? '-' : percent(s.confidentPrecision), `(${s.confident} answers)`],
      ['trust ranks answers (AUC, 0.5 = chance)', s.trustRanking === undefined ? '-' : s.trustRanking.toFixed(2), TRUST_FITTED_ON.has(result.set) ? '(in-sample: trust was fitted to this set)' : '(out of sample)'],
      ['median ask ms', s.medianAskMs.toFixed(1), ''],
    ];
    for (const [label, value, note] of rows) console.log(`  ${label.padEnd(40)} ${value.padStart(9)} ${note}`);
    const missed = GOALS.filter(([, met]) => !met(s)).map(([goal]) => goal);
    console.log(`  goals: ${missed.length === 0 ? 'all met' : `missed ${missed.join('; ')}`}`);
  }
  if (severalStores) printStores(results);
}

/** An answer's text without the port its manual was served on (each run serves it on another). */
const withoutOrigin = (content) => content.replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://127.0.0.1');

/** The figures of each set on each store side by side, and every question whose answer differs between SQLite and PostgreSQL. */
function printStores(results) {
  const answered = results.filter((result) => !result.skipped);
  const sets = [...new Set(answered.map((result) => result.set))];
  console.log('\nSQLite against PostgreSQL (correct, right page, on-topic declined, off-topic declined, confidently wrong, median words, median ask ms):');
  const figures = (s) => [percent(s.correct), percent(s.rightPage), String(s.declinedOnTopic), String(s.offTopicDeclined), percent(s.confidentlyWrong), String(s.medianWords), s.medianAskMs.toFixed(1)];
  for (const set of sets) {
    const sqlite = answered.find((result) => result.set === set && (result.store ?? 'sqlite') === 'sqlite');
    const postgres = answered.find((result) => result.set === set && result.store === 'postgres');
    for (const result of [sqlite, postgres].filter(Boolean)) {
      console.log(`  ${set.padEnd(11)} ${STORE_NAMES[result.store ?? 'sqlite'].padEnd(11)} ${figures(result.summary).map((figure) => figure.padStart(8)).join(' ')}`);
    }
    if (sqlite === undefined || postgres === undefined) continue;
    const other = new Map(postgres.answers.map((answer) => [answer.question, answer]));
    const differing = sqlite.answers.filter((answer) => {
      const theirs = other.get(answer.question);
      return theirs === undefined || withoutOrigin(theirs.content) !== withoutOrigin(answer.content) || theirs.trust !== answer.trust;
    });
    console.log(`  ${''.padEnd(11)} answers that differ: ${differing.length} of ${sqlite.answers.length}`);
    for (const answer of differing) {
      const theirs = other.get(answer.question);
      console.log(`    ${answer.question}\n      SQLite (trust ${answer.trust}): ${JSON.stringify(answer.content)}\n      PostgreSQL (trust ${theirs?.trust}): ${JSON.stringify(theirs?.content)}`);
    }
  }
}
