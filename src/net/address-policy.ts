/**
 * Which IP addresses an outbound fetch may reach when private networks are not allowed:
 * anything but loopback, private, link-local, carrier-grade NAT, multicast, unspecified and
 * reserved ranges, in IPv4 and IPv6. IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`) are
 * matched against the IPv4 ranges by node's BlockList itself.
 */
import { BlockList, isIP } from 'node:net';

export type AddressKind =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'carrier-grade NAT'
  | 'multicast'
  | 'unspecified'
  | 'reserved';

type Subnet = readonly [network: string, prefix: number];

const RANGES: ReadonlyArray<readonly [AddressKind, { readonly ipv4: readonly Subnet[]; readonly ipv6: readonly Subnet[] }]> = [
  ['unspecified', { ipv4: [['0.0.0.0', 8]], ipv6: [['::', 128]] }],
  ['loopback', { ipv4: [['127.0.0.0', 8]], ipv6: [['::1', 128]] }],
  [
    'private',
    {
      ipv4: [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16]],
      // Unique local, the deprecated site-local, and the local-use NAT64 prefix.
      ipv6: [['fc00::', 7], ['fec0::', 10], ['64:ff9b:1::', 48]],
    },
  ],
  ['link-local', { ipv4: [['169.254.0.0', 16]], ipv6: [['fe80::', 10]] }],
  ['carrier-grade NAT', { ipv4: [['100.64.0.0', 10]], ipv6: [] }],
  ['multicast', { ipv4: [['224.0.0.0', 4]], ipv6: [['ff00::', 8]] }],
  [
    'reserved',
    {
      // IETF protocol assignments, benchmarking (used by fake-IP proxies), class E and broadcast.
      ipv4: [['192.0.0.0', 24], ['198.18.0.0', 15], ['240.0.0.0', 4]],
      // The deprecated IPv4-compatible block and the discard prefix.
      ipv6: [['::', 96], ['100::', 64]],
    },
  ],
];

const LISTS: ReadonlyArray<readonly [AddressKind, BlockList]> = RANGES.map(([kind, { ipv4, ipv6 }]) => {
  const list = new BlockList();
  for (const [network, prefix] of ipv4) list.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix] of ipv6) list.addSubnet(network, prefix, 'ipv6');
  return [kind, list] as const;
});

/** The kind of a non-public address, or undefined for a public one (and for anything not an IP address). */
export function restrictedKind(address: string): AddressKind | undefined {
  const family = isIP(address);
  if (family === 0) return undefined;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return LISTS.find(([, list]) => list.check(address, type))?.[0];
}

/** The IP address a URL host names literally (`[::1]` → `::1`), or undefined for a DNS name. */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? undefined : bare;
}

const HOW_TO_ALLOW = 'set GURU_ALLOW_PRIVATE_NETWORK=1 to allow private and loopback addresses';

function withArticle(kind: AddressKind): string {
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;
}

/** "127.0.0.1 is a loopback address; set …", or with `name`: "localhost resolves to 127.0.0.1, a loopback address; set …". */
export function refusalMessage(address: string, kind: AddressKind, name?: string): string {
  const what = `${withArticle(kind)} address`;
  return name === undefined
    ? `${address} is ${what}; ${HOW_TO_ALLOW}`
    : `${name} resolves to ${address}, ${what}; ${HOW_TO_ALLOW}`;
}

/** A connection refused because of where it would go. Thrown before any connection attempt. */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_BLOCKED_ADDRESS';

  constructor(
    readonly address: string,
    readonly kind: AddressKind,
    readonly hostname?: string,
  ) {
    super(refusalMessage(address, kind, hostname));
    this.name = 'BlockedAddressError';
  }
}
