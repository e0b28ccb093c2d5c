/**
 * Attachments of a question (spec, ask: images, log_files, pdf_files): checked against the guru's
 * limits before any work, decoded, their text made context for the question and, stored with the
 * turn, for the later turns of its session.
 *
 * Log files are taken as sent: a log over the size limit is skipped like any other file over a
 * limit (no tail of it is kept), so what is searched is always the whole file. PDFs are read by
 * the ingestion's extractor in its worker threads; a PDF that cannot be read refuses the question
 * like one over the limits. Images are not searched: checked (data URL, image type) and handed on
 * as data URLs for a model that reads images (`images`); without one the note says they were not read.
 * Images are never stored: a follow-up does not see the images of earlier turns.
 */
import { randomUUID } from 'node:crypto';
import { Errors } from '../../core/errors.js';
import type { SessionAttachment } from '../../core/assistant.js';
import type { AskInput, GuruSettings, Reference } from '../../core/schemas.js';
import { attachmentUri } from '../../core/uris.js';
import { Answerer, type AnswerDraft } from '../answer/answerer.js';
import { timestamp, type EngineContext } from '../context.js';
import type { GuruRow, LocalGurus } from '../gurus/local-gurus.js';
import { documentKindOf } from '../ingest/extract/document.js';
import { SourceError } from '../ingest/sources/types.js';
import type { QuestionRow } from '../sessions/repository.js';
import type { Sql } from '../store/sql.js';
import { AttachedRetriever, type IndexedAttachment } from './attached-retriever.js';
import type { Retriever } from '../search/retriever.js';
import { decode, decodedSize, parseDataUrl, type DataUrl } from './data-url.js';
import { attachmentNote, quotedNote, refusePdfsOverLimit, withinLimit, type ImageReading } from './limits.js';
import { attachmentReferences } from './references.js';
import { AttachmentRepository } from './repository.js';

type AttachmentLimits = GuruSettings['attachment_limits'];

/** An image as a chat message carries it to a model. */
export interface ImageAttachment {
  readonly name: string;
  readonly mime: string;
  /** `data:<mime>;base64,<payload>`, as it was sent. */
  readonly dataUrl: string;
}

/** What the engine gives the capability beside its context. */
export interface AttachmentServices {
  readonly limitsOf: (guru: GuruRow) => Promise<AttachmentLimits>;
  /** The text of a PDF as Markdown (the ingestion's extractor); content problems throw a SourceError. */
  readonly extractPdf: (data: Uint8Array) => Promise<string>;
  /** Searchable passages of the guru's knowledge base. */
  readonly knowledgeChunks: (guruId: number) => Promise<number>;
  /** Whether the guru's answers go to a model that reads images; when not, images are noted as not read, and why. */
  readonly imageReading: (guru: GuruRow) => Promise<ImageReading>;
}

/** A question's attachments, ready for answering and for storing with its turn. */
export interface QuestionAttachments {
  /** The session the turn goes to: the one continued, or the id the new one is to get. */
  readonly sessionId: string;
  /** Searches the knowledge base and the session's attachments; undefined when there are none. */
  readonly retriever: Retriever | undefined;
  /** Answers from the knowledge base and the session's attachments; undefined when there are none. */
  readonly answerer: Answerer | undefined;
  /** The answer's `attachment_note`: images or log files skipped, images not read. */
  readonly note: string | null;
  /** Images within the limits, for a model that reads images; none when the guru's answers go to no such model. */
  readonly images: readonly ImageAttachment[];
  /** The draft with the note in front of its text and the attachments' references marked. */
  complete(draft: AnswerDraft): AnswerDraft;
  /** Stores the question's log and PDF text with its turn, through `tx`: the turn's transaction. */
  store(turn: QuestionRow, tx: Sql): Promise<void>;
  /** Lets go of the attachments' search index; call once the answer is written, or failed. */
  close(): void;
}

export interface ReadingOptions {
  readonly signal?: AbortSignal | undefined;
  /** Called once the files passed the limits, before their text is read (PDFs extracted); not called when there is none. */
  readonly reading?: () => Promise<void>;
}

interface Sent<Data> {
  readonly name: string;
  readonly bytes: number;
  readonly data: Data;
}

export class LocalAttachments {
  readonly #context: EngineContext;
  readonly #gurus: LocalGurus;
  readonly #services: AttachmentServices;
  readonly #stored: AttachmentRepository;

  constructor(context: EngineContext, gurus: LocalGurus, services: AttachmentServices) {
    this.#context = context;
    this.#gurus = gurus;
    this.#services = services;
    this.#stored = new AttachmentRepository(context.sql);
  }

  /**
   * Checks and reads the question's attachments, and gathers those of the session's earlier
   * turns. PDFs over the limits, unreadable PDFs and malformed data URLs are refused (400) before
   * anything is answered or stored.
   */
  async forQuestion(guru: GuruRow, input: AskInput, sessionId: string | undefined, options: ReadingOptions = {}): Promise<QuestionAttachments> {
    const { signal } = options;
    const limits = await this.#services.limitsOf(guru);
    const pdfs = (input.pdf_files ?? []).map((file, index) => dataUrlFile(file, `pdf_files[${index}] (${file.name})`));
    refusePdfsOverLimit(pdfs, limits.pdf_files);
    const sentImages = (input.images ?? []).map((file, index) => {
      const image = dataUrlFile(file, `images[${index}] (${file.name})`);
      if (!image.data.mime.startsWith('image/')) {
        throw Errors.badAsk(`images[${index}] (${file.name}) is not an image: its data URL's type is ${image.data.mime}`);
      }
      return image;
    });
    const images = withinLimit(sentImages, limits.images);
    const logs = withinLimit(
      (input.log_files ?? []).map((file) => ({ name: file.name, bytes: Buffer.byteLength(file.data, 'utf8'), data: file.data })),
      limits.log_files,
    );
    // Reading a large PDF takes a while: the answer's progress line says so first.
    if (pdfs.length + logs.kept.length > 0) await options.reading?.();
    // One PDF at a time: a question holds one decoded copy at most, and takes one extraction worker, not all.
    const pdfTexts: { name: string; text: string }[] = [];
    for (const pdf of pdfs) {
      signal?.throwIfAborted();
      pdfTexts.push({ name: pdf.name, text: await this.#pdfText(pdf) });
    }
    signal?.throwIfAborted();

    const earlier = sessionId === undefined ? [] : await this.#stored.latestOfSession(sessionId, { logs: limits.log_files.count, pdfs: limits.pdf_files.count });
    const session = sessionId ?? randomUUID();
    const freshCount = logs.kept.length + pdfTexts.length;
    let ordinal = freshCount === 0 ? 0 : (await this.#stored.takeNumbers(session, freshCount)) - 1;
    const indexed = (attachment: Omit<IndexedAttachment, 'link'>): IndexedAttachment => ({
      ...attachment,
      link: attachmentUri(guru.slug, session, attachment.ordinal),
    });
    const inherited = earlier.map(indexed);
    const fresh = [
      ...logs.kept.map((log) => indexed({ kind: 'LOG', name: log.name, text: log.data, ordinal: ++ordinal })),
      ...pdfTexts.map((pdf) => indexed({ kind: 'PDF', name: pdf.name, text: pdf.text, ordinal: ++ordinal })),
    ];
    const lastTaken = ordinal;
    const imageReading = await this.#services.imageReading(guru);
    const readImages = imageReading === 'read' ? images.kept : [];
    const note = attachmentNote({ limits, droppedImages: images.dropped, droppedLogs: logs.dropped, keptImages: images.kept.length, imageReading });
    const retriever = inherited.length + fresh.length === 0 ? undefined : await AttachedRetriever.open(this.#context.sql, guru, [...inherited, ...fresh]);
    const links = new Map<string, boolean>([...inherited.map((item) => [item.link, true] as const), ...fresh.map((item) => [item.link, false] as const)]);
    const knowledgeChunks = this.#services.knowledgeChunks;
    const now = () => timestamp(this.#context);

    return {
      sessionId: session,
      retriever,
      answerer:
        retriever &&
        new Answerer(retriever, async (guruId) => (await knowledgeChunks(guruId)) + retriever.chunkCount, {
          withoutFileWords: attachmentReferences([...inherited, ...fresh].map((attachment) => attachment.name)),
        }),
      note,
      images: readImages.map((image) => ({ name: image.name, mime: image.data.mime, dataUrl: `data:${image.data.mime};base64,${image.data.base64}` })),
      complete(draft) {
        return {
          ...draft,
          content: note === null ? draft.content : quotedNote(note) + draft.content,
          references: draft.references.map((reference) => marked(reference, links.get(reference.link))),
        };
      },
      async store(turn, tx) {
        const stored = new AttachmentRepository(tx);
        for (const { ordinal, kind, name, text } of fresh) {
          await stored.insert({ questionId: turn.id, bingeId: turn.binge_id, ordinal, kind, name, text, now: now() });
        }
        if (lastTaken > 0) await stored.markTaken(turn.binge_id, lastTaken);
      },
      close() {
        retriever?.close();
      },
    };
  }

  /** The session's `n`th attachment (its guru:// link); 404 when the guru's session holds none of that number. */
  async read(slug: string, sessionId: string, n: number): Promise<SessionAttachment> {
    const guru = await this.#gurus.find('get_session', slug);
    const stored = Number.isSafeInteger(n) && n > 0 ? await this.#stored.one(sessionId, n, guru.id) : undefined;
    if (stored === undefined) throw Errors.attachmentNotFound();
    return { name: stored.name, mime_type: stored.kind === 'PDF' ? 'text/markdown' : 'text/plain', text: stored.text };
  }

  async #pdfText(pdf: Sent<DataUrl>): Promise<string> {
    const bytes = decode(pdf.data);
    if (documentKindOf(pdf.name, bytes) !== 'PDF') throw Errors.badAsk(`The file ${pdf.name} in pdf_files is not a PDF document.`);
    try {
      return await this.#services.extractPdf(bytes);
    } catch (error) {
      if (error instanceof SourceError) throw Errors.badAsk(`The PDF file ${pdf.name} could not be read: ${error.message}`);
      throw error;
    }
  }
}

function dataUrlFile(file: { readonly data: string; readonly name: string }, what: string): Sent<DataUrl> {
  const data = parseDataUrl(file.data, what);
  return { name: file.name, bytes: decodedSize(data), data };
}

/** An attachment's reference: no favicon, and `inherited` when it came with an earlier turn. */
function marked(reference: Reference, inherited: boolean | undefined): Reference {
  if (inherited === undefined) return reference;
  return { ...reference, icon: '', ...(inherited ? { inherited: true } : {}) };
}
