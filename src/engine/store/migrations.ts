/**
 * Numbered schema migrations. Append only: a released migration never changes,
 * a later one alters what it made. `PRAGMA user_version` records the last applied.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Why a store whose schema is newer than this code's migrations is not opened (SQLite and PostgreSQL alike). */
export class NewerSchemaError extends Error {
  constructor(current: number, latest: number) {
    super(`The database was written by a newer guru-mcp (schema ${current}, this version knows ${latest}). Upgrade guru-mcp.`);
  }
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'gurus, keys, sources, chunks, jobs, sessions, questions, searches',
    sql: `
      CREATE TABLE gurus (
        id INTEGER PRIMARY KEY,
        slug TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        date_created TEXT NOT NULL
      );

      -- Keys are kept only as SHA-256 digests; the clear key is shown once at creation.
      CREATE TABLE api_keys (
        id INTEGER PRIMARY KEY,
        guru_id INTEGER NOT NULL REFERENCES gurus(id) ON DELETE CASCADE,
        key_hash TEXT NOT NULL UNIQUE,
        date_created TEXT NOT NULL
      );

      CREATE TABLE data_sources (
        id INTEGER PRIMARY KEY,
        guru_id INTEGER NOT NULL REFERENCES gurus(id) ON DELETE CASCADE,
        type TEXT NOT NULL,
        url TEXT,
        name TEXT,
        title TEXT,
        content TEXT,
        labels TEXT NOT NULL DEFAULT '[]',
        status TEXT NOT NULL DEFAULT 'NOT_PROCESSED'
          CHECK (status IN ('NOT_PROCESSED', 'SUCCESS', 'FAIL')),
        error TEXT NOT NULL DEFAULT '',
        private INTEGER NOT NULL DEFAULT 0,
        date_created TEXT NOT NULL,
        last_reindex_date TEXT,
        reindex_count INTEGER NOT NULL DEFAULT 0
      );
      CREATE UNIQUE INDEX data_sources_guru_url ON data_sources(guru_id, url) WHERE url IS NOT NULL;
      CREATE UNIQUE INDEX data_sources_guru_text_name ON data_sources(guru_id, name) WHERE type = 'TEXT';
      CREATE INDEX data_sources_guru_created ON data_sources(guru_id, id DESC);

      CREATE TABLE chunks (
        id INTEGER PRIMARY KEY,
        source_id INTEGER NOT NULL REFERENCES data_sources(id) ON DELETE CASCADE,
        guru_id INTEGER NOT NULL,
        position INTEGER NOT NULL,
        title TEXT NOT NULL,
        headings TEXT NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX chunks_source ON chunks(source_id, position);
      CREATE INDEX chunks_guru ON chunks(guru_id);

      CREATE VIRTUAL TABLE chunks_fts USING fts5(
        title, headings, body,
        content = 'chunks', content_rowid = 'id',
        tokenize = 'porter unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
        INSERT INTO chunks_fts(rowid, title, headings, body) VALUES (new.id, new.title, new.headings, new.body);
      END;
      CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, title, headings, body)
          VALUES ('delete', old.id, old.title, old.headings, old.body);
      END;

      -- Durable work queue: a row per pending unit of work, leased by one process at a time.
      CREATE TABLE jobs (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        source_id INTEGER NOT NULL REFERENCES data_sources(id) ON DELETE CASCADE,
        attempts INTEGER NOT NULL DEFAULT 0,
        available_at INTEGER NOT NULL,
        lease_owner TEXT,
        lease_expires_at INTEGER,
        created_at INTEGER NOT NULL,
        UNIQUE (kind, source_id)
      );
      CREATE INDEX jobs_available ON jobs(available_at);

      CREATE TABLE binges (
        id TEXT PRIMARY KEY,
        guru_id INTEGER NOT NULL REFERENCES gurus(id) ON DELETE CASCADE,
        external_user_id TEXT,
        date_created TEXT NOT NULL,
        last_used TEXT NOT NULL,
        deleted_at TEXT
      );
      CREATE INDEX binges_guru_last_used ON binges(guru_id, last_used DESC);

      CREATE TABLE questions (
        id INTEGER PRIMARY KEY,
        guru_id INTEGER NOT NULL REFERENCES gurus(id) ON DELETE CASCADE,
        binge_id TEXT NOT NULL REFERENCES binges(id) ON DELETE CASCADE,
        parent_id INTEGER REFERENCES questions(id) ON DELETE SET NULL,
        slug TEXT NOT NULL,
        user_question TEXT NOT NULL,
        question TEXT NOT NULL,
        content TEXT NOT NULL,
        trust_score INTEGER NOT NULL,
        references_json TEXT NOT NULL,
        can_receive_feedback INTEGER NOT NULL,
        attachment_note TEXT,
        source TEXT NOT NULL,
        external_user_id TEXT,
        user_vote TEXT,
        date_created TEXT NOT NULL,
        date_updated TEXT NOT NULL,
        UNIQUE (guru_id, slug)
      );
      CREATE INDEX questions_binge ON questions(binge_id, id);
      CREATE INDEX questions_guru_question ON questions(guru_id, question);

      CREATE TABLE searches (
        id INTEGER PRIMARY KEY,
        guru_id INTEGER NOT NULL REFERENCES gurus(id) ON DELETE CASCADE,
        external_user_id TEXT,
        query TEXT NOT NULL,
        selected_labels TEXT NOT NULL,
        date_created TEXT NOT NULL
      );
      CREATE INDEX searches_user ON searches(guru_id, external_user_id, id);
    `,
  },
  {
    version: 2,
    name: 'integrations, per-host jobs',
    sql: `
      -- Credentials of a guru's Jira, Zendesk and Confluence. The token is sealed with the data
      -- directory's secret key (AES-256-GCM), so a copy of the database alone does not reveal it.
      CREATE TABLE integrations (
        guru_id INTEGER NOT NULL REFERENCES gurus(id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('JIRA', 'ZENDESK', 'CONFLUENCE')),
        base_url TEXT NOT NULL,
        email TEXT,
        sealed_token BLOB NOT NULL,
        date_created TEXT NOT NULL,
        PRIMARY KEY (guru_id, kind)
      );

      -- The host a job fetches from, so that one site is never sent too many requests at once.
      ALTER TABLE jobs ADD COLUMN host TEXT;
    `,
  },
  {
    version: 3,
    name: 'chunk vectors',
    sql: `
      -- Plain rows rather than a vec0 table: they go with their chunk (ON DELETE CASCADE), so a
      -- process without the sqlite-vec extension loaded can still replace a source's chunks.
      CREATE TABLE chunk_vectors (
        chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
        embedding BLOB NOT NULL
      );
      -- The model all stored vectors were made with; another model means starting over.
      CREATE TABLE embedding_model (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        model TEXT NOT NULL,
        dimensions INTEGER NOT NULL
      );
    `,
  },
  {
    version: 4,
    name: 'crawls',
    sql: `
      -- Website crawls. The process running one holds a lease, so that a crawl left RUNNING by a
      -- process that died is told apart from one still under way in another process.
      CREATE TABLE crawls (
        id INTEGER PRIMARY KEY,
        guru_id INTEGER NOT NULL REFERENCES gurus(id) ON DELETE CASCADE,
        url TEXT NOT NULL,
        ignore_query_params INTEGER NOT NULL,
        link_limit INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('RUNNING', 'COMPLETED', 'STOPPED', 'FAILED')),
        error_message TEXT,
        start_time TEXT NOT NULL,
        end_time TEXT,
        lease_owner TEXT,
        lease_expires_at INTEGER,
        CHECK ((status = 'RUNNING') = (end_time IS NULL))
      );
      -- At most one running crawl per guru, whichever process starts it.
      CREATE UNIQUE INDEX crawls_one_running ON crawls(guru_id) WHERE status = 'RUNNING';

      -- Pages a crawl found, in the order it found them.
      CREATE TABLE crawl_urls (
        crawl_id INTEGER NOT NULL REFERENCES crawls(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        url TEXT NOT NULL,
        PRIMARY KEY (crawl_id, position)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 5,
    name: 'vote feedback',
    sql: `
      -- What the end user wrote with their vote (user_vote), and when they voted.
      ALTER TABLE questions ADD COLUMN vote_feedback TEXT;
      ALTER TABLE questions ADD COLUMN voted_at TEXT;
    `,
  },
  {
    version: 6,
    name: 'follow-up examples',
    sql: `
      -- The follow-up questions suggested after an answer, made once and then served as stored.
      CREATE TABLE follow_up_examples (
        question_id INTEGER PRIMARY KEY REFERENCES questions(id) ON DELETE CASCADE,
        examples_json TEXT NOT NULL,
        date_created TEXT NOT NULL
      );
    `,
  },
  {
    version: 7,
    name: 'end users',
    sql: `
      -- Everything held about one end user of a guru is found (and erased) through their sessions.
      CREATE INDEX binges_guru_user ON binges(guru_id, external_user_id) WHERE external_user_id IS NOT NULL;
    `,
  },
  {
    version: 8,
    name: 'speech provider per guru',
    sql: `
      -- Gurus the operator lets speak through the speech provider (text-to-speech version 2).
      CREATE TABLE speech_provider_gurus (
        guru_id INTEGER PRIMARY KEY REFERENCES gurus(id) ON DELETE CASCADE,
        enabled_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 9,
    name: 'guru settings',
    sql: `
      -- What the operator set for a guru, as a JSON object of the fields set (the rest are defaults).
      CREATE TABLE guru_settings (
        guru_id INTEGER PRIMARY KEY REFERENCES gurus(id) ON DELETE CASCADE,
        settings_json TEXT NOT NULL,
        date_updated TEXT NOT NULL
      );
      INSERT INTO guru_settings (guru_id, settings_json, date_updated)
        SELECT guru_id, '{"speech_provider":true}', enabled_at FROM speech_provider_gurus;
      DROP TABLE speech_provider_gurus;
    `,
  },
  {
    version: 11,
    name: 'question attachments',
    sql: `
      -- The text of the log files and PDFs a question carried (PDFs as the Markdown extracted from
      -- them, not the file): context for that question and the later turns of its session. They go
      -- with their question, so deleting a session or erasing an end user removes them too.
      CREATE TABLE question_attachments (
        id INTEGER PRIMARY KEY,
        question_id INTEGER NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
        binge_id TEXT NOT NULL,
        -- n of guru://<guru>/sessions/<session>/attachments/<n>: 1, 2, … within the session.
        ordinal INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('LOG', 'PDF')),
        name TEXT NOT NULL,
        text TEXT NOT NULL,
        date_created TEXT NOT NULL,
        UNIQUE (binge_id, ordinal)
      );
      CREATE INDEX question_attachments_question ON question_attachments(question_id);
    `,
  },
  {
    version: 12,
    name: 'attachment numbers taken per session',
    sql: `
      -- The last n a question of the session took for its attachments. Numbers are taken from it
      -- (one UPDATE … RETURNING) when the files are read, before the answer links them, so that
      -- two questions asked at the same moment in one session never link the same n.
      ALTER TABLE binges ADD COLUMN attachments_numbered INTEGER NOT NULL DEFAULT 0;
      UPDATE binges SET attachments_numbered = (SELECT coalesce(max(ordinal), 0) FROM question_attachments a WHERE a.binge_id = binges.id);
    `,
  },
  {
    version: 13,
    name: 'links between sources, for their anchor text',
    sql: `
      -- The links a source's text makes to other pages, by the words they are made with: what
      -- other pages call a page is evidence of what it is about (answers weigh it). Sources stored
      -- before this version have none until they are indexed again.
      CREATE TABLE links (
        id INTEGER PRIMARY KEY,
        guru_id INTEGER NOT NULL,
        source_id INTEGER NOT NULL REFERENCES data_sources(id) ON DELETE CASCADE,
        target TEXT NOT NULL,
        text TEXT NOT NULL
      );
      -- Covers counting the pages that make a link with the same words (menus are left out).
      CREATE INDEX links_target ON links(guru_id, target, text COLLATE NOCASE, source_id);
      CREATE INDEX links_source ON links(source_id);
      CREATE VIRTUAL TABLE links_fts USING fts5(
        text,
        content = 'links', content_rowid = 'id',
        tokenize = 'porter unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER links_ai AFTER INSERT ON links BEGIN
        INSERT INTO links_fts(rowid, text) VALUES (new.id, new.text);
      END;
      CREATE TRIGGER links_ad AFTER DELETE ON links BEGIN
        INSERT INTO links_fts(links_fts, rowid, text) VALUES ('delete', old.id, old.text);
      END;
    `,
  },
  {
    version: 14,
    name: 'the private-network permission of whoever queued a job',
    sql: `
      -- 1 when the process that queued the job may reach loopback and private addresses
      -- (GURU_ALLOW_PRIVATE_NETWORK). The process that does the job reaches them only when it may
      -- too: the stricter of the two, so that where work is done never widens what was allowed.
      -- Jobs queued before this version count as queued without it.
      ALTER TABLE jobs ADD COLUMN private_network INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 15,
    name: 'ids never given out twice',
    sql: `
      -- The highest id a deleted source or guru had. New rows are numbered above it (SQLite would
      -- give the highest id out again), so that an id once given out never names another source:
      -- not for a client that kept it, nor for a job still reading the deleted source.
      CREATE TABLE retired_ids (
        tbl TEXT PRIMARY KEY,
        max_id INTEGER NOT NULL
      );
      CREATE TRIGGER data_sources_retire AFTER DELETE ON data_sources BEGIN
        INSERT INTO retired_ids (tbl, max_id) VALUES ('data_sources', old.id)
          ON CONFLICT (tbl) DO UPDATE SET max_id = max(max_id, excluded.max_id);
      END;
      CREATE TRIGGER gurus_retire AFTER DELETE ON gurus BEGIN
        INSERT INTO retired_ids (tbl, max_id) VALUES ('gurus', old.id)
          ON CONFLICT (tbl) DO UPDATE SET max_id = max(max_id, excluded.max_id);
      END;
    `,
  },
];
