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
import { HEADING_SEPARATOR } from '../store/chunks.js';
import { openMemoryDatabase, type Db } from '../store/database.js';
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

export class AttachedRetriever extends Retriever {
  readonly #attached: Retriever;
  readonly #memory: Db;
  /** Passages of the attachments, for the rarity weights of the question's words. */
  readonly chunkCount: number;

  /** Indexes the attachments (each a source of its own, numbered by ordinal) beside the knowledge base of `db`. */
  constructor(db: Db, guru: GuruRow, attachments: readonly IndexedAttachment[]) {
    super(db);
    this.#memory = openMemoryDatabase();
    try {
      this.chunkCount = this.#index(guru, attachments);
    } catch (error) {
      this.#memory.close(); // nobody else gets to close it
      throw error;
    }
    this.#attached = new Retriever(this.#memory);
  }

  /** Fills the in-memory index; returns how many passages it holds. */
  #index(guru: GuruRow, attachments: readonly IndexedAttachment[]): number {
    let count = 0;
    this.#memory.transaction(() => {
      this.#memory.prepare('INSERT INTO gurus (id, slug, name, date_created) VALUES (?, ?, ?, ?)').run(guru.id, guru.slug, guru.name, '');
      const insertChunk = this.#memory.prepare(
        'INSERT INTO chunks (source_id, guru_id, position, title, headings, body) VALUES (?, ?, ?, ?, ?, ?)',
      );
      const insertSource = this.#memory.prepare(
        `INSERT INTO data_sources (id, guru_id, type, url, name, title, status, date_created) VALUES (?, ?, ?, ?, ?, ?, 'SUCCESS', '')`,
      );
      for (const attachment of attachments) {
        // Named by its link: file names repeat (app.log in two turns), a source's name may not; the title is what answers cite.
        insertSource.run(attachment.ordinal, guru.id, attachment.kind === 'PDF' ? 'PDF' : 'TEXT', attachment.link, attachment.link, attachment.name);
        const passages = passagesOf(attachment);
        for (const passage of passages) {
          insertChunk.run(attachment.ordinal, guru.id, passage.position, attachment.name, passage.headings.join(HEADING_SEPARATOR), passage.body);
        }
        count += passages.length;
      }
    })();
    return count;
  }

  /** Frees the memory the attachments' index holds. */
  close(): void {
    this.#memory.close();
  }

  /** Both indexes' hits merged by rank: their BM25 scores come from different collections and do not compare. */
  override search(guruId: number, query: TextQuery, options: RetrieveOptions): ChunkHit[] {
    const hits = fuseRanked([super.search(guruId, query, options), this.#attached.search(guruId, query, options).map(outward)], (hit) => hit.chunkId);
    return hits.slice(0, options.limit);
  }

  override chunksAround(sourceId: number, from: number, to: number): ChunkHit[] {
    return sourceId < 0 ? this.#attached.chunksAround(-sourceId, from, to).map(outward) : super.chunksAround(sourceId, from, to);
  }

  override sourceChunkCount(sourceId: number): number {
    return sourceId < 0 ? this.#attached.sourceChunkCount(-sourceId) : super.sourceChunkCount(sourceId);
  }

  override nearby(chunkId: number, radius: number): NearbyChunk[] {
    return chunkId < 0 ? this.#attached.nearby(-chunkId, radius).map(outward) : super.nearby(chunkId, radius);
  }

  override documentFrequency(guruId: number, term: string): number {
    return super.documentFrequency(guruId, term) + this.#attached.documentFrequency(guruId, term);
  }

  override markedChunks(query: TextQuery, chunkIds: readonly number[]): Map<number, MarkedChunk> {
    const { known, attached } = split(chunkIds);
    return new Map([...super.markedChunks(query, known), ...negatedKeys(this.#attached.markedChunks(query, attached))]);
  }

  override highlighted(query: TextQuery, chunkIds: readonly number[]): Map<number, string> {
    const { known, attached } = split(chunkIds);
    return new Map([...super.highlighted(query, known), ...negatedKeys(this.#attached.highlighted(query, attached))]);
  }
}
