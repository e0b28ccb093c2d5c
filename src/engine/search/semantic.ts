/**
 * The vector half of hybrid search: chunk embeddings made by the configured
 * provider and kept in the vector index, and the chunks nearest to a question.
 * Whenever the provider fails, search goes on lexically and says so.
 */
import type { Logger } from '../../log.js';
import type { EmbeddingsProvider } from '../../providers/embeddings.js';
import type { Sql } from '../store/sql.js';
import { VectorIndex } from './vectors.js';

export class SemanticSearch {
  readonly #provider: EmbeddingsProvider;
  readonly #vectors: VectorIndex;
  readonly #logger: Logger;
  #dimensions: number | undefined;

  private constructor(provider: EmbeddingsProvider, vectors: VectorIndex, logger: Logger) {
    this.#provider = provider;
    this.#vectors = vectors;
    this.#logger = logger;
  }

  static async open(sql: Sql, provider: EmbeddingsProvider, logger: Logger): Promise<SemanticSearch> {
    return new SemanticSearch(provider, await VectorIndex.open(sql), logger);
  }

  get model(): string {
    return this.#provider.model;
  }

  /**
   * Checks the provider and records its model. Returns the sources whose
   * chunks need vectors: all of them after a change of model (the old vectors
   * cannot be compared with the new), else those indexed while it was away.
   */
  async prepare(signal?: AbortSignal): Promise<number[]> {
    const [probe] = await this.#provider.embed(['dimension probe'], signal);
    this.#dimensions = probe?.length ?? 0;
    const previous = await this.#vectors.model();
    if (await this.#vectors.useModel({ model: this.#provider.model, dimensions: this.#dimensions })) {
      this.#logger.warn('embedding model changed: re-embedding every source', { from: previous?.model, to: this.#provider.model });
    }
    return await this.#vectors.sourcesMissingVectors();
  }

  /** Makes the vectors a source's chunks lack. */
  async embedSource(sourceId: number, signal?: AbortSignal): Promise<void> {
    if (this.#dimensions === undefined) await this.prepare(signal);
    const chunks = await this.#vectors.missingChunks(sourceId);
    if (chunks.length === 0) return;
    const vectors = await this.#provider.embed(
      chunks.map((chunk) => chunk.text),
      signal,
    );
    await this.#vectors.store(new Map(chunks.map((chunk, i) => [chunk.id, vectors[i] as Float32Array])));
  }

  /** Chunk ids nearest to the text, best first; undefined when the provider cannot be asked now. */
  async nearestChunks(guruId: number, text: string, limit: number, signal?: AbortSignal): Promise<number[] | undefined> {
    try {
      const [vector] = await this.#provider.embed([text], signal);
      if (!vector || vector.length !== this.#dimensions) return undefined;
      return (await this.#vectors.nearest(guruId, vector, limit)).map((neighbour) => neighbour.chunkId);
    } catch (error) {
      if (signal?.aborted) throw error;
      this.#logger.warn('embeddings unavailable; searching lexically', { reason: error instanceof Error ? error.message : String(error) });
      return undefined;
    }
  }

  close(): Promise<void> {
    return this.#provider.close();
  }
}
