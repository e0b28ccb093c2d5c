/**
 * Evidence over MCP: `ask` returns, besides its answer, the passages it drew on and
 * `semantic_search` its sources' best excerpts (several of one source when the budget has room),
 * within the caller's evidence_tokens, as text content only (structured content has their places,
 * not their text again). Over a hosted REST API (the remote adapter) there are no passages, and the
 * text says so.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVIDENCE_TOKENS_DEFAULT, estimateTokens } from '../../src/core/evidence.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { NO_PASSAGES } from '../../src/mcp/render.js';
import { RemoteAssistant } from '../../src/remote/remote-assistant.js';
import { answerOf } from '../support/mcp-answer.js';
import { json, startLoopbackService, type LoopbackService } from '../remote/loopback-service.js';
import { CONFIG_GUIDE, ERAS, INSTALL_GUIDE, connectClient, openTestBackend, textOf } from './support.js';
import type { TestBackend } from './support.js';

const SHARED = 'Frobnication runs in three passes: the gather pass collects inputs, the wibble pass reorders them and the final pass writes the output files.';

const PASSES_GUIDE = `# How frobnication works

## The passes

${SHARED} Each pass can be skipped with its own flag.

## The gather pass

The gather pass reads every input file below the project root, skipping the folders listed in frob.toml under ignore.
It never follows symbolic links. Large inputs are read in pieces of 64 KB, so memory stays flat.

## The wibble pass

The wibble pass reorders inputs by the wibble level. A level of 0 keeps the order; higher levels shuffle more.
The pass is the slowest of the three on large projects; skip it with --no-wibble when the order does not matter.

## Troubleshooting frobnication

When frobnication stops halfway, run frob doctor: it checks the compiler, the Node.js version and frob.toml.
`;

/** Repeats the shared sentence: the evidence must not give it twice. */
const OVERVIEW = `# Frobnicator overview

## What it does

${SHARED} Frobnicator is used on large projects where the order of inputs matters.
`;

interface EvidenceSummary {
  budget_tokens: number;
  tokens: number;
  left_out: number;
  note?: string;
  passages: { title: string; headings: string[]; link: string | null; source?: number; tokens: number; cut: boolean }[];
}

/** The passages' texts as the text content shows them ("### [n] place", blank line, text). */
function passageTexts(text: string): string[] {
  return text
    .split(/^### (?:\[\d+\]|\d+\.) .*$/m)
    .slice(1)
    .map((part) => part.trim().split(/\n\n(?:The last passage|\d+ more passage)/)[0]!.replace(/ \[…cut\]$/, '').trim());
}

describe.each(ERAS)('MCP evidence (%s)', (era) => {
  let test: TestBackend;
  let client: Client;

  beforeEach(async () => {
    test = await openTestBackend();
    await test.backend.admin!.createGuru({ slug: 'frob', name: 'Frobnicator' });
    await test.backend.assistant.createDataSources('frob', {
      text_sources: [
        { name: 'Install guide', content: INSTALL_GUIDE },
        { name: 'Config guide', content: CONFIG_GUIDE },
        { name: 'Passes guide', content: PASSES_GUIDE },
        { name: 'Overview', content: OVERVIEW },
      ],
    });
    await (test.backend.assistant as unknown as { whenIdle(): Promise<void> }).whenIdle();
    client = await connectClient({ backend: test.backend, logger: silentLogger }, era);
  });

  afterEach(async () => {
    await client.close();
    await test.close();
  });

  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  const texts = (result: CallToolResult) => result.content.filter((block) => block.type === 'text').map((block) => block.text);

  it('ask returns the passages it drew on, best first, within the default budget, the answer text once', async () => {
    const result = await call('ask', { question: 'How do I install Frobnicator?' });
    expect(result.isError, textOf(result)).toBeFalsy();
    const answer = answerOf(result);
    const [first, details] = texts(result);
    expect(first).toBe(answer.content);
    expect(answer.content).toContain('npm install -g frobnicator');

    const evidence = (result.structuredContent as { evidence: EvidenceSummary }).evidence;
    expect(evidence.budget_tokens).toBe(EVIDENCE_TOKENS_DEFAULT);
    // The quoted section is in the answer already: the passages start with what it left out of the same guide.
    expect(evidence.passages[0]).toMatchObject({ title: 'Install guide', headings: expect.arrayContaining(['Requirements']), link: null, cut: false });
    const passages = passageTexts(details!);
    expect(passages).toHaveLength(evidence.passages.length);
    expect(passages[0]).toContain('Node.js 20 or newer');
    expect(passages.join('\n')).not.toContain('npm install -g frobnicator');
    const tokens = passages.map(estimateTokens);
    expect(tokens).toEqual(evidence.passages.map((passage) => passage.tokens));
    expect(tokens.reduce((sum, n) => sum + n, 0)).toBe(evidence.tokens);
    expect(evidence.tokens).toBeLessThanOrEqual(evidence.budget_tokens);

    // Structured content repeats neither the answer's text nor any passage's.
    const structured = JSON.stringify(result.structuredContent);
    expect(result.structuredContent).not.toHaveProperty('content');
    for (const passage of passages) expect(structured).not.toContain(passage.slice(0, 60));
    expect(structured).not.toContain('npm install -g frobnicator');
  });

  it('ask keeps within a small budget, cuts at a sentence and says what was left out', async () => {
    const budget = 60;
    const result = await call('ask', { question: 'What does the wibble pass do?', evidence_tokens: budget });
    const evidence = (result.structuredContent as { evidence: EvidenceSummary }).evidence;
    const passages = passageTexts(texts(result)[1]!);
    const tokens = passages.reduce((sum, text) => sum + estimateTokens(text), 0);
    expect(tokens).toBe(evidence.tokens);
    expect(tokens).toBeLessThanOrEqual(budget);
    expect(passages.length).toBeGreaterThan(0);
    expect(evidence.left_out).toBeGreaterThan(0);
    expect(evidence.note).toMatch(/left out to keep within 60 tokens: raise evidence_tokens/);
    expect(texts(result)[1]).toContain(evidence.note);
    for (const [i, passage] of evidence.passages.entries()) {
      // A cut passage ends at the end of a sentence.
      if (passage.cut) expect(passages[i]).toMatch(/[.!?]$/);
    }
  });

  it('ask gives no sentence twice, though two sources hold it and the answer quotes it', async () => {
    const result = await call('ask', { question: 'What are the passes of frobnication?', evidence_tokens: 3000 });
    const [answer, details] = texts(result);
    const passages = passageTexts(details!);
    expect(answer).toContain(SHARED);
    expect(passages.join('\n')).not.toContain(SHARED.slice(0, 40));
    const sentences = passages.flatMap((passage) => passage.split(/(?<=[.!?])\s+/));
    expect(new Set(sentences).size).toBe(sentences.length);
    const evidence = (result.structuredContent as { evidence: EvidenceSummary }).evidence;
    expect(evidence.left_out).toBe(0);
    expect(evidence.note).toBeUndefined();
  });

  it('semantic_search returns each source with its best excerpt, text content only', async () => {
    const result = await call('semantic_search', { question: 'where are the settings of frobnicator', evidence_tokens: 500 });
    expect(result.isError, textOf(result)).toBeFalsy();
    const structured = result.structuredContent as { sources: { title: string }[]; evidence: EvidenceSummary };
    expect(structured.evidence.passages.length).toBeGreaterThan(0);
    const config = structured.sources.findIndex((source) => source.title === 'Config guide');
    expect(structured.evidence.passages.map((passage) => passage.source)).toContain(config);
    expect(textOf(result)).toMatch(/> Frobnicator reads its settings from frob.toml/);
    expect(JSON.stringify(structured)).not.toContain('reads its settings');
    expect(structured.evidence.tokens).toBeLessThanOrEqual(500);
  });

  it('semantic_search gives more than one excerpt of a source when the budget has room, its sources unchanged', async () => {
    const question = 'what does each frobnication pass do';
    const small = await call('semantic_search', { question, evidence_tokens: 40 });
    const result = await call('semantic_search', { question, evidence_tokens: 3000 });
    const structured = result.structuredContent as { sources: { title: string }[]; evidence: EvidenceSummary };
    expect(structured.sources).toEqual((small.structuredContent as { sources: unknown[] }).sources);
    const passes = structured.sources.findIndex((source) => source.title === 'Passes guide');
    const excerpts = structured.evidence.passages.filter((passage) => passage.source === passes);
    expect(excerpts.length).toBeGreaterThan(1);
    expect(new Set(excerpts.map((excerpt) => excerpt.headings.join(' › '))).size).toBe(excerpts.length);
    expect(structured.evidence.tokens).toBeLessThanOrEqual(3000);
    // Each excerpt is quoted under its source, in its place in the list.
    const listed = textOf(result).split(/\n(?=\d+\. )/).find((entry) => entry.startsWith(`${passes + 1}. Passes guide`));
    expect(listed).toContain('> The gather pass reads every input file');
    expect(listed).toContain('> The wibble pass reorders inputs');
  });

  it('semantic_search leaves excerpts out for a small budget and says so', async () => {
    const result = await call('semantic_search', { question: 'frobnication pass', evidence_tokens: 30 });
    const structured = result.structuredContent as { sources: unknown[]; evidence: EvidenceSummary };
    expect(structured.sources.length).toBeGreaterThan(1);
    expect(structured.evidence.tokens).toBeLessThanOrEqual(30);
    expect(structured.evidence.left_out).toBeGreaterThan(0);
    expect(textOf(result)).toMatch(/excerpts? (were|was) left out to keep within 30 tokens: raise evidence_tokens/);
  });

  it('gives no passages for evidence_tokens 0', async () => {
    const asked = await call('ask', { question: 'How do I install Frobnicator?', evidence_tokens: 0 });
    expect(asked.structuredContent).not.toHaveProperty('evidence');
    expect(textOf(asked)).not.toContain('Passages');
    const searched = await call('semantic_search', { question: 'frob.toml', evidence_tokens: 0 });
    expect(searched.structuredContent).not.toHaveProperty('evidence');
    expect(textOf(searched)).not.toContain('>');
  });

  it('refuses a budget over 8,000 tokens, below 0 or not whole, storing nothing', async () => {
    for (const evidence_tokens of [8001, -1, 1.5]) {
      for (const tool of ['ask', 'semantic_search']) {
        const result = await call(tool, { question: 'frob.toml', evidence_tokens });
        expect(result.isError, `${tool} ${evidence_tokens}`).toBe(true);
        expect(textOf(result)).toMatch(/Input validation error/);
      }
    }
    const { tools } = await client.listTools();
    const property = (name: string) => (tools.find((tool) => tool.name === name)?.inputSchema.properties as Record<string, Record<string, unknown>>).evidence_tokens;
    expect(property('ask')).toMatchObject({ minimum: 0, maximum: 8000 });
    expect(property('semantic_search')).toMatchObject({ minimum: 0, maximum: 8000 });
    expect(tools.find((tool) => tool.name === 'ask')?.description).toContain(`default ${EVIDENCE_TOKENS_DEFAULT}`);
  });

  it('REST and the CLI, which ask for no evidence, get none', async () => {
    const answer = await test.backend.assistant.ask('frob', { question: 'How do I install Frobnicator?', fetch_existing: false });
    expect(answer).not.toHaveProperty('evidence');
    const found = await test.backend.assistant.semanticSearch('frob', { question: 'frob.toml' });
    expect(found).not.toHaveProperty('evidence');
  });
});

describe('MCP evidence over a hosted REST API (remote adapter)', () => {
  let service: LoopbackService | undefined;
  let assistant: RemoteAssistant | undefined;
  let client: Client | undefined;

  afterEach(async () => {
    await client?.close();
    await assistant?.close();
    await service?.close();
  });

  it('returns the answer and its references, saying passages are not available', async () => {
    service = await startLoopbackService((request, res) => {
      if (request.url.includes('semantic-search')) {
        json(res, 200, { sources: [{ title: 'Hello page', link: 'https://example.com/hello', display_link: true, icon_url: '', labels: [] }], total_sources: 1 });
      } else {
        json(res, 200, {
          slug: 'hello-1a2b3c',
          content: 'Hello, world.',
          question: 'Say hello',
          date_updated: '2026-11-20',
          trust_score: 80,
          references: [{ link: 'https://example.com/hello', icon: '', title: 'Hello page' }],
          session_id: 'session-1',
          question_url: 'https://example.com/q/hello',
          can_receive_feedback: true,
        });
      }
    });
    assistant = new RemoteAssistant({ baseUrl: service.baseUrl, apiKey: 'guru_test', logger: createLogger('error', () => {}), retry: { backoffMs: 1 } });
    client = await connectClient({ backend: { kind: 'remote', assistant, defaultGuru: 'frob' }, logger: silentLogger }, '2026-07-28');

    const asked = (await client.callTool({ name: 'ask', arguments: { question: 'Say hello' } })) as CallToolResult;
    expect(asked.isError, textOf(asked)).toBeFalsy();
    expect(answerOf(asked)).toMatchObject({ content: 'Hello, world.', references: [{ title: 'Hello page' }] });
    expect(asked.structuredContent).not.toHaveProperty('evidence');
    expect(textOf(asked)).toContain(NO_PASSAGES);

    const searched = (await client.callTool({ name: 'semantic_search', arguments: { question: 'hello' } })) as CallToolResult;
    expect(searched.structuredContent).not.toHaveProperty('evidence');
    expect(textOf(searched)).toContain('1. Hello page');
    expect(textOf(searched)).toContain(NO_PASSAGES);
  });
});
