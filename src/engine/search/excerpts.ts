/** Chunks as evidence for callers (MCP): heading path, link and text, packed within their budget. */
import { packEvidence, type EvidenceCandidate, type EvidenceRequest, type EvidenceSet } from '../../core/evidence.js';
import { HEADING_SEPARATOR } from '../store/chunks.js';
import type { ChunkHit } from './retriever.js';

export function candidateOf(hit: ChunkHit): EvidenceCandidate {
  return {
    title: hit.title,
    headings: hit.headings === '' ? [] : hit.headings.split(HEADING_SEPARATOR),
    link: hit.url,
    text: hit.body,
  };
}

/** The chunks (best first) within the request's budget; undefined when none was asked for. */
export function evidenceOf(hits: readonly ChunkHit[] | undefined, request: EvidenceRequest | undefined): EvidenceSet | undefined {
  return request === undefined ? undefined : packEvidence((hits ?? []).map(candidateOf), request.tokens);
}
