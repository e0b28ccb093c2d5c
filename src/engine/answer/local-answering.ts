/**
 * Answers: a question (new, or continuing a session) answered from the
 * guru's index, recorded as a turn of its session before it is streamed.
 */
import { randomBytes } from 'node:crypto';
import type { Answering, AskOptions } from '../../core/assistant.js';
import { AskInput, type Answer } from '../../core/schemas.js';
import { sessionUri } from '../../core/uris.js';
import { parseRequest } from '../../core/validate.js';
import type { LocalAttachments } from '../attachments/local-attachments.js';
import type { GuruRow, LocalGurus } from '../gurus/local-gurus.js';
import type { AnswerStage, ProgressReporter } from '../progress/local-progress.js';
import type { LocalSearch } from '../search/local-search.js';
import { referencesOf, type LocalSessions, type QuestionRow } from '../sessions/local-sessions.js';
import { Answerer } from './answerer.js';
import { textPieces } from './extractive.js';

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

export class LocalAnswering implements Answering {
  readonly #gurus: LocalGurus;
  readonly #search: LocalSearch;
  readonly #sessions: LocalSessions;
  readonly #answerer: Answerer;
  readonly #progress: ProgressReporter;
  readonly #attachments: LocalAttachments;

  constructor(gurus: LocalGurus, search: LocalSearch, sessions: LocalSessions, progress: ProgressReporter, attachments: LocalAttachments) {
    this.#gurus = gurus;
    this.#search = search;
    this.#sessions = sessions;
    this.#progress = progress;
    this.#attachments = attachments;
    this.#answerer = new Answerer(search.retriever, (guruId) => search.indexedChunks(guruId));
  }

  async ask(slug: string, raw: AskInput, options: AskOptions = {}): Promise<Answer> {
    options.signal?.throwIfAborted();
    const guru = this.#gurus.find('ask', slug);
    const input = parseRequest(AskInput, raw, 'ask');
    const question = normalizeQuestion(input.question);
    const externalUserId = input.external_user_id ?? null;
    const binge = input.session_id === undefined ? undefined : this.#sessions.continued(guru, input.session_id, externalUserId);

    if (input.fetch_existing) {
      const existing = this.#sessions.existingAnswer(guru.id, question, binge?.id ?? null, externalUserId);
      if (existing) return this.#stream(this.#answerOf(guru, existing), options);
    }

    // Attachments are checked (a 400 before anything is answered) and read; with them, those of earlier turns.
    const attached = await this.#attachments.forQuestion(guru, input, binge?.id, options.signal);

    // Each stage goes to the end user's progress line (GET answer-progress), then to the caller.
    const stage = async (line: AnswerStage) => {
      if (externalUserId !== null) await this.#progress.report(guru.id, externalUserId, line);
      options.onStage?.(line);
    };
    if (binge) await stage('Gathering context');
    const parent = binge ? this.#sessions.lastTurn(binge.id) : undefined;
    await stage('Searching the knowledge base');
    const related = await this.#search.relatedChunks(guru.id, parent ? `${parent.question}\n${question}` : question);
    const answerer = attached.answerer ?? this.#answerer;
    const draft = attached.complete(
      answerer.draft(
        { guruId: guru.id, guruName: guru.name, question, ...(parent ? { previousQuestion: parent.question } : {}) },
        related?.slice(0, RELATED_ANSWER_CHUNKS),
      ),
    );
    await stage('Writing the answer');

    // Stored before it is streamed: a caller that goes away mid-stream can still fetch it.
    const turn = {
      guruId: guru.id,
      parentId: parent?.id ?? null,
      slug: questionSlug(question),
      userQuestion: input.question,
      question,
      content: draft.content,
      trustScore: draft.trustScore,
      references: draft.references,
      canReceiveFeedback: draft.answered,
      attachmentNote: attached.note,
      source: options.origin ?? 'API',
      externalUserId,
    };
    const row = this.#sessions.recordTurn(binge?.id, turn, attached);
    return this.#stream(this.#answerOf(guru, row), options);
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
