/** Chunks as evidence for callers (MCP): heading path, link and text, packed within their budget. */
import { packEvidence, type EvidenceCandidate, type EvidenceRequest, type EvidenceSet } from '../../core/evidence.js';
import { HEADING_SEPARATOR } from '../store/chunks.js';
import { isLinkList } from '../text/link-lists.js';
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

export function candidateOf(hit: ChunkHit): EvidenceCandidate {
  return {
    title: hit.title,
    headings: hit.headings === '' ? [] : hit.headings.split(HEADING_SEPARATOR),
    link: hit.url,
    text: hit.body,
  };
}

/**
 * The chunks (best first) within the request's budget, less the sentences `given` holds (the answer
 * they come with); undefined when none was asked for.
 */
export function evidenceOf(hits: readonly ChunkHit[] | undefined, request: EvidenceRequest | undefined, given = ''): EvidenceSet | undefined {
  return request === undefined ? undefined : packEvidence((hits ?? []).map(candidateOf), request.tokens, given);
}
