/**
 * The knowledge base and a question's attachments, searched as one. The attachments' passages are
 * indexed in a database of their own that lives in memory for the one question (the engine's
 * schema, so the search, ranking and highlighting are the knowledge base's own); this retriever
 * merges what the two find. Attachment chunks and sources carry negative ids, so the two id
 * spaces never meet.
 */
import type { GuruRow } from '../gurus/local-gurus.js';
import { Retriever, type ChunkHit, type MarkedChunk, type NearbyChunk, type RetrieveOptions } from '../search/retriever.js';
import type { TextQuery } from '../search/query.js';
import { ChunkRepository } from '../store/chunks.js';
import { openMemoryDatabase } from '../store/database.js';
import { SqliteSql } from '../store/sqlite-sql.js';
import type { Sql } from '../store/sql.js';
import { passagesOf, type TextAttachment } from './passages.js';
import { fuseRanked } from '../search/fusion.js';

/** An attachment in the question's context, with the link its references carry. */
export interface IndexedAttachment extends TextAttachment {
  /** Its number within the session (the n of its guru:// link). */
  readonly ordinal: number;
  readonly link: string;
}

const outward = <Hit extends ChunkHit>(hit: Hit): Hit => ({ ...hit, chunkId: -hit.chunkId, sourceId: -hit.sourceId });

const split = (ids: readonly number[]) => ({ known: ids.filter((id) => id > 0), attached: ids.filter((id) => id < 0).map((id) => -id) });

function negatedKeys<Value>(map: ReadonlyMap<number, Value>): Map<number, Value> {
  return new Map([...map].map(([id, value]) => [-id, value]));
}

const INSERT_GURU = 'INSERT INTO gurus (id, slug, name, date_created) VALUES (?, ?, ?, ?)';

const INSERT_SOURCE = `INSERT INTO data_sources (id, guru_id, type, url, name, title, status, date_created) VALUES (?, ?, ?, ?, ?, ?, 'SUCCESS', '')`;

export class AttachedRetriever extends Retriever {
  readonly #attached: Retriever;
  /** The attachments' index: an SQLite database in memory, whatever the store is. */
  readonly #memory: SqliteSql;
  /** Passages of the attachments, for the rarity weights of the question's words. */
  readonly chunkCount: number;

  private constructor(sql: Sql, memory: SqliteSql, chunkCount: number) {
    super(sql);
    this.#memory = memory;
    this.chunkCount = chunkCount;
    this.#attached = new Retriever(memory);
  }

  /** Indexes the attachments (each a source of its own, numbered by ordinal) beside the knowledge base of `sql`. */
  static async open(sql: Sql, guru: GuruRow, attachments: readonly IndexedAttachment[]): Promise<AttachedRetriever> {
    const memory = new SqliteSql(openMemoryDatabase());
    try {
      return new AttachedRetriever(sql, memory, await AttachedRetriever.#index(memory, guru, attachments));
    } catch (error) {
      await memory.close(); // nobody else gets to close it
      throw error;
    }
  }

  /** Fills the in-memory index; returns how many passages it holds. */
  static #index(memory: SqliteSql, guru: GuruRow, attachments: readonly IndexedAttachment[]): Promise<number> {
    return memory.transaction(async (tx) => {
      const chunks = new ChunkRepository(tx);
      let count = 0;
      await tx.run(INSERT_GURU, [guru.id, guru.slug, guru.name, '']);
      for (const attachment of attachments) {
        // Named by its link: file names repeat (app.log in two turns), a source's name may not; the title is what answers cite.
        await tx.run(INSERT_SOURCE, [attachment.ordinal, guru.id, attachment.kind === 'PDF' ? 'PDF' : 'TEXT', attachment.link, attachment.link, attachment.name]);
        const passages = passagesOf(attachment);
        await chunks.replace(attachment.ordinal, guru.id, attachment.name, passages);
        count += passages.length;
      }
      return count;
    });
  }

  /** Frees the memory the attachments' index holds. */
  close(): void {
    void this.#memory.close();
  }

  /** Both indexes' hits merged by rank: their BM25 scores come from different collections and do not compare. */
  override async search(guruId: number, query: TextQuery, options: RetrieveOptions): Promise<ChunkHit[]> {
    const [known, attached] = await Promise.all([super.search(guruId, query, options), this.#attached.search(guruId, query, options)]);
    return fuseRanked([known, attached.map(outward)], (hit) => hit.chunkId).slice(0, options.limit);
  }

  override async chunksAround(sourceId: number, from: number, to: number): Promise<ChunkHit[]> {
    return sourceId < 0 ? (await this.#attached.chunksAround(-sourceId, from, to)).map(outward) : super.chunksAround(sourceId, from, to);
  }

  override sourceChunkCount(sourceId: number): Promise<number> {
    return sourceId < 0 ? this.#attached.sourceChunkCount(-sourceId) : super.sourceChunkCount(sourceId);
  }

  override async nearby(chunkId: number, radius: number): Promise<NearbyChunk[]> {
    return chunkId < 0 ? (await this.#attached.nearby(-chunkId, radius)).map(outward) : super.nearby(chunkId, radius);
  }

  override async documentFrequencies(guruId: number, terms: readonly string[]): Promise<Map<string, number>> {
    const [known, attached] = await Promise.all([super.documentFrequencies(guruId, terms), this.#attached.documentFrequencies(guruId, terms)]);
    return new Map(terms.map((term) => [term, (known.get(term) ?? 0) + (attached.get(term) ?? 0)]));
  }

  override async markedChunks(query: TextQuery, chunkIds: readonly number[]): Promise<Map<number, MarkedChunk>> {
    const { known, attached } = split(chunkIds);
    const [ofKnown, ofAttached] = await Promise.all([super.markedChunks(query, known), this.#attached.markedChunks(query, attached)]);
    return new Map([...ofKnown, ...negatedKeys(ofAttached)]);
  }

  override async highlighted(query: TextQuery, chunkIds: readonly number[]): Promise<Map<number, string>> {
    const { known, attached } = split(chunkIds);
    const [ofKnown, ofAttached] = await Promise.all([super.highlighted(query, known), this.#attached.highlighted(query, attached)]);
    return new Map([...ofKnown, ...negatedKeys(ofAttached)]);
  }
}
