// Part `llm`: generated answers (issue 11) against a stand-in chat-completions endpoint with a
// fixed latency, so that what the pipeline itself costs is visible: per answer, the tokens sent
// and received (over all its model calls: rewrite, rewording, picking, answer, grading, memories) and the time to
// its first streamed text. The knowledge is the SQLite documentation of the `qa` part (Debian's
// sqlite3-doc); the first GURU_BENCH_LLM_QUESTIONS of its questions are asked, each once.
//
// The stand-in counts a token per four characters of the messages it receives (the estimate the
// engine budgets its context with), streams a fixed answer of ~60 words citing [1] one word at a
// time, grades every source "full", rewords a question twice (it with "sqlite" after it, and before it) and
// picks passages 1 to 3. Its latency: GURU_BENCH_LLM_LATENCY_MS before the first
// byte of every reply (default 300), GURU_BENCH_LLM_TOKEN_MS between streamed words (default 10).
import console from 'node:console';
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { dist, median, positiveInt, table } from '../lib/common.js';
import { ensureDebianPackage } from '../lib/manual-site.js';
import { ingest, qaSettings, readSet } from '../qa/benchmark.js';

const questionCount = positiveInt(process.env.GURU_BENCH_LLM_QUESTIONS, 20);
const latencyMs = positiveInt(process.env.GURU_BENCH_LLM_LATENCY_MS, 300);
const tokenMs = positiveInt(process.env.GURU_BENCH_LLM_TOKEN_MS, 10);

const ANSWER =
  'To do this, run the statement shown in the documentation [1]. It takes effect at once for the current database ' +
  'connection and is kept in the database file, so later connections see it too [1]. Check the result with the ' +
  'matching PRAGMA before relying on it in production, and read the notes on locking and durability that come with it [1].';

const estimate = (text) => Math.ceil(text.length / 4);

/** The steps of the pipeline told apart by their system prompts' openings. */
const STEPS = { grade: 'You check an answer', memories: 'You keep notes', reword: 'You rewrite questions into', pick: 'You pick the passages' };

/** A chat-completions endpoint with fixed latency that records tokens per request. */
async function startModel() {
  const calls = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', async () => {
      const payload = JSON.parse(body);
      const system = payload.messages.find((message) => message.role === 'system')?.content ?? '';
      const sent = estimate(payload.messages.map((message) => message.content).join('\n'));
      await sleep(latencyMs);
      if (payload.stream) {
        const words = ANSWER.match(/\S+\s*/g);
        calls.push({ step: 'answer', sent, received: words.length });
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const word of words) {
          response.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: word } }] })}\n\n`);
          await sleep(tokenMs);
        }
        response.write(`data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: sent, completion_tokens: words.length } })}\n\n`);
        response.end('data: [DONE]\n\n');
        return;
      }
      const step = Object.entries(STEPS).find(([, opening]) => system.startsWith(opening))?.[0] ?? 'other';
      const question = payload.messages.at(-1).content;
      const text =
        step === 'grade'
          ? JSON.stringify({ grades: [{ source: 1, support: 'full' }] })
          : step === 'memories'
            ? '{"memories": []}'
            : step === 'reword'
              ? JSON.stringify({ rewrites: [`${question} sqlite`, `sqlite ${question.toLowerCase()}`] })
              : step === 'pick'
                ? '{"passages": [1, 2, 3]}'
                : '{"questions": []}';
      calls.push({ step, sent, received: estimate(text) });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: sent, completion_tokens: estimate(text) } }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${server.address().port}/v1`, calls, close: () => new Promise((resolve) => server.close(resolve)) };
}

const p90 = (values) => [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil(0.9 * values.length) - 1)];

async function run() {
  const set = readSet('sqlite');
  const missing = ensureDebianPackage(set.package, set.dir);
  if (missing !== undefined) return { skipped: missing };
  const settings = qaSettings();
  const dataDir = settings.keepDir ? join(settings.keepDir, 'sqlite') : mkdtempSync(join(tmpdir(), 'guru-bench-llm-'));
  mkdirSync(dataDir, { recursive: true });
  const model = await startModel();
  const { LocalEngine } = await dist('engine/local-engine.js');
  const { silentLogger } = await dist('log.js');
  const engine = await LocalEngine.open({ dataDir, logger: silentLogger, allowPrivateNetwork: true, llm: { baseUrl: model.baseUrl, model: 'stand-in' } });
  try {
    await ingest({ assistant: engine, admin: engine }, set, 'sqlite', dataDir);
    const answers = [];
    for (const { question } of set.questions.slice(0, questionCount)) {
      const before = model.calls.length;
      const started = performance.now();
      let firstText;
      const answer = await engine.ask('sqlite', { question, fetch_existing: false, external_user_id: 'bench' }, {
        onText: () => (firstText ??= performance.now() - started),
      });
      const calls = model.calls.slice(before);
      answers.push({
        question,
        generated: calls.some((call) => call.step === 'answer'),
        calls: calls.length,
        sent: calls.reduce((sum, call) => sum + call.sent, 0),
        answerPrompt: calls.find((call) => call.step === 'answer')?.sent ?? 0,
        received: calls.reduce((sum, call) => sum + call.received, 0),
        firstTextMs: Math.round(firstText ?? performance.now() - started),
        totalMs: Math.round(performance.now() - started),
        trust: answer.trust_score,
      });
    }
    const generated = answers.filter((answer) => answer.generated);
    const stats = (key) => ({ median: median(generated.map((answer) => answer[key])), p90: p90(generated.map((answer) => answer[key])) });
    return {
      latencyMs,
      tokenMs,
      asked: answers.length,
      generated: generated.length,
      summary: generated.length === 0 ? {} : Object.fromEntries(['sent', 'answerPrompt', 'received', 'firstTextMs', 'totalMs', 'calls'].map((key) => [key, stats(key)])),
      answers,
    };
  } finally {
    await engine.close();
    await model.close();
    if (!settings.keepDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

function print(result) {
  console.log(
    `\nGenerated answers against a stand-in model (${result.latencyMs} ms to first byte per call, ${result.tokenMs} ms per streamed word): ` +
      `${result.generated} of ${result.asked} questions generated (the rest declined without calling the model)`,
  );
  const rows = [
    ['tokens sent, all calls', 'sent'],
    ['tokens sent, answer prompt', 'answerPrompt'],
    ['tokens received', 'received'],
    ['model calls', 'calls'],
    ['time to first text (ms)', 'firstTextMs'],
    ['time to whole answer (ms)', 'totalMs'],
  ];
  console.log(table(['per answer', 'median', 'p90'], rows.filter(([, key]) => result.summary[key]).map(([label, key]) => [label, String(result.summary[key].median), String(result.summary[key].p90)])));
}

/** @type {import('../lib/part.js').BenchPart} */
export default { name: 'llm', run, print };
