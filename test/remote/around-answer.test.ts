/**
 * The remote adapter's calls around an answer against loopback stand-ins of
 * the service: what is sent, what may be sent again, and answers that do not
 * fit the API. Their behaviour with our own server is the contract suite's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RemoteAssistant } from '../../src/remote/remote-assistant.js';
import { json, startLoopbackService, type LoopbackService, type Responder } from './loopback-service.js';

describe('RemoteAssistant around an answer', () => {
  let service: LoopbackService | undefined;
  let assistant: RemoteAssistant | undefined;

  afterEach(async () => {
    await assistant?.close();
    await service?.close();
    assistant = undefined;
    service = undefined;
  });

  async function connect(respond: Responder) {
    service = await startLoopbackService(respond);
    assistant = new RemoteAssistant({ baseUrl: service.baseUrl, apiKey: 'guru_key', retry: { backoffMs: 1 } });
    return { service, assistant };
  }

  describe('followUpExamples', () => {
    it('posts to {guru}/follow-up/examples/, and again after a 5xx: the examples are stored once', async () => {
      const examples = { follow_up_examples: ['What about logs?'], question_slug: 'hello-1a2b', cached: false };
      const { service, assistant } = await connect((_request, res, index) => {
        if (index === 0) json(res, 502, { error: 'Bad gateway' });
        else json(res, 200, examples);
      });
      await expect(assistant.followUpExamples('frob', { question_slug: 'hello-1a2b', binge_id: 'session-1' })).resolves.toEqual(examples);
      expect(service.requests.map((request) => [request.method, request.url, request.body])).toEqual([
        ['POST', '/api/v1/frob/follow-up/examples/', { question_slug: 'hello-1a2b', binge_id: 'session-1' }],
        ['POST', '/api/v1/frob/follow-up/examples/', { question_slug: 'hello-1a2b', binge_id: 'session-1' }],
      ]);
    });

    it("keeps the service's error in its field", async () => {
      const { assistant } = await connect((_request, res) => json(res, 404, { error: 'Question does not exist' }));
      await expect(assistant.followUpExamples('frob', { question: 'Never asked?' })).rejects.toMatchObject({
        status: 404,
        field: 'error',
        message: 'Question does not exist',
      });
    });
  });

  describe('answerProgress', () => {
    it('asks {guru}/answer-progress/ with the end user in the query, and again after a 5xx', async () => {
      const { service, assistant } = await connect((_request, res, index) => {
        if (index === 0) json(res, 503, { msg: 'Service busy' });
        else json(res, 200, { status_text: 'Writing the answer…', updated_at: 1795176000.25 });
      });
      await expect(assistant.answerProgress('frob', { external_user_id: 'a b/ü&x=1' })).resolves.toEqual({
        status_text: 'Writing the answer…',
        updated_at: 1795176000.25,
      });
      const url = `/api/v1/frob/answer-progress/?external_user_id=${encodeURIComponent('a b/ü&x=1').replaceAll('%20', '+')}`;
      expect(service.requests.map((request) => `${request.method} ${request.url}`)).toEqual([`GET ${url}`, `GET ${url}`]);
    });
  });

  describe('recordVote', () => {
    it('posts the vote to {guru}/record_vote/ as it is', async () => {
      const { service, assistant } = await connect((_request, res) => json(res, 200, { vote: 'upvote', feedback: 'Nice' }));
      const request = { content_slug: 'hello-1a2b', binge_id: 'session-1', vote_type: 'upvote', feedback: 'Nice' } as const;
      await expect(assistant.recordVote('frob', request)).resolves.toEqual({ vote: 'upvote', feedback: 'Nice' });
      expect(service.requests).toEqual([expect.objectContaining({ method: 'POST', url: '/api/v1/frob/record_vote/', body: request })]);
    });

    it('never sends a vote again after a 5xx: it would come back "Already voted"', async () => {
      const { service, assistant } = await connect((_request, res) => json(res, 502, { msg: 'Bad gateway' }));
      await expect(assistant.recordVote('frob', { content_slug: 'x', vote_type: 'downvote' })).rejects.toMatchObject({ status: 502 });
      expect(service.requests).toHaveLength(1);
    });

    it('names the endpoint of an answer that is no vote', async () => {
      const { assistant } = await connect((_request, res) => json(res, 200, { vote: 'sideways', feedback: null }));
      await expect(assistant.recordVote('frob', { content_slug: 'x', vote_type: 'upvote' })).rejects.toMatchObject({
        status: 502,
        message: expect.stringContaining('POST /api/v1/frob/record_vote/'),
      });
    });
  });
});
