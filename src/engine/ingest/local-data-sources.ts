/**
 * Data sources: URLs, texts and uploaded documents added to a guru, listed,
 * and re-indexed. Adding one stores it and queues a durable job; the
 * processor reads and indexes it in the background.
 */
import type { DataSourcePage, DataSources, GuruAdmin, UploadFile, UploadOptions } from '../../core/assistant.js';
import { Errors } from '../../core/errors.js';
import {
  CreateDataSourcesRequest,
  DeleteDataSourcesRequest,
  ListDataSourcesQuery,
  ReindexRequest,
  type CreatedDataSource,
  type DocumentType,
  type MessageResponse,
  type TextSourceInput,
  type UploadedDocument,
} from '../../core/schemas.js';
import { parseRequest } from '../../core/validate.js';
import { literalAddress, refusalMessage, restrictedKind } from '../../net/address-policy.js';
import type { HttpFetcher } from '../../net/http-fetcher.js';
import { timestamp, type EngineContext } from '../context.js';
import type { GuruRow, LocalGurus } from '../gurus/local-gurus.js';
import { storeClock, type StoreClock } from '../store/clock.js';
import { JobRepository, type JobQueueSettings, type QueuedSource } from '../store/jobs.js';
import { SourceRepository, toListedSource, type NewDocumentSource, type SourceRow } from '../store/sources.js';
import type { Sql } from '../store/sql.js';
import { emptyLog } from '../store/sqlite-sql.js';
import { fullTextOf } from '../search/retriever.js';
import type { FileKind } from './files.js';
import type { LocalIntegrations } from './local-integrations.js';
import { SourceReading } from './reading.js';
import { canonicalUrls, SOURCE_LIMITS, URL_KIND_TYPES, URL_KINDS, type UrlSourcePlan } from './url-sources.js';
import { IngestionWriter } from './writer/writer.js';

/** Upload limits: documents bigger than this are refused rather than read into memory. */
const MAX_DOCUMENT_BYTES = 50 * 1024 * 1024;

const DOCUMENT_LABELS: Record<DocumentType, string> = { PDF: 'PDF', WORD: 'Word', EXCEL: 'Excel' };

/** Labels of a new source: its type label first, then the caller's, without repeats (ignoring case). */
function sourceLabels(typeLabel: string, extra: readonly string[] = []): string[] {
  const seen = new Set<string>();
  return [typeLabel, ...extra.map((label) => label.trim())].filter((label) => {
    const key = label.toLowerCase();
    if (label === '' || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The repositories of data sources and their jobs, on one handle: the store, or a transaction of it. */
interface Stores {
  readonly sources: SourceRepository;
  readonly jobs: JobRepository;
}

export class LocalDataSources implements DataSources, Pick<GuruAdmin, 'uploadDocuments'> {
  readonly #context: EngineContext;
  readonly #gurus: LocalGurus;
  readonly #integrations: LocalIntegrations;
  /** Jobs carry this process's permission: whichever process reads the source may not reach further. */
  readonly #queue: JobQueueSettings;
  readonly #sources: SourceRepository;
  readonly #jobs: JobRepository;
  /** When queued work becomes available: this machine's clock on SQLite, the database's on PostgreSQL. */
  readonly #clock: StoreClock;
  readonly #reading: SourceReading;
  /** Reads and indexes the queued sources, in a thread of its own. */
  readonly #writer: IngestionWriter;

  constructor(context: EngineContext, gurus: LocalGurus, integrations: LocalIntegrations) {
    const { sql, logger, settings } = context;
    this.#context = context;
    this.#gurus = gurus;
    this.#integrations = integrations;
    const privateNetwork = settings.allowPrivateNetwork ?? false;
    this.#queue = { privateNetwork };
    this.#sources = new SourceRepository(sql);
    this.#jobs = new JobRepository(sql, this.#queue);
    this.#clock = storeClock(sql);
    this.#reading = new SourceReading(
      {
        allowPrivateNetwork: privateNetwork,
        ...(settings.youtubeBaseUrl === undefined ? {} : { youtubeBaseUrl: settings.youtubeBaseUrl }),
        ...(settings.extraction === undefined ? {} : { extraction: settings.extraction }),
      },
      (guruId, kind) => integrations.credentials(guruId, kind),
    );
    this.#writer = new IngestionWriter(
      {
        dataDir: settings.dataDir,
        ...(settings.databaseUrl === undefined ? {} : { databaseUrl: settings.databaseUrl }),
        allowPrivateNetwork: privateNetwork,
        ...(settings.youtubeBaseUrl === undefined ? {} : { youtubeBaseUrl: settings.youtubeBaseUrl }),
        ...(settings.extraction === undefined ? {} : { extraction: settings.extraction }),
        ...(settings.processing === undefined ? {} : { processing: settings.processing }),
        ...(settings.embeddings === undefined ? {} : { embeddings: settings.embeddings }),
      },
      this.#jobs,
      logger,
    );
  }

  async createDataSources(slug: string, input: CreateDataSourcesRequest): Promise<CreatedDataSource[]> {
    const guru = await this.#gurus.find('create_sources', slug);
    const request = parseRequest(CreateDataSourcesRequest, input, 'create_sources');
    const planned = await this.#planUrlSources(guru, request);
    const texts = await this.#readTexts(request.text_sources ?? []);
    const now = timestamp(this.#context);
    // The clock's offset measured now if due, not inside the transaction (its queue times use current()).
    await this.#clock.now();
    const created = await this.#context.sql.transaction(async (tx) => {
      const stores = this.#storesOn(tx);
      const results: CreatedDataSource[] = [];
      // One read for every URL; a URL sent twice is there the second time.
      const held = await stores.sources.findByUrls(guru.id, planned.map((plan) => plan.url));
      const queued: QueuedSource[] = [];
      for (const plan of planned) {
        const existing = held.get(plan.url);
        if (existing) {
          results.push({ type: plan.created, url: plan.url, status: 'exists', id: existing.id, title: existing.title });
          continue;
        }
        const row = await stores.sources.insertUrl({ guruId: guru.id, type: plan.type, url: plan.url, labels: sourceLabels(plan.created, request.labels), now });
        held.set(plan.url, row);
        queued.push({ id: row.id, host: plan.host });
        results.push({ type: plan.created, url: plan.url, status: 'success', id: row.id, title: row.title });
      }
      await stores.jobs.enqueue('process_source', queued, this.#clock.current());
      for (const { name, content, error } of texts) {
        const { row, status } = await this.#store(stores, { guruId: guru.id, type: 'TEXT', name, title: name, content, labels: sourceLabels('Text', request.labels), now }, error);
        results.push({ type: 'Text', status, id: row.id, title: row.title, content: row.content ?? content });
      }
      return results;
    });
    this.#writer.kick();
    return created;
  }

  /**
   * Checks every URL of a request before anything is stored: its shape, the
   * guru's integration for its kind, and the guru's limit per kind. One bad
   * item refuses the whole request, naming it.
   */
  async #planUrlSources(guru: GuruRow, request: CreateDataSourcesRequest): Promise<UrlSourcePlan[]> {
    const plans: UrlSourcePlan[] = [];
    for (const kind of URL_KINDS) {
      const urls = request[kind] ?? [];
      if (urls.length === 0) continue;
      const { type, created } = URL_KIND_TYPES[kind];
      if (type === 'JIRA' || type === 'ZENDESK' || type === 'CONFLUENCE') await this.#integrations.require(guru, type, created);
      const canonical = await canonicalUrls(kind, urls);
      const known = await this.#sources.findByUrls(guru.id, canonical);
      const fresh = new Set(canonical.filter((url) => !known.has(url)));
      const limit = SOURCE_LIMITS[type];
      const held = await this.#sources.countOfType(guru.id, type);
      if (held + fresh.size > limit) {
        throw Errors.invalidRequest(
          'create_sources',
          `${kind}: the guru holds ${held} ${created} sources and may hold at most ${limit}; ${fresh.size} more would exceed that.`,
        );
      }
      for (const url of canonical) {
        this.#checkReachable(kind, url);
        plans.push({ type, created, url, host: new URL(url).host });
      }
    }
    return plans;
  }

  /**
   * Refuses, before anything is stored, a URL this process could not fetch for its address: an IP
   * address or a `localhost` name that is not public, without GURU_ALLOW_PRIVATE_NETWORK (as a
   * crawl's start fails). Names that resolve to such addresses, and redirects to them, are refused
   * when the source is read: its job carries this process's permission (JobRepository.enqueue).
   */
  #checkReachable(kind: string, url: string): void {
    if (this.#context.settings.allowPrivateNetwork === true) return;
    const { hostname } = new URL(url);
    const address = literalAddress(hostname);
    let refusal: string | undefined;
    if (address !== undefined) {
      const found = restrictedKind(address);
      if (found !== undefined) refusal = refusalMessage(address, found);
    } else if (/(^|\.)localhost\.?$/i.test(hostname)) {
      refusal = refusalMessage(hostname, 'loopback');
    }
    if (refusal !== undefined) throw Errors.invalidRequest('create_sources', `${kind}: ${url}: ${refusal}`);
  }

  async reindexDataSources(slug: string, input: ReindexRequest): Promise<MessageResponse> {
    const guru = await this.#gurus.find('reindex_sources', slug);
    const request = parseRequest(ReindexRequest, input, 'reindex_sources');
    const ids = [...new Set(request.ids)];
    const found = await this.#sources.getMany(ids);
    const missing = ids.filter((id) => found.get(id)?.guru_id !== guru.id);
    if (missing.length > 0) throw Errors.invalidRequest('reindex_sources', `no data source with id ${missing.join(', ')} in this guru`);
    const rows = ids.map((id) => found.get(id) as SourceRow);
    const now = timestamp(this.#context);
    const queuedAt = await this.#clock.now();
    await this.#context.sql.transaction(async (tx) => {
      const { sources, jobs } = this.#storesOn(tx);
      await sources.markForReindex(rows.map((row) => row.id), now);
      await jobs.enqueue(
        'process_source',
        rows.map((row) => ({ id: row.id, host: row.url === null ? null : new URL(row.url).host })),
        queuedAt,
      );
    });
    this.#writer.kick();
    return { msg: `Reindexing ${ids.length} data source${ids.length === 1 ? '' : 's'}` };
  }

  /**
   * Deletes the guru's sources of these ids; other ids are passed over. Their jobs go with them
   * (ON DELETE CASCADE), so a read under way in the writer thread finds its claim gone and keeps
   * nothing (processor.ts, #index). Their words leave the full-text index (FullText.forgetDeleted)
   * and, on SQLite, the write-ahead log is emptied into the file afterwards (emptyLog).
   */
  async deleteDataSources(slug: string, input: DeleteDataSourcesRequest): Promise<MessageResponse> {
    const guru = await this.#gurus.find('delete_sources', slug);
    const request = parseRequest(DeleteDataSourcesRequest, input, 'delete_sources');
    const ids = [...new Set(request.ids)];
    const deleted = await this.#context.sql.transaction(async (tx) => {
      const removed = await new SourceRepository(tx).delete(guru.id, ids);
      await fullTextOf(tx).forgetDeleted();
      return removed;
    });
    emptyLog(this.#context.sql);
    this.#context.logger.info('data sources deleted', { guru: guru.slug, requested: ids.length, deleted: deleted.length });
    return { msg: 'Data sources deleted successfully' };
  }

  async listDataSources(slug: string, input: ListDataSourcesQuery): Promise<DataSourcePage> {
    const guru = await this.#gurus.find('list_sources', slug);
    const query = parseRequest(ListDataSourcesQuery, input, 'list_sources');
    const rows = await this.#sources.page(guru.id, query.page_size, (query.page - 1) * query.page_size);
    return { count: await this.#sources.count(guru.id), page: query.page, page_size: query.page_size, results: rows.map(toListedSource) };
  }

  /**
   * Adds files by what they are (see files.ts): PDF, Word and Excel as documents, HTML through the
   * web page extraction, Markdown and text as texts. A file sent again under the same name is
   * answered `exists` when its text is unchanged and read again when it changed.
   */
  async uploadDocuments(slug: string, files: readonly UploadFile[], options: UploadOptions = {}): Promise<UploadedDocument[]> {
    const guru = await this.#gurus.find('admin', slug);
    const { fileKindOf } = await import('./files.js');
    const results: UploadedDocument[] = [];
    for (const file of files) {
      if (file.data.byteLength > MAX_DOCUMENT_BYTES) {
        results.push({ name: file.name, status: 'refused', error: `${file.name} is larger than ${MAX_DOCUMENT_BYTES / 1024 / 1024} MB.` });
        continue;
      }
      const kind = fileKindOf(file.name, file.data);
      if (kind.kind === 'refused') {
        results.push({ name: file.name, status: 'refused', error: kind.reason });
        continue;
      }
      const type = kind.kind === 'document' ? kind.document : 'TEXT';
      const read = await this.#readFile(file, kind);
      const title = read.title || file.name;
      await this.#clock.now();
      const { row, status } = await this.#context.sql.transaction((tx) =>
        this.#store(
          this.#storesOn(tx),
          {
            guruId: guru.id,
            type,
            name: file.name,
            title,
            content: read.markdown,
            private: options.private ?? false,
            labels: sourceLabels(type === 'TEXT' ? 'Text' : DOCUMENT_LABELS[type], options.labels),
            now: timestamp(this.#context),
          },
          read.error,
        ),
      );
      results.push({ name: file.name, status, id: row.id, type, title, private: options.private ?? false });
    }
    this.#writer.kick();
    return results;
  }

  /**
   * The texts of a create request as they are indexed: HTML through the web page extraction, the
   * others as sent. HTML whose extraction fails (its worker stopped) is stored failed with the reason.
   */
  async #readTexts(texts: readonly TextSourceInput[]): Promise<(TextSourceInput & { readonly error?: string })[]> {
    if (texts.length === 0) return [];
    const { textKindOf } = await import('./files.js');
    return Promise.all(
      texts.map(async ({ name, content }) => {
        if (textKindOf(name, content) !== 'html') return { name, content };
        try {
          return { name, content: (await this.#reading.extractHtml(name, content)).markdown };
        } catch (error) {
          return { name, content: '', error: error instanceof Error ? error.message : String(error) };
        }
      }),
    );
  }

  /**
   * A file's title and text: a document's extracted in a worker, HTML through the web page
   * extraction, other text as it is. A document whose text cannot be extracted still becomes a
   * source, failed with `error`.
   */
  async #readFile(file: UploadFile, kind: Exclude<FileKind, { kind: 'refused' }>): Promise<{ title: string | undefined; markdown: string; error?: string }> {
    if (kind.kind !== 'document') return kind.kind === 'html' ? this.#reading.extractHtml(file.name, file.data) : { title: undefined, markdown: kind.text };
    try {
      return await this.#reading.extractDocument(kind.document, file.data);
    } catch (error) {
      return { title: undefined, markdown: '', error: error instanceof Error ? error.message : String(error) };
    }
  }

  /**
   * Stores a text or document under its name, inside the caller's transaction (`stores` are on
   * it): new, replaced and queued again when its text, labels or privacy changed, else left as it
   * is (`exists`). A new text keeps the privacy of the one it replaces unless `private` says
   * otherwise; `error` stores it failed instead of queued.
   */
  async #store(
    { sources, jobs }: Stores,
    source: Omit<NewDocumentSource, 'private'> & { readonly private?: boolean },
    error?: string,
  ): Promise<{ row: SourceRow; status: 'success' | 'exists' }> {
    const existing = await sources.findStored(source.guruId, source.type, source.name);
    const isPrivate = source.private ?? existing?.private === 1;
    const unchanged =
      existing !== undefined &&
      error === undefined &&
      existing.status !== 'FAIL' &&
      existing.content === source.content &&
      existing.labels === JSON.stringify(source.labels) &&
      existing.private === (isPrivate ? 1 : 0);
    if (unchanged) return { row: existing, status: 'exists' };
    const row = existing
      ? await sources.replaceStored(existing.id, { title: source.title, content: source.content, private: isPrivate, labels: source.labels })
      : await sources.insertDocument({ ...source, private: isPrivate });
    if (error !== undefined) await sources.markFailed(row.id, error);
    else await jobs.enqueue('process_source', [{ id: row.id, host: null }], this.#clock.current());
    return { row, status: 'success' };
  }

  // -------------------------------------------------------------------------
  // For the engine and the other capabilities

  /** The text of a PDF as Markdown, read in the extraction workers (a question's attachments); content problems throw a SourceError. */
  async pdfText(data: Uint8Array): Promise<string> {
    return (await this.#reading.extractDocument('PDF', data)).markdown;
  }

  /** The engine's outbound HTTP client (crawls and video lists fetch with it too). */
  http(): Promise<HttpFetcher> {
    return this.#reading.http();
  }

  /** Takes up queued work, including work left by an earlier run. */
  resume(): void {
    this.#writer.resume();
  }

  /** Takes no queued work in this process (short reads); reading stays open for crawls and imports. */
  leaveQueue(): void {
    this.#writer.leave();
  }

  /** Queues making the vectors of these sources (in one statement). */
  async queueEmbedding(sourceIds: readonly number[]): Promise<void> {
    await this.#jobs.enqueue('embed_source', sourceIds.map((id) => ({ id, host: null })), await this.#clock.now());
    this.#writer.kick();
  }

  #storesOn(sql: Sql): Stores {
    return { sources: new SourceRepository(sql), jobs: new JobRepository(sql, this.#queue) };
  }

  /** Resolves once no data-source processing is queued or running. */
  whenIdle(): Promise<void> {
    return this.#writer.whenIdle();
  }

  async close(): Promise<void> {
    await this.#writer.close();
    await this.#reading.close();
  }
}
