/**
 * The one way this project calls an OpenAI-compatible API (chat completions, embeddings, speech):
 * a JSON POST to `{root}/{operation}` with the key as a bearer token.
 */
import type { Dispatcher } from 'undici';

/** `{root}/{path}`; a query the root carries stays on it (Azure OpenAI's `?api-version=…`). */
export function endpointUrl(root: string, path: string): URL {
  const url = new URL(root);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${path}`;
  return url;
}

export interface JsonPost {
  /** Sent as `Authorization: Bearer …`; never logged. */
  readonly apiKey: string | undefined;
  /** What the operation answers with: `application/json`, `text/event-stream`, `audio/mpeg`. */
  readonly accept: string;
  readonly body: unknown;
  readonly signal?: AbortSignal;
}

export function postJson(dispatcher: Dispatcher, url: URL, { apiKey, accept, body, signal }: JsonPost): Promise<Dispatcher.ResponseData> {
  return dispatcher.request({
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept,
      ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
    },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
}
