/**
 * The PostgreSQL full-text index (15 or newer, no extension): what FTS5's chunks_fts and
 * links_fts hold on SQLite, as plain tables, so that BM25 is computed in SQL exactly as FTS5 does
 * (bench/experiments/pg-bm25/NOTES.md). Runs after the store's own schema: it references
 * `chunks(id)` and `links(id)`, and their rows going (a source replaced or deleted, a guru deleted)
 * take their postings and statistics with them.
 *
 * - `chunk_index`: one row per indexed chunk, with its length in tokens (every token of its
 *   three columns, as FTS5 counts a row's size).
 * - `chunk_terms`: the postings, one row per (term, chunk): `tf` already weighted per column
 *   (2.0 title, 1.5 headings, 1.0 body, as the retriever's bm25() weights), the chunk's length
 *   copied (no join to score), and `spans`, the (column, start, end) of each occurrence in the
 *   column's text (UTF-16 indices) to mark matched words with.
 * - `link_terms`: the same for links' anchor text (one column; spans are (start, end) pairs).
 * - `full_text_stats`: the chunk count and total tokens FTS5 keeps for its averages, as a few
 *   rows that the readers sum: a writer adds to a row no other open transaction holds (SKIP
 *   LOCKED), or a new one, so that concurrent ingestions never wait on each other here.
 *
 * A term's document frequency is not kept: the query counts the postings it reads anyway, so a
 * common word's row is no hot spot for every writer.
 */
export const FULL_TEXT_SCHEMA = `
  CREATE TABLE chunk_index (
    chunk_id bigint PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
    source_id bigint NOT NULL,
    len integer NOT NULL
  );
  CREATE INDEX chunk_index_source ON chunk_index (source_id);

  CREATE TABLE chunk_terms (
    term text COLLATE "C" NOT NULL,
    chunk_id bigint NOT NULL,
    guru_id bigint NOT NULL,
    source_id bigint NOT NULL,
    tf double precision NOT NULL,
    len integer NOT NULL,
    spans integer[] NOT NULL,
    PRIMARY KEY (term, chunk_id)
  );
  CREATE INDEX chunk_terms_chunk ON chunk_terms (chunk_id);

  CREATE TABLE link_terms (
    term text COLLATE "C" NOT NULL,
    link_id bigint NOT NULL REFERENCES links(id) ON DELETE CASCADE,
    guru_id bigint NOT NULL,
    spans integer[] NOT NULL,
    PRIMARY KEY (term, link_id)
  );
  CREATE INDEX link_terms_link ON link_terms (link_id);

  CREATE TABLE full_text_stats (
    shard serial PRIMARY KEY,
    chunks bigint NOT NULL,
    tokens bigint NOT NULL
  );

  -- Adds to the statistics in a row this transaction holds already, else in one no other
  -- transaction holds, else in a new row: never waits for another writer's commit.
  CREATE FUNCTION full_text_count(added_chunks bigint, added_tokens bigint) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    mine integer := nullif(current_setting('guru.full_text_shard', true), '')::integer;
  BEGIN
    IF added_chunks = 0 AND added_tokens = 0 THEN
      RETURN;
    END IF;
    IF mine IS NOT NULL THEN
      UPDATE full_text_stats SET chunks = chunks + added_chunks, tokens = tokens + added_tokens WHERE shard = mine;
      IF FOUND THEN
        RETURN;
      END IF;
    END IF;
    SELECT shard INTO mine FROM full_text_stats ORDER BY random() LIMIT 1 FOR UPDATE SKIP LOCKED;
    IF mine IS NULL THEN
      INSERT INTO full_text_stats (chunks, tokens) VALUES (added_chunks, added_tokens) RETURNING shard INTO mine;
    ELSE
      UPDATE full_text_stats SET chunks = chunks + added_chunks, tokens = tokens + added_tokens WHERE shard = mine;
    END IF;
    PERFORM set_config('guru.full_text_shard', mine::text, true);
  END $$;

  CREATE FUNCTION chunk_index_added() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM full_text_count((SELECT count(*) FROM added), (SELECT coalesce(sum(len), 0) FROM added));
    RETURN NULL;
  END $$;
  CREATE FUNCTION chunk_index_removed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    DELETE FROM chunk_terms WHERE chunk_id IN (SELECT chunk_id FROM removed);
    PERFORM full_text_count(-(SELECT count(*) FROM removed), -(SELECT coalesce(sum(len), 0) FROM removed));
    RETURN NULL;
  END $$;
  CREATE TRIGGER chunk_index_added AFTER INSERT ON chunk_index
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION chunk_index_added();
  CREATE TRIGGER chunk_index_removed AFTER DELETE ON chunk_index
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION chunk_index_removed();
`;

/**
 * Migration 4: postings read from the index alone. A query's postings lie one per chunk across the
 * whole table (a chunk's are written together), so fetching them from the heap read a page for
 * nearly every posting: 1,300 pages for a four-word NFCorpus query, three quarters of its time. The
 * primary key now carries every column the ranking reads, so PostgreSQL answers with an index-only
 * scan of consecutive entries, already in term order for the df count. That needs the visibility
 * map to be current: vacuuming after inserts alone starts at 1 % of the table's rows instead of
 * 20 %, so that freshly ingested postings are not fetched from the heap for long.
 */
export const COVERING_POSTINGS = `
  ALTER TABLE chunk_terms DROP CONSTRAINT chunk_terms_pkey;
  ALTER TABLE chunk_terms ADD CONSTRAINT chunk_terms_pkey PRIMARY KEY (term, chunk_id) INCLUDE (guru_id, source_id, tf, len);
  ALTER TABLE chunk_terms SET (autovacuum_vacuum_insert_scale_factor = 0.01);
`;
