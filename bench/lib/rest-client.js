// The REST client of lib/search-latency.js, in a process of its own: for each message
// { id, origin, slug, apiKey, question } it POSTs the semantic search over one kept-alive
// connection per server and answers { id, ms, response } (or { id, error }).
import { Buffer } from 'node:buffer';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

const agents = new Map();

function search(origin, slug, apiKey, question) {
  let agent = agents.get(origin);
  if (agent === undefined) {
    agent = new Agent({ keepAlive: true, maxSockets: 1 });
    agents.set(origin, agent);
  }
  const body = JSON.stringify({ question });
  return new Promise((done, fail) => {
    const req = request(
      `${origin}/api/v1/${slug}/semantic-search/`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-api-key': apiKey },
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) fail(new Error(`semantic search: ${res.statusCode} ${text.slice(0, 200)}`));
          else done(JSON.parse(text));
        });
        res.on('error', fail);
      },
    );
    req.on('error', fail);
    req.end(body);
  });
}

process.on('message', async ({ id, origin, slug, apiKey, question }) => {
  try {
    const started = performance.now();
    const response = await search(origin, slug, apiKey, question);
    process.send({ id, ms: performance.now() - started, response });
  } catch (error) {
    process.send({ id, error: error instanceof Error ? error.message : String(error) });
  }
});

process.on('disconnect', () => {
  for (const agent of agents.values()) agent.destroy();
});
