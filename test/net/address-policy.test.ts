import { describe, expect, it } from 'vitest';
import { embeddedIpv4, refusalMessage, restrictedKind } from '../../src/net/address-policy.js';

describe('restrictedKind: IPv6 addresses that carry an IPv4 address', () => {
  it.each([
    ['64:ff9b::7f00:1', 'NAT64', '127.0.0.1', 'loopback'],
    ['64:ff9b::127.0.0.1', 'NAT64', '127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'NAT64', '169.254.169.254', 'link-local'],
    ['64:ff9b::c0a8:101', 'NAT64', '192.168.1.1', 'private'],
    ['2002:7f00:1::', '6to4', '127.0.0.1', 'loopback'],
    ['2002:a00:1:5::9', '6to4', '10.0.0.1', 'private'],
    ['2002:6440:1::', '6to4', '100.64.0.1', 'carrier-grade NAT'],
    // Teredo keeps its client's address inverted: 80ff:fffe is 127.0.0.1.
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo', '127.0.0.1', 'loopback'],
    ['2001::f5ff:fffe', 'Teredo', '10.0.0.1', 'private'],
    ['::ffff:0:7f00:1', 'IPv4-translated', '127.0.0.1', 'loopback'],
  ])('judges %s (%s for %s) as %s', (address, form, ipv4, kind) => {
    expect(embeddedIpv4(address)).toEqual({ form, ipv4 });
    expect(restrictedKind(address)).toBe(kind);
  });

  it.each([
    ['64:ff9b::808:808', '8.8.8.8'],
    ['2002:808:808::1', '8.8.8.8'],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', '8.8.8.8'],
  ])('lets %s through: it carries the public %s', (address, ipv4) => {
    expect(embeddedIpv4(address)?.ipv4).toBe(ipv4);
    expect(restrictedKind(address)).toBeUndefined();
  });

  it('refuses the whole local-use NAT64 prefix, and leaves other IPv6 addresses to their own ranges', () => {
    expect(restrictedKind('64:ff9b:1::a00:1')).toBe('private');
    expect(restrictedKind('2606:4700::1111')).toBeUndefined();
    expect(restrictedKind('2001:4860:4860::8888')).toBeUndefined();
    expect(embeddedIpv4('2606:4700::1111')).toBeUndefined();
    expect(embeddedIpv4('127.0.0.1')).toBeUndefined();
  });

  it('names the carried address in the refusal', () => {
    expect(refusalMessage('64:ff9b::7f00:1', 'loopback')).toBe(
      '64:ff9b::7f00:1 (NAT64 for 127.0.0.1) is a loopback address; set GURU_ALLOW_PRIVATE_NETWORK=1 to allow private and loopback addresses',
    );
    expect(refusalMessage('2002:a00:1::', 'private', 'intranet.test')).toBe(
      'intranet.test resolves to 2002:a00:1:: (6to4 for 10.0.0.1), a private address; set GURU_ALLOW_PRIVATE_NETWORK=1 to allow private and loopback addresses',
    );
    expect(refusalMessage('::1', 'loopback')).toMatch(/^::1 is a loopback address;/);
  });
});
