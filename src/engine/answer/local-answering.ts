/**
 * Answers: a question (new, or continuing a session) answered from the
 * guru's index, recorded as a turn of its session before it is streamed.
 */
import { randomBytes } from 'node:crypto';
import type { Answering, AnswerWithEvidence, AskOptions } from '../../core/assistant.js';
import { AskInput, type Answer } from '../../core/schemas.js';
import { sessionUri } from '../../core/uris.js';
import { parseRequest } from '../../core/validate.js';
import { quotedNote } from '../attachments/limits.js';
import type { LocalAttachments, QuestionAttachments } from '../attachments/local-attachments.js';
import type { GuruRow, LocalGurus } from '../gurus/local-gurus.js';
import type { AnswerStage, ProgressReporter } from '../progress/local-progress.js';
import { evidenceOf } from '../search/excerpts.js';
import type { LocalSearch } from '../search/local-search.js';
import { referencesOf, type LocalSessions, type QuestionRow } from '../sessions/local-sessions.js';
import { Answerer, type AnswerDraft } from './answerer.js';
import { textPieces } from './extractive.js';
import type { ModelPipeline } from './model/model-pipeline.js';
import { simpleReply } from './model/simple-interactions.js';

/** Vector neighbours offered to an answer as candidates. */
const RELATED_ANSWER_CHUNKS = 12;

/** `how-do-i-install-it-3f9a1c07d2e4`: readable in any script, and unique thanks to 48 random bits. */
function questionSlug(question: string): string {
  const words = question
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return `${words || 'question'}-${randomBytes(6).toString('hex')}`;
}

/** A question as stored and compared: trimmed, with runs of white space as one space. */
export const normalizeQuestion = (text: string): string => text.trim().replace(/\s+/g, ' ');

/** Whether the question came with files (the spec's images, log_files, pdf_files). */
const attachmentsSent = (input: AskInput): boolean =>
  (input.images?.length ?? 0) + (input.log_files?.length ?? 0) + (input.pdf_files?.length ?? 0) > 0;

/** `onText` that hands out the attachment note (as the stored answer starts) before the first piece. */
function withNoteFirst(onText: ((text: string) => void) | undefined, note: string | null): ((text: string) => void) | undefined {
  if (onText === undefined || note === null) return onText;
  let noted = false;
  return (text) => {
    if (!noted) onText(quotedNote(note));
    noted = true;
    onText(text);
  };
}

/**
 * The answer with the passages weighed for it, when the caller asked for them: what the answer
 * quotes already is not given twice, so the budget goes to text the caller has not seen.
 */
function withEvidence(answer: Answer, draft: Pick<AnswerDraft, 'ranked' | 'words'> | undefined, options: AskOptions): AnswerWithEvidence {
  const evidence = evidenceOf(draft?.ranked, options.evidence, answer.content, draft?.words);
  return evidence === undefined ? answer : { ...answer, evidence };
}

/** The turn being answered: where it goes and who asked. */
interface TurnOf {
  readonly guru: GuruRow;
  /** The files of this question and of the session's earlier turns; none for a simple interaction. */
  readonly attached?: QuestionAttachments;
  readonly sessionId: string | undefined;
  readonly parent: QuestionRow | undefined;
  readonly input: AskInput;
  readonly externalUserId: string | null;
}

export class LocalAnswering implements Answering {
  readonly #gurus: LocalGurus;
  readonly #search: LocalSearch;
  readonly #sessions: LocalSessions;
  readonly #answerer: Answerer;
  readonly #progress: ProgressReporter;
  /** The language-model steps; undefined without a model configured. */
  readonly #model: ModelPipeline | undefined;
  readonly #attachments: LocalAttachments;

  constructor(
    gurus: LocalGurus,
    search: LocalSearch,
    sessions: LocalSessions,
    progress: ProgressReporter,
    attachments: LocalAttachments,
    model?: ModelPipeline,
  ) {
    this.#gurus = gurus;
    this.#search = search;
    this.#sessions = sessions;
    this.#progress = progress;
    this.#attachments = attachments;
    this.#answerer = new Answerer(search.retriever, (guruId) => search.indexedChunks(guruId));
    this.#model = model;
  }

  async ask(slug: string, raw: AskInput, options: AskOptions = {}): Promise<AnswerWithEvidence> {
    options.signal?.throwIfAborted();
    const guru = await this.#gurus.find('ask', slug);
    const input = parseRequest(AskInput, raw, 'ask');
    const question = normalizeQuestion(input.question);
    const externalUserId = input.external_user_id ?? null;
    const binge = input.session_id === undefined ? undefined : await this.#sessions.continued(guru, input.session_id, externalUserId);

    if (input.fetch_existing) {
      const existing = await this.#sessions.existingAnswer(guru.id, question, binge?.id ?? null, externalUserId);
      if (existing) return withEvidence(this.#stream(this.#answerOf(guru, existing), options), undefined, options);
    }
    const parent = binge ? await this.#sessions.lastTurn(binge.id) : undefined;
    const turn = { guru, sessionId: binge?.id, parent, input, externalUserId };

    // "hi", "thanks", "bye": a short reply, nothing searched (unless files came with it).
    const simple = attachmentsSent(input) ? undefined : simpleReply(question, guru.name);
    if (simple !== undefined) {
      return withEvidence(await this.#recordThenStream(turn, question, { content: simple, references: [], trustScore: 0, answered: false }, options), undefined, options);
    }

    // Attachments are checked (a 400 before anything is answered) and read; with them, those of earlier turns.
    const stage = this.#stager(guru, externalUserId, options);
    const attached = await this.#attachments.forQuestion(guru, input, binge?.id, { signal: options.signal, reading: () => stage('Reading the attachments') });
    try {
      return await this.#answer({ ...turn, attached }, question, stage, options);
    } finally {
      attached.close();
    }
  }

  /** Reports a stage to the end user's progress line (GET answer-progress), then to the caller. */
  #stager(guru: GuruRow, externalUserId: string | null, options: AskOptions): (line: AnswerStage) => Promise<void> {
    return async (line) => {
      if (externalUserId !== null) await this.#progress.report(guru.id, externalUserId, line);
      options.onStage?.(line);
    };
  }

  async #answer(
    turn: TurnOf & { readonly attached: QuestionAttachments },
    question: string,
    stage: (line: AnswerStage) => Promise<void>,
    options: AskOptions,
  ): Promise<AnswerWithEvidence> {
    const { guru, parent, attached, externalUserId } = turn;
    if (turn.sessionId !== undefined) await stage('Gathering context');
    const settings = await this.#gurus.settingsOf(guru);
    const model = settings.use_model ? this.#model : undefined;
    const standalone =
      model && turn.sessionId !== undefined
        ? normalizeQuestion(await model.standalone(question, await this.#sessions.turns(turn.sessionId), options.signal))
        : question;
    // What the end user states about themselves is kept while the answer is written.
    const endUser =
      model && externalUserId !== null
        ? { recollection: model.recall(guru.slug, externalUserId), learning: model.learn(guru.slug, externalUserId, turn.input.question, options.signal) }
        : undefined;

    await stage('Searching the knowledge base');
    const rewrites = model ? await model.reword(guru.name, standalone, options.signal) : [];
    const related = (await this.#search.relatedChunks(guru.id, parent ? `${parent.question}\n${standalone}` : standalone))?.slice(0, RELATED_ANSWER_CHUNKS) ?? [];
    const answerer = attached.answerer ?? this.#answerer;
    const asked = { guruId: guru.id, guruName: guru.name, question: standalone, ...(parent ? { previousQuestion: parent.question } : {}) };
    // Where the question's own words find nothing, the documentation's words may (the model's rewrites).
    let draft = await answerer.draft(asked, related);
    for (const rewrite of draft.answered ? [] : rewrites) {
      const reworded = await answerer.draft({ ...asked, question: rewrite }, related);
      if (reworded.answered) {
        draft = reworded;
        break;
      }
    }
    await stage('Writing the answer');
    if (!model) return withEvidence(await this.#recordThenStream(turn, standalone, attached.complete(draft), options), draft, options);

    const written = await model.write(
      {
        guruId: guru.id,
        guruName: guru.name,
        question: standalone,
        rewrites,
        related,
        draft,
        instructions: settings.model_instructions,
        recollection: await endUser?.recollection,
        ...(attached.retriever ? { retriever: attached.retriever } : {}),
        images: attached.images.map((image) => image.dataUrl),
      },
      { onText: withNoteFirst(options.onText, attached.note), signal: options.signal },
    );
    options.signal?.throwIfAborted();
    const completed = attached.complete(written);
    const answer = written.streamed
      ? this.#answerOf(guru, await this.#record(turn, standalone, completed, options))
      : await this.#recordThenStream(turn, standalone, completed, options);
    // Stored first: keeping memories never holds up the answer (it never fails either).
    await endUser?.learning;
    return withEvidence(answer, draft, options);
  }

  /**
   * Stored before it is streamed: a caller that goes away mid-stream can still fetch it.
   * (A generated answer is streamed while it is written, and stored once complete.)
   */
  async #recordThenStream(turn: TurnOf, question: string, answer: AnswerDraft, options: AskOptions): Promise<Answer> {
    return this.#stream(this.#answerOf(turn.guru, await this.#record(turn, question, answer, options)), options);
  }

  #record(turn: TurnOf, question: string, answer: AnswerDraft, options: AskOptions): Promise<QuestionRow> {
    const { attached } = turn;
    return this.#sessions.recordTurn(
      turn.sessionId,
      {
        guruId: turn.guru.id,
        parentId: turn.parent?.id ?? null,
        slug: questionSlug(question),
        userQuestion: turn.input.question,
        question,
        content: answer.content,
        trustScore: answer.trustScore,
        references: answer.references,
        canReceiveFeedback: answer.answered,
        attachmentNote: attached?.note ?? null,
        source: options.origin ?? 'API',
        externalUserId: turn.externalUserId,
      },
      attached,
    );
  }

  /** Hands the answer's text to `onText` piece by piece, then returns the answer. */
  #stream(answer: Answer, options: AskOptions): Answer {
    if (options.onText) {
      for (const piece of textPieces(answer.content)) {
        options.signal?.throwIfAborted();
        options.onText(piece);
      }
    }
    return answer;
  }

  #answerOf(guru: GuruRow, row: QuestionRow): Answer {
    return {
      slug: row.slug,
      content: row.content,
      question: row.question,
      date_updated: row.date_updated.slice(0, 10),
      trust_score: row.trust_score,
      references: referencesOf(row),
      session_id: row.binge_id,
      question_url: sessionUri(guru.slug, row.binge_id),
      can_receive_feedback: row.can_receive_feedback === 1,
      ...(row.attachment_note === null ? {} : { attachment_note: row.attachment_note }),
    };
  }
}
