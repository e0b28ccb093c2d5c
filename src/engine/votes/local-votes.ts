/**
 * Votes: an end user's upvote or downvote (with optional feedback) on one
 * answer. A vote belongs to its turn, so it is stored through the sessions
 * capability and read back as the turn's `user_vote`.
 */
import type { Votes } from '../../core/assistant.js';
import { Errors } from '../../core/errors.js';
import type { RecordedVote, RecordVoteRequest } from '../../core/schemas.js';
import { parseVoteRequest } from '../../core/vote-request.js';
import type { LocalGurus } from '../gurus/local-gurus.js';
import type { LocalSessions } from '../sessions/local-sessions.js';

export class LocalVotes implements Votes {
  readonly #gurus: LocalGurus;
  readonly #sessions: LocalSessions;

  constructor(gurus: LocalGurus, sessions: LocalSessions) {
    this.#gurus = gurus;
    this.#sessions = sessions;
  }

  async recordVote(slug: string, raw: RecordVoteRequest): Promise<RecordedVote> {
    const guru = await this.#gurus.find('record_vote', slug);
    const request = parseVoteRequest(raw);
    const turn = await this.#sessions.turn(guru.id, request.content_slug);
    if (turn === undefined || (request.binge_id !== undefined && turn.binge_id !== request.binge_id)) {
      throw Errors.voteQuestionNotFound();
    }
    if (turn.can_receive_feedback !== 1) throw Errors.voteNotTaken();
    const feedback = request.feedback?.trim() || null;
    const outcome = await this.#sessions.recordVote(turn.id, request.vote_type, feedback);
    return outcome.recorded ? { vote: request.vote_type, feedback } : { msg: 'Already voted', vote: outcome.standing };
  }
}
