/**
 * Search over a guru's index: lexical (FTS5, BM25) always, fused with vector
 * neighbours when an embeddings provider is configured. The index is written
 * by ingestion; this capability reads it, logs the searches asked, and keeps
 * the vectors of indexed chunks.
 */
import type { Searching, SearchOptions, SearchWithEvidence } from '../../core/assistant.js';
import { SemanticSearchRequest, type SemanticSearchResponse } from '../../core/schemas.js';
import { parseRequest } from '../../core/validate.js';
import { faviconOf } from '../answer/extractive.js';
import { timestamp, type EngineContext } from '../context.js';
import type { LocalGurus } from '../gurus/local-gurus.js';
import { parseLabels } from '../store/sources.js';
import { keyTerms } from '../answer/evidence.js';
import { bestExcerpt, candidateOf, questionWords, saysNothing } from './excerpts.js';
import { withSynonyms } from './synonyms.js';
import { packEvidence } from '../../core/evidence.js';
import { fuseRanked } from './fusion.js';
import { parseQuery } from './query.js';
import { Retriever, type ChunkHit } from './retriever.js';
import { SearchLogRepository, type LoggedSearch } from './search-log.js';
import type { GuruRow } from '../gurus/local-gurus.js';
import { pageOf, type PageWindow, type Paged } from '../store/paging.js';
import { SemanticSearch } from './semantic.js';

/** Vector neighbours fused into a search, and offered to an answer. */
const RELATED_CHUNKS = 50;
const MAX_SEARCH_SOURCES = 10;
/** Chunks searched for the sources' excerpts. */
const EXCERPT_CANDIDATES = 100;
const EMBEDDINGS_RETRY_MS = 60_000;

export class LocalSearch implements Searching {
  readonly retriever: Retriever;
  readonly #context: EngineContext;
  readonly #gurus: LocalGurus;
  readonly #searches: SearchLogRepository;
  /** Resolves to undefined without embeddings; ready once the vector index is open. */
  readonly #semantic: Promise<SemanticSearch | undefined>;

  constructor(context: EngineContext, gurus: LocalGurus) {
    const { sql, logger, settings } = context;
    this.#context = context;
    this.#gurus = gurus;
    this.retriever = new Retriever(sql);
    this.#searches = new SearchLogRepository(sql, logger);
    const embeddings = settings.embeddings;
    // The provider (and its HTTP client) loads only when embeddings are configured.
    this.#semantic = embeddings
      ? import('../../providers/embeddings.js').then(({ EmbeddingsProvider }) =>
          SemanticSearch.open(sql, new EmbeddingsProvider(embeddings), logger),
        )
      : Promise.resolve(undefined);
  }

  async semanticSearch(slug: string, input: SemanticSearchRequest, options: SearchOptions = {}): Promise<SearchWithEvidence> {
    const guru = await this.#gurus.find('semantic_search', slug);
    const request = parseRequest(SemanticSearchRequest, input, 'semantic_search');
    const labels = request.labels ?? [];
    this.#searches.record({
      guruId: guru.id,
      externalUserId: request.external_user_id ?? null,
      query: request.question,
      labels,
      now: timestamp(this.#context),
    });
    const query = parseQuery(request.question);
    const lexical = await this.retriever.searchSources(guru.id, query, { limit: MAX_SEARCH_SOURCES * 2, labels });
    const related = labels.length > 0 ? undefined : await this.relatedChunks(guru.id, request.question);
    const hits = related
      ? await this.retriever.sourcesById(
          fuseRanked(
            [lexical.map((hit) => hit.sourceId), [...new Set(related.map((hit) => hit.sourceId))]],
            (id) => id,
          ).slice(0, MAX_SEARCH_SOURCES),
        )
      : lexical.slice(0, MAX_SEARCH_SOURCES);
    const sources = hits.map((hit) => ({
      title: hit.title,
      link: hit.url,
      display_link: hit.url !== null,
      icon_url: faviconOf(hit.url),
      labels: parseLabels(hit.labels),
    }));
    const response: SemanticSearchResponse = { sources, total_sources: sources.length, search_mode: related ? 'hybrid' : 'lexical' };
    if (options.evidence === undefined) return response;
    // Each source's best passage among its chunks found by words, then by meaning, then its other
    // chunks found: as many as the budget holds, chosen by the question's words they add.
    const [found, chunkCount, frequencies] = await Promise.all([
      this.retriever.search(guru.id, query, { limit: EXCERPT_CANDIDATES, labels }),
      this.indexedChunks(guru.id),
      this.retriever.documentFrequencies(guru.id, query.terms),
    ]);
    const chunks = [...found, ...(related ?? [])];
    const place = new Map(hits.map((hit, source) => [hit.sourceId, source]));
    const firsts = hits.flatMap((hit) => bestExcerpt(chunks.filter((chunk) => chunk.sourceId === hit.sourceId), query.terms) ?? []);
    const taken = new Set(firsts.map((hit) => hit.chunkId));
    const others = chunks.filter((chunk) => place.has(chunk.sourceId) && !taken.has(chunk.chunkId) && !saysNothing(chunk) && (taken.add(chunk.chunkId), true));
    const key = keyTerms(query.terms, chunkCount, (term) => frequencies.get(term) ?? 0);
    const words = questionWords(key.weights, withSynonyms(query).aliases);
    const excerpts = [...firsts, ...others].map((hit) => ({ ...candidateOf(hit, words), source: place.get(hit.sourceId)! }));
    return { ...response, evidence: packEvidence(excerpts, options.evidence.tokens, '', words) };
  }

  /** One page of the end user's logged searches in the guru, oldest first. */
  async endUserSearches(guru: GuruRow, externalUserId: string, window: PageWindow): Promise<Paged<LoggedSearch>> {
    return pageOf(await this.#searches.ofEndUser(guru.id, externalUserId, window.limit + 1, window.offset), window.limit);
  }

  /** Deletes the end user's logged searches in the guru; returns how many there were. */
  eraseEndUserSearches(guru: GuruRow, externalUserId: string): Promise<number> {
    return this.#searches.eraseEndUser(guru.id, externalUserId);
  }

  /** Chunks close in meaning to the text, best first; undefined when search is lexical now. */
  async relatedChunks(guruId: number, text: string): Promise<ChunkHit[] | undefined> {
    const semantic = await this.#semantic;
    const ids = await semantic?.nearestChunks(guruId, text, RELATED_CHUNKS);
    return ids && (await this.retriever.chunksById(ids));
  }

  /** How many chunks the guru's index holds. */
  indexedChunks(guruId: number): Promise<number> {
    return this.retriever.guruChunkCount(guruId);
  }

  /**
   * Checks the embeddings provider and hands `queue` every source that lacks
   * vectors (all of them after a change of model). While the provider is
   * unreachable, search stays lexical and this is tried again every minute,
   * until `signal` says the engine is closing.
   */
  async prepareEmbeddings(queue: (sourceIds: number[]) => Promise<void> | void, signal: AbortSignal): Promise<void> {
    let semantic: SemanticSearch | undefined;
    try {
      semantic = await this.#semantic;
      if (!semantic || signal.aborted) return;
      const sourceIds = await semantic.prepare();
      if (signal.aborted || sourceIds.length === 0) return;
      await queue(sourceIds);
      this.#context.logger.info('embedding sources', { sources: sourceIds.length, model: semantic.model });
    } catch (error) {
      if (signal.aborted) return;
      this.#context.logger.warn('embeddings provider unavailable; searching lexically until it answers', {
        reason: error instanceof Error ? error.message : String(error),
      });
      if (semantic) setTimeout(() => void this.prepareEmbeddings(queue, signal), EMBEDDINGS_RETRY_MS).unref();
    }
  }

  /** Writes the searches not logged yet (before a guru is deleted, so that none is written after it). */
  writePendingSearches(): Promise<void> {
    return this.#searches.writePending();
  }

  async close(): Promise<void> {
    await this.#searches.writePending();
    await (await this.#semantic.catch(() => undefined))?.close();
  }
}
