/**
 * Context selection: the best passages found for the question, each expanded
 * to its neighbouring chunks of the same section, within a token budget, and
 * grouped per document. Each document becomes one numbered source of the
 * prompt (and, when cited, one reference).
 */
import type { ChunkHit, Retriever } from '../../search/retriever.js';

/**
 * The prompt's sources take at most this many tokens: enough for a few
 * sections with their neighbours, small enough for an 8k-token local model
 * with room for the instructions, the question and the answer.
 */
export const CONTEXT_TOKEN_BUDGET = 3_000;
/** Best passages considered, before expansion. */
const MAX_PASSAGES = 8;

/**
 * A cheap token estimate for the BPE tokenizers of current models: about four
 * characters a token for English prose (code runs closer to three, so code-heavy
 * context comes out somewhat larger than budgeted), and a token for every
 * character outside ASCII (CJK text is one or more tokens a character).
 */
export function estimateTokens(text: string): number {
  let outsideAscii = 0;
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) > 0x7f) outsideAscii += 1;
  return Math.ceil((text.length - outsideAscii) / 4) + outsideAscii;
}

export interface ContextSection {
  readonly headings: string;
  readonly text: string;
}

/** One document of the context: what the prompt numbers and an answer cites. */
export interface ContextSource {
  readonly sourceId: number;
  readonly title: string;
  readonly url: string | null;
  readonly sections: readonly ContextSection[];
}

/** The chunk with its neighbours of the same section, in order. */
async function expanded(retriever: Retriever, hit: ChunkHit): Promise<ChunkHit[]> {
  const around = (await retriever.chunksAround(hit.sourceId, hit.position - 1, hit.position + 1)).filter((chunk) => chunk.headings === hit.headings);
  return around.some((chunk) => chunk.chunkId === hit.chunkId) ? around : [hit];
}

/** `hits` best first; the chunks taken, grouped per document in order of their best hit. */
export async function selectContext(retriever: Retriever, hits: readonly ChunkHit[], budget = CONTEXT_TOKEN_BUDGET): Promise<ContextSource[]> {
  const taken = new Map<number, ChunkHit>();
  let used = 0;
  const candidates = hits.slice(0, MAX_PASSAGES);
  // Each candidate's neighbours, read at once (the same chunk's twice when it comes twice).
  const neighbours = await Promise.all(candidates.map((hit) => expanded(retriever, hit)));
  for (const [index, hit] of candidates.entries()) {
    if (taken.has(hit.chunkId)) continue;
    const fresh = (neighbours[index] as ChunkHit[]).filter((chunk) => !taken.has(chunk.chunkId));
    const cost = (chunks: readonly ChunkHit[]) => chunks.reduce((sum, chunk) => sum + estimateTokens(chunk.body), 0);
    // With its neighbours when they fit, else alone, else not at all (a smaller later one may fit).
    const chosen = used + cost(fresh) <= budget ? fresh : used + cost([hit]) <= budget ? [hit] : [];
    for (const chunk of chosen) taken.set(chunk.chunkId, chunk);
    used += cost(chosen);
  }
  const order = [...new Set(hits.filter((hit) => taken.has(hit.chunkId)).map((hit) => hit.sourceId))];
  return order.map((sourceId) => {
    const chunks = [...taken.values()].filter((chunk) => chunk.sourceId === sourceId).sort((a, b) => a.position - b.position);
    const first = chunks[0] as ChunkHit;
    return { sourceId, title: first.title, url: first.url, sections: sectionsOf(chunks) };
  });
}

/** Consecutive chunks of one section read as one text. */
function sectionsOf(chunks: readonly ChunkHit[]): ContextSection[] {
  const sections: { headings: string; texts: string[]; last: number }[] = [];
  for (const chunk of chunks) {
    const current = sections.at(-1);
    if (current && current.headings === chunk.headings && current.last === chunk.position - 1) {
      current.texts.push(chunk.body);
      current.last = chunk.position;
    } else sections.push({ headings: chunk.headings, texts: [chunk.body], last: chunk.position });
  }
  return sections.map((section) => ({ headings: section.headings, text: section.texts.join('\n\n') }));
}

/** A source as the prompt shows it under its number. */
export function sourceText(source: ContextSource, number: number): string {
  const head = `[${number}] ${source.title}${source.url ? ` (${source.url})` : ''}`;
  const sections = source.sections.map((section) => {
    return section.headings === '' ? section.text : `Section: ${section.headings}\n${section.text}`;
  });
  return [head, ...sections].join('\n\n');
}
