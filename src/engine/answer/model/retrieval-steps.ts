/**
 * The model where words fail: before retrieval it rewrites the question in the
 * documentation's likely vocabulary, and before generation it picks, from the
 * best candidates, the passages that answer. Each reply is read leniently;
 * one that cannot be read is undefined (the caller keeps today's path).
 */
import * as z from 'zod';
import type { ChatModel } from '../../../providers/chat.js';
import type { ChunkHit } from '../../search/retriever.js';
import { jsonReply } from './json-reply.js';
import { pickingMessages, vocabularyMessages } from './prompts.js';

/** Rewrites asked for, each searched beside the question. */
export const MAX_REWRITES = 3;
/** A rewrite is a search query: longer than this is a paragraph, not a query. */
const MAX_REWRITE_CHARS = 300;
/** Candidates shown to the picking step, best first. */
export const PICK_CANDIDATES = 12;
/** Characters of each candidate shown to the picking step: enough to tell what it is about. */
const PICK_PASSAGE_CHARS = 700;

const Rewrites = z.object({ rewrites: z.array(z.unknown()) });
const Picked = z.object({ passages: z.array(z.unknown()) });

/** A JSON array anywhere in the text, else undefined. */
function jsonArray(text: string): unknown[] | undefined {
  const start = text.indexOf('[');
  const end = text.lastIndexOf(']');
  if (start === -1 || end < start) return undefined;
  try {
    const parsed: unknown = JSON.parse(text.slice(start, end + 1));
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

const unquoted = (line: string): string =>
  line
    .trim()
    .replace(/^(?:[-*•]|\d+[.)])\s*/, '')
    .replace(/^["'“«]+|["'”»,]+$/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * The rewrites of a reply: `{"rewrites": [...]}`, a JSON array, or one per line (bullets and
 * numbers taken off); each a string of at most MAX_REWRITE_CHARS, not the question again, each
 * once, at most MAX_REWRITES. Undefined when the reply is none of these (garbage); [] when the
 * model wrote none (the question is not about the documentation, or already in its words).
 */
export function readRewrites(text: string, question: string): string[] | undefined {
  const listed = jsonReply(text, Rewrites)?.rewrites ?? jsonArray(text) ?? (text.includes('{') ? undefined : text.split('\n'));
  if (listed === undefined) return undefined;
  const seen = new Set([question.trim().toLowerCase()]);
  const rewrites: string[] = [];
  for (const item of listed) {
    if (typeof item !== 'string') continue;
    const rewrite = unquoted(item);
    const key = rewrite.toLowerCase();
    if (rewrite === '' || rewrite.length > MAX_REWRITE_CHARS || rewrite.endsWith(':') || seen.has(key)) continue;
    seen.add(key);
    rewrites.push(rewrite);
  }
  // Lines that were all unusable (a paragraph, a refusal) are garbage, not "none".
  if (rewrites.length === 0 && listed.some((item) => typeof item === 'string' && unquoted(item) !== '' && !seen.has(unquoted(item).toLowerCase()))) {
    return undefined;
  }
  return rewrites.slice(0, MAX_REWRITES);
}

export async function documentationWording(
  chat: ChatModel,
  guruName: string,
  question: string,
  signal: AbortSignal,
): Promise<string[] | undefined> {
  const reply = await chat.complete({
    messages: vocabularyMessages(guruName, question, MAX_REWRITES),
    temperature: 0,
    maxTokens: 200,
    responseFormat: 'json',
    signal,
  });
  return readRewrites(reply.text, question);
}

/**
 * The numbers of a reply among 1..`count`, each once, in the order given: `{"passages": [...]}`,
 * a JSON array, or numbers in plain text. Undefined when none is in range (garbage).
 */
export function readPicks(text: string, count: number): number[] | undefined {
  const listed = jsonReply(text, Picked)?.passages ?? jsonArray(text) ?? text.match(/\d+/g) ?? [];
  const picks = [...new Set(listed.map(Number).filter((n) => Number.isInteger(n) && n >= 1 && n <= count))];
  return picks.length === 0 ? undefined : picks;
}

/** The candidates the model picks, in their ranking's order; undefined when its reply is unusable. */
export async function pickPassages(chat: ChatModel, question: string, candidates: readonly ChunkHit[], signal: AbortSignal): Promise<ChunkHit[] | undefined> {
  const offered = candidates.slice(0, PICK_CANDIDATES);
  const reply = await chat.complete({
    messages: pickingMessages(
      question,
      offered.map((hit) => ({ title: hit.title, headings: hit.headings, text: hit.body.length > PICK_PASSAGE_CHARS ? `${hit.body.slice(0, PICK_PASSAGE_CHARS)}…` : hit.body })),
    ),
    temperature: 0,
    maxTokens: 100,
    responseFormat: 'json',
    signal,
  });
  const picks = readPicks(reply.text, offered.length);
  return picks && offered.filter((_, index) => picks.includes(index + 1));
}
