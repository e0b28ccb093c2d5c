/**
 * The URL of one operation of an OpenAI-compatible API: `{root}/{path}`. A query the root carries
 * stays on it (Azure OpenAI's `?api-version=…`).
 */
export function endpointUrl(root: string, path: string): URL {
  const url = new URL(root);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${path}`;
  return url;
}
