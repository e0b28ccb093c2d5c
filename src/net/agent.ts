/**
 * The project's outbound HTTP connection setup on undici: one keep-alive Agent with connect,
 * headers and body timeouts, a bound on connections per origin and, unless private networks are
 * allowed, a DNS lookup that refuses every name resolving to a non-public address. The lookup runs
 * for each new connection, right before it is opened, so a name cannot be rebound between the
 * check and its use. (IP-literal hosts skip DNS; callers check those themselves, before asking.)
 */
import { lookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { BlockedAddressError, restrictedKind } from './address-policy.js';

export interface AgentSettings {
  readonly allowPrivateNetwork: boolean;
  /** Lower-case host names resolved without the check (IP literals are not looked up at all). */
  readonly trustedHosts?: readonly string[];
  readonly connectTimeoutMs: number;
  readonly headersTimeoutMs: number;
  /** Longest silence while a body arrives. */
  readonly bodyTimeoutMs: number;
  /** Open connections per origin at most; further requests queue for a free one. */
  readonly connectionsPerOrigin: number;
  /** Responses larger than this fail instead of filling memory. */
  readonly maxResponseBytes?: number;
}

/** dns.lookup, failing with a BlockedAddressError when any address of the name is not public. */
export const publicAddressLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) {
      callback(error, '');
      return;
    }
    for (const { address } of addresses) {
      const kind = restrictedKind(address);
      if (kind !== undefined) {
        callback(new BlockedAddressError(address, kind, hostname), '');
        return;
      }
    }
    const [first] = addresses;
    if (options.all) callback(null, addresses);
    else if (first) callback(null, first.address, first.family);
    else callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '');
  });
};

function publicAddressLookupExcept(trustedHosts: readonly string[]): LookupFunction {
  if (trustedHosts.length === 0) return publicAddressLookup;
  const trusted = new Set(trustedHosts);
  return (hostname, options, callback) =>
    (trusted.has(hostname.toLowerCase()) ? lookup : publicAddressLookup)(hostname, options, callback);
}

export function createAgent(settings: AgentSettings): Agent {
  return new Agent({
    connect: {
      timeout: settings.connectTimeoutMs,
      ...(settings.allowPrivateNetwork ? {} : { lookup: publicAddressLookupExcept(settings.trustedHosts ?? []) }),
    },
    headersTimeout: settings.headersTimeoutMs,
    bodyTimeout: settings.bodyTimeoutMs,
    connections: settings.connectionsPerOrigin,
    ...(settings.maxResponseBytes === undefined ? {} : { maxResponseSize: settings.maxResponseBytes }),
  });
}

/**
 * A response body as bytes, chunk by chunk as it arrives; `failure` maps an error while it is read
 * (a cut connection), and the body is released however the reader stops.
 */
export async function* bytesOf(body: Dispatcher.ResponseData['body'], failure: (error: unknown) => unknown = (error) => error): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of body) yield chunk as Uint8Array;
  } catch (error) {
    throw failure(error);
  } finally {
    body.destroy();
  }
}
