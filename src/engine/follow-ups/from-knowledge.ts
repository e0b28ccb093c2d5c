/**
 * Follow-up examples without a language model, built from the knowledge
 * around the passages an answer drew on: first the sections next to them in the
 * same documents, then the other sections of those documents that the question
 * touched and the answer left out (in a knowledge base of one document, they
 * are all there is), then those of the rest of the knowledge base; only where
 * the session has not been yet. Lists of links (an index, a table of contents)
 * are never one. Each is asked as a question of its heading, and kept only when
 * that question finds its section again (so the guru can answer it).
 */
import type { Reference } from '../../core/schemas.js';
import { parseQuery } from '../search/query.js';
import type { ChunkHit, Retriever } from '../search/retriever.js';
import { isLinkList } from '../text/link-lists.js';
import { questionAbout } from './phrasing.js';

const MAX_FOLLOW_UPS = 3;
/** Passages of the cited sources taken as what the answer drew on. */
const CITED_PASSAGES = 6;
/** How far from a cited passage a neighbouring section may lie, in chunks. */
const NEIGHBOUR_RADIUS = 2;
/** A suggestion is kept when its section is among this many best hits of the question itself. */
const ANSWERABLE_WITHIN = 3;
/** A section counts as covered when this share of its words already came up in the session. */
const COVERED_SHARE = 0.6;

/** A question of the session and the answer it got. */
export interface AnsweredTurn {
  readonly question: string;
  readonly content: string;
  readonly references: readonly Reference[];
}

const SIGNIFICANT_WORD = /[\p{L}\p{N}]{4,}/gu;
const wordsOf = (text: string): Set<string> => new Set(text.toLowerCase().match(SIGNIFICANT_WORD) ?? []);
const sameQuestion = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * Up to MAX_FOLLOW_UPS questions after `turn`, the last of `session` (its
 * earlier turns come first); none when the answer cited nothing.
 */
export async function suggestFromKnowledge(retriever: Retriever, guruId: number, turn: AnsweredTurn, session: readonly AnsweredTurn[]): Promise<string[]> {
  if (turn.references.length === 0) return [];
  const { drawnOn, samePages, elsewhere } = await passagesOf(retriever, guruId, turn, session);
  const sessionWords = wordsOf(session.map((earlier) => `${earlier.question}\n${earlier.content}`).join('\n'));
  const seen = new Set(drawnOn.map(sectionOf));
  const asked = session.map((earlier) => earlier.question);

  const examples: string[] = [];
  const nearby = (await Promise.all(drawnOn.map((passage) => retriever.nearby(passage.chunkId, NEIGHBOUR_RADIUS)))).flat();
  for (const candidate of [...nearby, ...samePages, ...elsewhere]) {
    if (examples.length === MAX_FOLLOW_UPS) break;
    const section = sectionOf(candidate);
    if (seen.has(section)) continue;
    seen.add(section);
    if (isLinkList(candidate.body) || covered(candidate, sessionWords)) continue;
    const question = questionAbout(candidate.headings);
    if (question === undefined || [...asked, ...examples].some((other) => sameQuestion(other, question))) continue;
    if (await answerable(retriever, guruId, question, candidate)) examples.push(question);
  }
  return examples;
}

/** One section of one document (a long section may span several chunks). */
const sectionOf = (chunk: ChunkHit): string => `${chunk.sourceId}\0${chunk.headings}`;

/**
 * The best passages for the question as it was answered (after the one before
 * it): of the sources the answer cited, those it drew on (their words are in the
 * answer; else the best one) and the others; then those of other sources.
 */
async function passagesOf(retriever: Retriever, guruId: number, turn: AnsweredTurn, session: readonly AnsweredTurn[]) {
  const previous = session.at(-2);
  const query = parseQuery(previous ? `${previous.question}\n${turn.question}` : turn.question);
  const citedBy = (hit: ChunkHit) =>
    turn.references.some((reference) => (reference.link !== '' ? reference.link === hit.url : reference.title === hit.title));
  const hits = (await retriever.search(guruId, query, { limit: 4 * CITED_PASSAGES })).filter((hit) => !isLinkList(hit.body));
  const cited = hits.filter(citedBy).slice(0, CITED_PASSAGES);
  // A generated answer says it in its own words: then the best passage of a cited source stands for what it drew on.
  const answerWords = wordsOf(turn.content);
  const quoted = cited.filter((hit) => covered(hit, answerWords));
  const drawnOn = quoted.length > 0 ? quoted : cited.slice(0, 1);
  return { drawnOn, samePages: cited.filter((hit) => !drawnOn.includes(hit)), elsewhere: hits.filter((hit) => !citedBy(hit)) };
}

function covered(chunk: ChunkHit, sessionWords: ReadonlySet<string>): boolean {
  const words = wordsOf(chunk.body);
  if (words.size === 0) return true;
  let seen = 0;
  for (const word of words) if (sessionWords.has(word)) seen++;
  return seen / words.size >= COVERED_SHARE;
}

/** Whether asking `question` finds the section it was made from. */
async function answerable(retriever: Retriever, guruId: number, question: string, section: ChunkHit): Promise<boolean> {
  return (await retriever.search(guruId, parseQuery(question), { limit: 2 * ANSWERABLE_WITHIN }))
    .filter((hit) => !isLinkList(hit.body))
    .slice(0, ANSWERABLE_WITHIN)
    .some((hit) => hit.chunkId === section.chunkId || (hit.sourceId === section.sourceId && hit.headings === section.headings));
}
