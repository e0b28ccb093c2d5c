/**
 * DNS-rebinding protection. A server bound to a loopback address answers only
 * requests whose Host header names a loopback host: a page on another origin that
 * rebinds its DNS name to 127.0.0.1 still sends its own name in Host. A page that
 * calls 127.0.0.1 directly sends a matching Host but its own Origin, which the
 * MCP endpoint checks as well (the streamable HTTP transport requires it).
 */

const LOOPBACK_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];

/** The host as it appears in a URL: IPv6 addresses in brackets. */
export function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** An address that means "every interface" (`0.0.0.0`, `::`): fine to listen on, no place to send a browser. */
export function isWildcardHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  return bare === '0.0.0.0' || bare === '::' || bare === '';
}

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(?:\.\d{1,3}){3}$/.test(bare) || /^::ffff:127(?:\.\d{1,3}){3}$/.test(bare);
}

/** A check of the Host header (any port) against the loopback names and the bound host. */
export function loopbackHostCheck(boundHost: string): (hostHeader: string | undefined) => boolean {
  const allowed = new Set([...LOOPBACK_HOSTNAMES, urlHost(boundHost).toLowerCase()]);
  return (hostHeader) => {
    if (hostHeader === undefined || hostHeader === '') return false;
    try {
      return allowed.has(new URL(`http://${hostHeader}`).hostname);
    } catch {
      return false;
    }
  };
}

/**
 * A check of the Origin header. Without one the caller is no browser page and
 * passes. A page passes when it is the server itself (its host and port those
 * of the Host header) or, for a loopback binding and unless `sameOriginOnly`,
 * any page on a loopback host. `null` (sandboxed and file pages) and anything
 * else is foreign.
 */
export function originCheck(
  boundHost: string,
  { sameOriginOnly = false }: { readonly sameOriginOnly?: boolean } = {},
): (origin: string | undefined, hostHeader: string | undefined) => boolean {
  const loopback = isLoopbackHost(boundHost) && !sameOriginOnly;
  return (origin, hostHeader) => {
    if (origin === undefined) return true;
    let page: URL;
    try {
      page = new URL(origin);
    } catch {
      return false;
    }
    if (page.protocol !== 'http:' && page.protocol !== 'https:') return false;
    if (loopback && isLoopbackHost(page.hostname)) return true;
    return hostHeader !== undefined && sameHost(page, hostHeader);
  };
}

/** Whether `hostHeader` names the host and port of `page` (a default port may be left out of either). */
function sameHost(page: URL, hostHeader: string): boolean {
  try {
    return new URL(`${page.protocol}//${hostHeader}`).host === page.host;
  } catch {
    return false;
  }
}
