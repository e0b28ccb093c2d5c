// Calls to the server: the REST API under /api/v1 and the interface's operator routes under
// /web/api. The key travels in the X-API-Key header only, and lives in sessionStorage (this tab).

const KEY = 'guru-mcp.api-key';
const GURU = 'guru-mcp.guru';

export const signedIn = () => sessionStorage.getItem(KEY) !== null && sessionStorage.getItem(GURU) !== null;
export const currentGuru = () => JSON.parse(sessionStorage.getItem(GURU) ?? 'null');

/** Forgets the key and everything this tab kept about the guru (its last crawl, its conversation). */
export function signOut() {
  sessionStorage.clear();
}

/** Checks a key with the server and keeps it for this tab; throws the server's message when it is refused. */
export async function signIn(key) {
  const me = await getJson('/web/api/me', { key });
  sessionStorage.setItem(KEY, key);
  sessionStorage.setItem(GURU, JSON.stringify(me));
  return me;
}

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

/** The message of an error response: the service's `msg` or `error` field. */
async function errorOf(response) {
  let message = '';
  try {
    const body = await response.json();
    message = body.msg ?? body.error ?? body.detail ?? '';
  } catch {
    // Not JSON: fall back to the status line.
  }
  return new ApiError(message || `${response.status} ${response.statusText || 'error'}`, response.status);
}

/**
 * One request. `json` is sent as a JSON body, `body` as it is (a file). Resolves with the
 * response when it succeeded, else throws an ApiError carrying the server's message.
 */
export async function request(path, { method = 'GET', json, body, signal, key = sessionStorage.getItem(KEY) ?? '' } = {}) {
  // x-guru-client: the service stores this interface's questions with source WEB.
  const headers = { 'x-api-key': key, 'x-guru-client': 'web' };
  const init = { method, headers, signal, cache: 'no-store' };
  if (json !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(json);
  } else if (body !== undefined) {
    headers['content-type'] = 'application/octet-stream';
    init.body = body;
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    throw new ApiError('The server could not be reached. Is guru-mcp serve still running?', 0);
  }
  if (!response.ok) throw await errorOf(response);
  return response;
}

export const getJson = async (path, options) => (await request(path, options)).json();

/** A REST path of the signed-in guru: guruApi('/answer') is /api/v1/<slug>/answer. */
export const guruApi = (path) => `/api/v1/${encodeURIComponent(currentGuru()?.guru_slug ?? '')}${path}`;
