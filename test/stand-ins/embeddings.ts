/**
 * An OpenAI-compatible embeddings endpoint (`POST /v1/embeddings`), answering
 * with small deterministic vectors: one dimension per group of synonyms, so
 * texts about the same thing in other words lie close together.
 */
import { json, type LoopbackServer, replying, startLoopbackServer } from '../support/loopback-server.js';

const CONCEPTS: readonly (readonly string[])[] = [
  ['car', 'cars', 'automobile', 'automobiles', 'vehicle', 'vehicles'],
  ['repair', 'repairs', 'fix', 'fixing', 'servicing', 'maintenance', 'mend'],
  ['bread', 'loaf', 'baking', 'dough', 'sourdough'],
  ['money', 'payment', 'invoice', 'refund', 'billing'],
];

function embed(text: string): number[] {
  const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
  const vector = CONCEPTS.map((group) => words.filter((word) => group.includes(word)).length);
  vector.push(0.1); // every text shares a little, as real embeddings do
  return vector;
}

export interface EmbeddingsStandIn {
  readonly server: LoopbackServer;
  /** The API root to configure, ending in /v1. */
  readonly baseUrl: string;
  /** Texts embedded so far, per model. */
  readonly embedded: Map<string, string[]>;
  /** Answer 503 to every request while true. */
  down: boolean;
  close(): Promise<void>;
}

export async function startEmbeddingsStandIn(): Promise<EmbeddingsStandIn> {
  const embedded = new Map<string, string[]>();
  const state = { down: false };
  const server = await startLoopbackServer(replying((request) => {
    if (request.method !== 'POST' || request.url.pathname !== '/v1/embeddings') return json(404, { error: { message: 'not found' } });
    if (state.down) return json(503, { error: { message: 'model is loading' } });
    const body = JSON.parse(request.body) as { model: string; input: string[] };
    embedded.set(body.model, [...(embedded.get(body.model) ?? []), ...body.input]);
    return json(200, {
      object: 'list',
      model: body.model,
      data: body.input.map((text, index) => ({ object: 'embedding', index, embedding: embed(text) })),
      usage: { prompt_tokens: 0, total_tokens: 0 },
    });
  }));
  return {
    server,
    baseUrl: `${server.origin}/v1`,
    embedded,
    get down() {
      return state.down;
    },
    set down(value: boolean) {
      state.down = value;
    },
    close: () => server.close(),
  };
}
