/**
 * DNS-rebinding protection. A server bound to a loopback address answers only
 * requests whose Host header names a loopback host: a page on another origin that
 * rebinds its DNS name to 127.0.0.1 still sends its own name in Host. A page that
 * calls 127.0.0.1 directly sends a matching Host but its own Origin, which the
 * MCP endpoint checks as well (the streamable HTTP transport requires it).
 *
 * Whatever the binding, a Host header must be a host and an optional port and
 * nothing else (RFC 9110: no userinfo, path or spaces): `evil.example@127.0.0.1`
 * names 127.0.0.1 to a URL parser, and one with credentials breaks the MCP
 * transport's request.
 */
import { isIP } from 'node:net';

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

/**
 * A Host header as its host (lower case; IPv6 in brackets) and port, or undefined when it is
 * anything else: a DNS name or IPv4 address of letters, digits, `-`, `.` and `_`, or a bracketed
 * IPv6 address, then at most a port of 0 to 65535. Stricter than a URL parser, which would take
 * userinfo, percent escapes, a path or Unicode and still find a host in it.
 */
export function parseHostHeader(value: string): { readonly host: string; readonly port: number | undefined } | undefined {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{0,5}))?$/.exec(value);
  if (match === null) return undefined;
  const host = (match[1] as string).toLowerCase();
  if (host.startsWith('[') && isIP(host.slice(1, -1)) !== 6) return undefined;
  const port = match[2] === undefined || match[2] === '' ? undefined : Number(match[2]);
  if (port !== undefined && port > 65_535) return undefined;
  return { host, port };
}

/** Whether a Host header is well formed (parseHostHeader); a request without one (HTTP/1.0) passes. */
export function wellFormedHost(hostHeader: string | undefined): boolean {
  return hostHeader === undefined || parseHostHeader(hostHeader) !== undefined;
}

/** A check of the Host header (any port) against the loopback names and the bound host; a malformed one is foreign. */
export function loopbackHostCheck(boundHost: string): (hostHeader: string | undefined) => boolean {
  const allowed = new Set([...LOOPBACK_HOSTNAMES, urlHost(boundHost).toLowerCase()]);
  return (hostHeader) => {
    if (hostHeader === undefined) return false;
    const parsed = parseHostHeader(hostHeader);
    if (parsed === undefined) return false;
    try {
      // The URL parser's canonical form, as a browser resolves the name: 127.1 is 127.0.0.1.
      return allowed.has(new URL(`http://${parsed.host}`).hostname);
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
