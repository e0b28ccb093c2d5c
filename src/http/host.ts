/**
 * DNS-rebinding protection. A server bound to a loopback address answers only
 * requests whose Host header names a loopback host: a page on another origin that
 * rebinds its DNS name to 127.0.0.1 still sends its own name in Host.
 */

const LOOPBACK_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];

/** The host as it appears in a URL: IPv6 addresses in brackets. */
export function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
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
