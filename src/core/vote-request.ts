/** Checking a vote, with the two refusals the service words apart. */
import { Errors } from './errors.js';
import { MAX_VOTE_FEEDBACK, RecordVoteRequest } from './schemas.js';
import { parseRequest } from './validate.js';

/** Over-long feedback gets its own message; anything else wrong is "Invalid parameters: <the problem>". */
export function parseVoteRequest(value: unknown): RecordVoteRequest {
  if (typeof value === 'object' && value !== null && 'feedback' in value) {
    const { feedback } = value;
    if (typeof feedback === 'string' && [...feedback].length > MAX_VOTE_FEEDBACK) throw Errors.voteFeedbackTooLong();
  }
  return parseRequest(RecordVoteRequest, value, 'record_vote');
}
