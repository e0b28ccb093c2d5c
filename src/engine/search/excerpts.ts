/** Chunks as evidence for callers (MCP): heading path, link and text, packed within their budget. */
import { packEvidence, sentences, type EvidenceCandidate, type EvidenceRequest, type EvidenceSet, type QuestionWords } from '../../core/evidence.js';
import { HEADING_SEPARATOR } from '../store/chunks.js';
import { closesFence, openingFence, type Fence } from '../text/fences.js';
import { isLinkList } from '../text/link-lists.js';
import { linkTexts } from '../text/links.js';
import type { ChunkHit } from './retriever.js';

const bare = (text: string): string => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/**
 * A chunk that says nothing of its own, so answers never quote it and excerpts pass it over: empty,
 * its page title or heading again ("Write-Ahead Logging"), or a list of links (a generated index, a
 * table of contents: it names where answers are and holds none).
 */
export function saysNothing(hit: ChunkHit): boolean {
  const body = bare(hit.body);
  return body === '' || body === bare(hit.title) || body === bare(hit.headings.split(HEADING_SEPARATOR).at(-1) ?? '') || isLinkList(hit.body);
}

/**
 * A source's excerpt for a search: of its chunks found (`hits`, best first), the one whose text
 * holds the most of the question's words (the first of those on a tie), passing over chunks that
 * say nothing of their own. A chunk ranks high for its page title alone; the excerpt is read for its text.
 */
export function bestExcerpt(hits: readonly ChunkHit[], terms: readonly string[]): ChunkHit | undefined {
  let best: ChunkHit | undefined;
  let bestCount = -1;
  for (const hit of hits) {
    if (saysNothing(hit)) continue;
    const body = hit.body.toLowerCase();
    const count = terms.filter((term) => body.includes(term)).length;
    if (count > bestCount) {
      best = hit;
      bestCount = count;
    }
  }
  return best;
}

/** Prose between code spans: a backslash before punctuation is Markdown's escape, not text. */
const unescaped = (prose: string): string =>
  prose
    .split(/(`+[^`]*?`+)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/\\([!-/:-@[-`{-~])/g, '$1')))
    .join('');

/**
 * A chunk's Markdown as evidence reads it: links as their text (the passage carries its page's link;
 * the link targets inside took about a quarter of a page's characters, budget a caller pays for) and
 * no escapes ("foreign\\_keys" is foreign_keys). Fenced code is left as it is.
 */
export function evidenceText(markdown: string): string {
  if (!markdown.includes('](') && !markdown.includes('\\')) return markdown;
  return blocks(markdown)
    .map((block) => (block.code ? block.text : unescaped(linkTexts(block.text))))
    .join('');
}

interface Block {
  readonly text: string;
  readonly code: boolean;
}

/** A text's fenced code blocks whole and the prose between them, in order, line ends kept. */
function blocks(markdown: string): Block[] {
  const out: Block[] = [];
  let lines: string[] = [];
  let fence: Fence | undefined;
  const flush = (code: boolean) => {
    if (lines.length > 0) out.push({ text: lines.join(''), code });
    lines = [];
  };
  for (const line of markdown.split(/(?<=\n)/)) {
    const bareLine = line.replace(/\n$/, '');
    if (fence !== undefined) {
      lines.push(line);
      if (closesFence(bareLine, fence)) {
        flush(true);
        fence = undefined;
      }
      continue;
    }
    fence = openingFence(bareLine);
    if (fence !== undefined) flush(false);
    lines.push(line);
  }
  flush(fence !== undefined);
  return out;
}

/** A chunk as a candidate passage: its readable text (evidenceText), only what bears on the question with `words` (tightened). */
export function candidateOf(hit: ChunkHit, words?: QuestionWords): EvidenceCandidate {
  return {
    title: hit.title,
    headings: hit.headings === '' ? [] : hit.headings.split(HEADING_SEPARATOR),
    link: hit.url,
    text: words === undefined ? evidenceText(hit.body) : tightened(evidenceText(hit.body), words),
  };
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/**
 * A word without its inflection, close to what the index's stemmer makes of it: "indexes" and
 * "index", "logging" and "logs" and "log", "updated" and "update" come out the same.
 */
export function stemOf(word: string): string {
  let stem = word.toLowerCase().replace(/['’]/g, '');
  if (stem.length > 4 && stem.endsWith('ies')) return `${stem.slice(0, -3)}y`;
  for (const suffix of ['ing', 'ed', 'es', 's']) {
    if (stem.endsWith(suffix) && stem.length - suffix.length >= 3 && !stem.endsWith(`s${suffix}`)) {
      stem = stem.slice(0, -suffix.length);
      break;
    }
  }
  if (stem.length > 3 && stem.endsWith('e')) stem = stem.slice(0, -1);
  // "logg" (logging) is "log"; "ll" and "ss" stay ("install", "access").
  if (stem.length > 3 && stem.at(-1) === stem.at(-2) && !/[lsz]/.test(stem.at(-1)!)) stem = stem.slice(0, -1);
  return stem;
}

/**
 * The question's words (`weights`: each one's weight) as packEvidence reads them in a passage: in
 * any of their forms (stemOf), and by the synonyms the search added (`aliases`: synonym → word).
 */
export function questionWords(weights: ReadonlyMap<string, number>, aliases: ReadonlyMap<string, string> = new Map()): QuestionWords {
  const byStem = new Map<string, string>();
  for (const word of weights.keys()) byStem.set(stemOf(word), word);
  for (const [alias, word] of aliases) if (weights.has(word) && !byStem.has(stemOf(alias))) byStem.set(stemOf(alias), word);
  // Each word of the passages read is stemmed once.
  const termOf = new Map<string, string | undefined>();
  return {
    weights,
    of: (text) => {
      const found = new Set<string>();
      for (const [word] of text.matchAll(WORD)) {
        let term = termOf.get(word);
        if (term === undefined && !termOf.has(word)) termOf.set(word, (term = byStem.get(stemOf(word))));
        if (term !== undefined) found.add(term);
      }
      return found;
    },
  };
}

/** A text's pieces: each fenced code block whole, the prose between them sentence by sentence. */
const pieces = (markdown: string): Block[] =>
  blocks(markdown).flatMap((block) => (block.code ? [block] : sentences(block.text).map((text) => ({ text, code: false }))));

/**
 * Sentences kept on either side of one holding a question word (tightened). Measured on the sqlite,
 * Node.js and Python sets: 1 let a few more passages into 1,500 tokens than whole chunks (0) or
 * the matching sentences alone, which lost a term a neighbour held.
 */
const AROUND = 1;

/**
 * The part of a passage that bears on the question: its sentences holding a question word, each
 * with the AROUND sentences (or code blocks, kept whole) on either side; a gap left out shows as
 * "…". A passage holding no question word (found by its title or by meaning) is kept whole.
 */
export function tightened(text: string, words: QuestionWords): string {
  const all = pieces(text);
  const holds = all.map((piece) => words.of(piece.text).size > 0);
  if (!holds.includes(true)) return text;
  const kept = all.map((_, i) => holds.slice(Math.max(0, i - AROUND), i + AROUND + 1).includes(true));
  // "…" stands on a line of its own beside a code block, so that no fence line gets anything else.
  let out = '';
  let gap = false;
  for (const [i, piece] of all.entries()) {
    if (!kept[i]) {
      gap = true;
      continue;
    }
    if (gap) {
      const onItsOwn = piece.code || out.endsWith('\n');
      if (out === '') out = onItsOwn ? '…\n' : '… ';
      else out += onItsOwn ? `${out.endsWith('\n') ? '' : '\n'}…\n` : ' … ';
    }
    gap = false;
    out += piece.text;
  }
  if (gap) out = out.endsWith('\n') ? `${out}…` : `${out.trimEnd()} …`;
  return out.trim();
}

/**
 * The chunks (best first) within the request's budget, less the sentences `given` holds (the answer
 * they come with), chosen by the question `words` they add when given; undefined when none was asked for.
 */
export function evidenceOf(hits: readonly ChunkHit[] | undefined, request: EvidenceRequest | undefined, given = '', words?: QuestionWords): EvidenceSet | undefined {
  if (request === undefined) return undefined;
  return packEvidence((hits ?? []).map((hit) => candidateOf(hit, words)), request.tokens, evidenceText(given), words);
}
