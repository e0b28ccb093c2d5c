import { describe, expect, it } from 'vitest';
import { Errors } from '../../src/core/errors.js';
import { IntegrationInput, RecordVoteRequest, SemanticSearchRequest, TextToSpeechRequest, UpsertProfilesRequest } from '../../src/core/schemas.js';
import { parseRequest } from '../../src/core/validate.js';

/** The error a request gets from parseRequest. */
function refusal(run: () => unknown) {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('the request was accepted');
}

describe('parseRequest', () => {
  it('names the field and the problem, never the value sent', () => {
    const error = refusal(() => parseRequest(SemanticSearchRequest, { question: 'q', labels: 'secret-label' }, 'semantic_search'));
    expect(error).toMatchObject({ status: 400, field: 'error', message: 'labels must be an array of strings' });
    expect(JSON.stringify(error)).not.toContain('secret-label');
  });

  it('keeps the spec message for the problem it names, and says other problems as they are', () => {
    expect(refusal(() => parseRequest(TextToSpeechRequest, {}, 'text_to_speech'))).toMatchObject({ message: 'No text provided' });
    expect(refusal(() => parseRequest(TextToSpeechRequest, { text: 't'.repeat(20_001) }, 'text_to_speech'))).toMatchObject({
      message: 'text must be at most 20000 characters',
    });
  });

  it('puts the problem after a generic spec message', () => {
    expect(refusal(() => parseRequest(RecordVoteRequest, { content_slug: 'a', vote_type: 'meh' }, 'record_vote'))).toMatchObject({
      message: 'Invalid parameters: vote_type must be one of "upvote", "downvote"',
    });
    expect(
      refusal(() => parseRequest(IntegrationInput, { kind: 'jira', base_url: 'nope', email: 'nope', token: 'x' }, 'admin')),
    ).toMatchObject({ message: 'Invalid request parameters: base_url must be a URL; email must be an email address' });
  });

  it('names at most three problems, counting the rest', () => {
    const users = Array.from({ length: 1001 }, () => ({ external_user_id: 'u', memory: {} }));
    expect(refusal(() => parseRequest(UpsertProfilesRequest, { users }, 'upsert_profiles'))).toMatchObject({
      message: 'Invalid request parameters: users must have at most 1000 items',
    });
    const labels = [1, 2, 3, 4, 5];
    expect(refusal(() => parseRequest(SemanticSearchRequest, { question: 'q', labels }, 'semantic_search'))).toMatchObject({
      message: 'labels[0] must be a string; labels[1] must be a string; labels[2] must be a string; and 2 more problems',
    });
  });

  it('says no hint apart from the message, so that nothing is said twice', () => {
    expect(refusal(() => parseRequest(SemanticSearchRequest, {}, 'semantic_search'))).toMatchObject({ message: 'Question is required', hint: undefined });
    expect(Errors.invalidInput('create_sources', 'Invalid JSON body').message).toBe('Invalid request parameters: Invalid JSON body');
  });
});
