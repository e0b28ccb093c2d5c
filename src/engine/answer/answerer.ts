/**
 * Retrieve → weigh → judge → compose. Given a question (and, for a follow-up,
 * the question before it), finds the passages that answer it and writes an
 * extractive answer with references and a trust score, or says that the
 * knowledge base does not hold the answer.
 */
import type { Reference } from '../../core/schemas.js';
import { parseQuery, type TextQuery } from '../search/query.js';
import { fuseRanked } from '../search/fusion.js';
import type { ChunkHit, Retriever } from '../search/retriever.js';
import { questionWords, saysNothing } from '../search/excerpts.js';
import type { QuestionWords } from '../../core/evidence.js';
import { withSynonyms, type ExpandedQuery } from '../search/synonyms.js';
import { isLinkList } from '../text/link-lists.js';
import { keyTerms, weighEvidence, type Evidence, type KeyTerms } from './evidence.js';
import { composeExtractive, markedQuote, noAnswer, WORD_BUDGET, type Passage } from './extractive.js';
import { markedTerms } from './marks.js';
import { splitFraming, type FramedQuestion } from './framing.js';
import { asksHow, chooseFocus, quoteWorth, samePageOptions, type FocusOption } from './focus.js';
import { judge, trustScore, type TrustSignals } from './trust.js';

/** Lexical candidates per query: enough that the page about the topic is among them. */
const CANDIDATES = 40;
/** A second page is quoted only when it scores this close to the first. */
const SECOND_SOURCE_FLOOR = 0.5;
/** The best candidates whose pages the trust estimate counts (TrustSignals.concentration). */
const LEADING_CANDIDATES = 10;

/** The question words' weights, each synonym the search added weighing as much as its word. */
function withAliasWeights(weights: ReadonlyMap<string, number>, aliases: ReadonlyMap<string, string>): Map<string, number> {
  const all = new Map(weights);
  for (const [alias, term] of aliases) all.set(alias, weights.get(term) ?? 0);
  return all;
}

/** The quoted hits first, then the others in their order, each chunk once. */
function firstOf(quoted: readonly ChunkHit[], ranked: readonly ChunkHit[]): ChunkHit[] {
  const seen = new Set<number>();
  return [...quoted, ...ranked].filter((hit) => !seen.has(hit.chunkId) && (seen.add(hit.chunkId), true));
}

export interface AnswerDraft {
  readonly content: string;
  readonly references: Reference[];
  readonly trustScore: number;
  /** False when the knowledge base held nothing that answers the question. */
  readonly answered: boolean;
  /** What the trust score was estimated from (answered drafts only). */
  readonly signals?: TrustSignals;
  /** The passages weighed, best first: the one quoted first (evidence for callers; absent when nothing was searched). */
  readonly ranked?: readonly ChunkHit[];
  /** The question's words, weighed, for choosing among `ranked` the passages that add the most. */
  readonly words?: QuestionWords;
}

/** The passage of the best page to quote, with what its quote shows. */
interface Focus {
  readonly hit: ChunkHit;
  readonly passage: Passage;
  /** What the quote shows of the question (focus.ts, quoteWorth). */
  readonly worth: number;
}

/** What the trust score is estimated from: the best passage, the ranking around it and the quote. */
function trustSignals(key: KeyTerms, best: Evidence, evidence: readonly Evidence[], focus: Focus, pageShare: number): TrustSignals {
  const runnerUp = evidence.find((item) => item.hit.sourceId !== best.hit.sourceId);
  const leading = evidence.slice(0, LEADING_CANDIDATES);
  return {
    coverage: best.coverage,
    titleCoverage: best.titleCoverage,
    headingCoverage: best.headingCoverage,
    anchorCoverage: best.anchorCoverage,
    proximity: best.proximity,
    lexical: best.lexical,
    support: best.support,
    runnerUp: runnerUp === undefined || best.score <= 0 ? 0 : runnerUp.score / best.score,
    // Out of ten places, and beyond the page's share of the knowledge: in a knowledge base of a few
    // documents every candidate comes from them, which says nothing of a catch-all page.
    concentration: Math.max(0, leading.filter((item) => item.hit.sourceId === best.hit.sourceId).length / LEADING_CANDIDATES - pageShare),
    quoteWorth: focus.worth,
    questionWords: key.terms.length,
  };
}

export interface QuestionContext {
  readonly guruId: number;
  readonly guruName: string;
  readonly question: string;
  /** The previous question of the same session, for follow-ups. */
  readonly previousQuestion?: string;
}

export interface AnswererOptions {
  /**
   * Takes out of a question the words that point at the files sent with it ("my app log says"):
   * they name the file, not what to find in it (attachments/references.ts).
   */
  readonly withoutFileWords?: (question: string) => string;
}

export class Answerer {
  readonly #retriever: Retriever;
  readonly #chunkCount: (guruId: number) => Promise<number>;
  readonly #withoutFileWords: ((question: string) => string) | undefined;

  constructor(retriever: Retriever, chunkCount: (guruId: number) => Promise<number>, options: AnswererOptions = {}) {
    this.#retriever = retriever;
    this.#chunkCount = chunkCount;
    this.#withoutFileWords = options.withoutFileWords;
  }

  /** `related` are chunks found by meaning (vector search), fused with the word matches. */
  async draft(original: QuestionContext, related: readonly ChunkHit[] = []): Promise<AnswerDraft> {
    const context = this.#withoutPointers(original);
    // The sentence that asks gives the words a passage must hold; the sentences framing it and the
    // question before it are searched alongside, as context.
    const framed = splitFraming(context.question);
    const draft = await this.#draft(context, framed, related);
    // Framing never turns an answer into a decline: when the asking sentence alone finds nothing
    // about its subject ("console.log shows [Object]. How do I print the whole thing?" names it in
    // the framing), the whole question is weighed.
    if (draft.answered || framed.framing === '') return draft;
    return await this.#draft(context, { asks: context.question, framing: '' }, related);
  }

  async #draft(context: QuestionContext, framed: FramedQuestion, related: readonly ChunkHit[]): Promise<AnswerDraft> {
    const own = parseQuery(framed.asks);
    const background = [context.previousQuestion ?? '', framed.framing].filter((text) => text !== '').join(' ');
    const withContext = background === '' ? undefined : parseQuery(`${background} ${context.question}`);
    // A question made only of function words ("and why?") takes its topic from the one before it.
    const asked: TextQuery = own.onlyStopWords && withContext ? withContext : own;
    if (asked.onlyStopWords || asked.match === undefined) return this.#nothing(context);
    // Searched with its words' synonyms too: users ask in everyday words, manuals answer in their own.
    const graded = withSynonyms(asked);

    const queries = [graded, asked === withContext ? undefined : withContext].filter((query) => query !== undefined);
    const lists = await Promise.all(queries.map((query) => this.#retriever.search(context.guruId, query, { limit: CANDIDATES })));
    if (related.length > 0) lists.push([...related]);
    const candidates = fuseRanked(lists, (hit) => hit.chunkId)
      .filter((hit) => !saysNothing(hit))
      .slice(0, CANDIDATES);
    if (candidates.length === 0) return this.#nothing(context);

    const [knowledgeChunks, frequencies] = await Promise.all([
      this.#chunkCount(context.guruId),
      this.#retriever.documentFrequencies(context.guruId, graded.terms),
    ]);
    const key = keyTerms(graded.terms, knowledgeChunks, (term) => frequencies.get(term) ?? 0);
    const evidence = await this.#weigh(context.guruId, candidates, graded, key, related);
    const [best] = evidence;
    const verdict = judge(evidence, key);
    // Declined or not, the passages weighed go to a caller that asked for them: it judges them itself.
    const ranked = evidence.map((item) => item.hit);
    const words = questionWords(key.weights, graded.aliases);
    if (!best || verdict.kind === 'decline') return { ...this.#nothing(context), ranked, words };

    const weights = withAliasWeights(key.weights, graded.aliases);
    const complement = this.#complement(best, evidence, verdict.kind === 'answer' && verdict.strong);
    const others = await Promise.all(complement.map((item) => this.#passage(graded, item.hit)));
    const focus = await this.#focus(context.question, best, evidence, graded, key, weights);
    const { content, references } = composeExtractive([focus.passage, ...others], weights, verdict.kind === 'partial' ? verdict.gap : []);
    const pageShare = (await this.#retriever.sourceChunkCount(best.hit.sourceId)) / Math.max(1, knowledgeChunks);
    const signals = trustSignals(key, best, evidence, focus, pageShare);
    const quoted = [focus.hit, ...complement.map((item) => item.hit)];
    return { content, references, trustScore: trustScore(signals, verdict), answered: true, signals, ranked: firstOf(quoted, ranked), words };
  }

  /**
   * The question and the one before it without the words that point at the files sent with them,
   * unless nothing else is left ("What does this error mean?": then the file's words are the topic).
   */
  #withoutPointers(context: QuestionContext): QuestionContext {
    const strip = this.#withoutFileWords;
    if (strip === undefined) return context;
    const kept = (text: string) => {
      const stripped = strip(text);
      return parseQuery(stripped).onlyStopWords ? text : stripped;
    };
    return {
      ...context,
      question: kept(context.question),
      ...(context.previousQuestion === undefined ? {} : { previousQuestion: kept(context.previousQuestion) }),
    };
  }

  /**
   * The passage of the best page to quote: among the page's close candidates and the sections
   * starting right after them, the one whose quote answers best (see focus.ts).
   */
  async #focus(
    asked: string,
    best: Evidence,
    evidence: readonly Evidence[],
    query: ExpandedQuery,
    key: KeyTerms,
    weights: ReadonlyMap<string, number>,
  ): Promise<Focus> {
    const close = samePageOptions(best, evidence);
    // A section that starts right after a close passage often shows what that one announces.
    const hits = [...close];
    const seen = new Set(close.map((hit) => hit.chunkId));
    const following = await Promise.all(close.map((hit) => this.#retriever.chunksAround(hit.sourceId, hit.position + 1, hit.position + 1)));
    for (const [index, hit] of close.entries()) {
      for (const next of following[index] ?? []) {
        if (next.headings === hit.headings || seen.has(next.chunkId) || isLinkList(next.body)) continue;
        seen.add(next.chunkId);
        hits.push(next);
      }
    }
    const marked = await this.#retriever.markedChunks(
      query,
      hits.map((hit) => hit.chunkId),
    );
    const title = marked.get(best.hit.chunkId)?.title ?? '';
    const question = { key, aliases: query.aliases, inTitle: markedTerms(title, key.terms, query.aliases), how: asksHow(asked) };
    const passages = await Promise.all(hits.map((hit) => this.#passage(query, hit)));
    const options = hits.map((hit, index) => ({ hit, passage: passages[index] as Passage }));
    // The quote is read under its section's heading: words the heading names are shown too.
    const quote = (option: FocusOption) => markedQuote(option.passage, weights, WORD_BUDGET.first).join('\n\n');
    const worth = (option: FocusOption) => quoteWorth(`${marked.get(option.hit.chunkId)?.headings ?? ''}\n\n${quote(option)}`, question);
    const chosen = chooseFocus(options, worth) ?? { hit: best.hit, passage: await this.#passage(query, best.hit) };
    return { hit: chosen.hit, passage: chosen.passage, worth: worth(chosen) };
  }

  async #weigh(guruId: number, candidates: readonly ChunkHit[], query: ExpandedQuery, key: KeyTerms, related: readonly ChunkHit[]): Promise<Evidence[]> {
    const [anchors, marked] = await Promise.all([
      this.#retriever.anchorTexts(guruId, query, [...new Set(candidates.map((hit) => hit.sourceId))]),
      this.#retriever.markedChunks(
        query,
        candidates.map((hit) => hit.chunkId),
      ),
    ]);
    return weighEvidence(candidates, key, {
      anchors,
      marked,
      related: related.map((hit) => hit.chunkId),
      aliases: query.aliases,
    });
  }

  /**
   * Unless the best passage is strong evidence, the best passage of another
   * page too, when it scores close to it: the two most likely pages beat one.
   */
  #complement(best: Evidence, evidence: readonly Evidence[], strong: boolean): Evidence[] {
    if (strong) return [];
    const other = evidence.find((item) => item.hit.sourceId !== best.hit.sourceId && item.score >= best.score * SECOND_SOURCE_FLOOR);
    return other ? [other] : [];
  }

  /** The chunk with its neighbours of the same section, matched words marked. */
  async #passage(query: TextQuery, hit: ChunkHit): Promise<Passage> {
    const around = (await this.#retriever.chunksAround(hit.sourceId, hit.position - 1, hit.position + 1)).filter((chunk) => chunk.headings === hit.headings && (chunk.chunkId === hit.chunkId || !isLinkList(chunk.body)));
    const marked = await this.#retriever.highlighted(
      query,
      around.map((chunk) => chunk.chunkId),
    );
    const text = (chunk: ChunkHit | undefined) => (chunk === undefined ? '' : (marked.get(chunk.chunkId) ?? chunk.body));
    return {
      sourceId: hit.sourceId,
      title: hit.title,
      headings: hit.headings,
      url: hit.url,
      before: text(around.find((chunk) => chunk.position === hit.position - 1)),
      marked: text(around.find((chunk) => chunk.position === hit.position) ?? hit),
      after: text(around.find((chunk) => chunk.position === hit.position + 1)),
    };
  }

  #nothing(context: QuestionContext): AnswerDraft {
    return { ...noAnswer(context.guruName), trustScore: 0, answered: false };
  }
}
