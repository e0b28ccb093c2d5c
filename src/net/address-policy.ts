/**
 * Which IP addresses an outbound fetch may reach when private networks are not allowed:
 * anything but loopback, private, link-local, carrier-grade NAT, multicast, unspecified and
 * reserved ranges, in IPv4 and IPv6. IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`) are
 * matched against the IPv4 ranges by node's BlockList itself; the other IPv6 forms that carry
 * an IPv4 address to which the traffic goes (NAT64, 6to4, Teredo, IPv4-translated) are judged
 * by that address: `64:ff9b::7f00:1` is loopback, `64:ff9b::808:808` is public.
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

/** An IPv6 address as its eight 16-bit groups; `address` must be valid IPv6 (isIP gives 6). */
function ipv6Groups(address: string): number[] {
  const groupsOf = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((piece) => {
          if (!piece.includes('.')) return [Number.parseInt(piece, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = piece.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head = '', tail] = address.replace(/%.*$/, '').split('::');
  const front = groupsOf(head);
  if (tail === undefined) return front;
  const back = groupsOf(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

interface Ipv4Embedding {
  /** How the IPv6 address carries the IPv4 one, as the refusal names it. */
  readonly name: string;
  readonly prefix: BlockList;
  /** The 32 bits of the IPv4 address, from the eight groups of the IPv6 one. */
  readonly ipv4: (groups: readonly number[]) => number;
}

const prefixList = (network: string, prefix: number): BlockList => {
  const list = new BlockList();
  list.addSubnet(network, prefix, 'ipv6');
  return list;
};

const bits32 = (high = 0, low = 0): number => ((high << 16) | low) >>> 0;

// The local-use NAT64 prefix (64:ff9b:1::/48) places its IPv4 address by the operator's prefix
// length, which cannot be known here; it is refused as a whole above.
const IPV4_EMBEDDINGS: readonly Ipv4Embedding[] = [
  { name: 'NAT64', prefix: prefixList('64:ff9b::', 96), ipv4: (groups) => bits32(groups[6], groups[7]) },
  { name: 'IPv4-translated', prefix: prefixList('::ffff:0:0:0', 96), ipv4: (groups) => bits32(groups[6], groups[7]) },
  { name: '6to4', prefix: prefixList('2002::', 16), ipv4: (groups) => bits32(groups[1], groups[2]) },
  // The Teredo client's address, the one the relay delivers to, is stored inverted.
  { name: 'Teredo', prefix: prefixList('2001::', 32), ipv4: (groups) => ~bits32(groups[6], groups[7]) >>> 0 },
];

/** The IPv4 address an IPv6 address carries to, with the name of the form, or undefined. */
export function embeddedIpv4(address: string): { readonly form: string; readonly ipv4: string } | undefined {
  if (isIP(address) !== 6) return undefined;
  const embedding = IPV4_EMBEDDINGS.find(({ prefix }) => prefix.check(address, 'ipv6'));
  if (embedding === undefined) return undefined;
  const value = embedding.ipv4(ipv6Groups(address));
  return { form: embedding.name, ipv4: [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join('.') };
}

/** The range an address itself lies in, regardless of any IPv4 address it carries. */
function rangeKind(address: string): AddressKind | undefined {
  const family = isIP(address);
  if (family === 0) return undefined;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return LISTS.find(([, list]) => list.check(address, type))?.[0];
}

/** The kind of a non-public address, or undefined for a public one (and for anything not an IP address). */
export function restrictedKind(address: string): AddressKind | undefined {
  const embedded = embeddedIpv4(address);
  return rangeKind(address) ?? (embedded === undefined ? undefined : rangeKind(embedded.ipv4));
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

/**
 * "127.0.0.1 is a loopback address; set …", or with `name`: "localhost resolves to 127.0.0.1, a
 * loopback address; set …". An address that carries an IPv4 one says so: "64:ff9b::7f00:1 (NAT64
 * for 127.0.0.1) is a loopback address; set …".
 */
export function refusalMessage(address: string, kind: AddressKind, name?: string): string {
  const what = `${withArticle(kind)} address`;
  const embedded = rangeKind(address) === undefined ? embeddedIpv4(address) : undefined;
  const shown = embedded === undefined ? address : `${address} (${embedded.form} for ${embedded.ipv4})`;
  return name === undefined
    ? `${shown} is ${what}; ${HOW_TO_ALLOW}`
    : `${name} resolves to ${shown}, ${what}; ${HOW_TO_ALLOW}`;
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
