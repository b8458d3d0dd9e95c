/**
 * The drive channel's address policy (issue 39), case by case: which remote candidates the server
 * may send its connectivity checks to.
 */
import { BlockList } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  type AddressPolicy,
  addressPolicy,
  allowedNetworks,
  candidateVerdict,
  destinationRefusal,
  ownAddresses,
  parseCandidate,
} from './drive-channel-addresses.js';

const own = new BlockList();
own.addAddress('198.51.100.20', 'ipv4');
own.addAddress('93.184.215.10', 'ipv4');
own.addAddress('2a01:4f8::10', 'ipv6');
const policy: AddressPolicy = { allowed: allowedNetworks([]), own };
const lan: AddressPolicy = {
  allowed: allowedNetworks([
    { address: '192.168.1.0', prefix: 24 },
    { address: 'fd00::', prefix: 8 },
  ]),
  own,
};

const line = (address: string, port = 50_000, rest = 'typ host') =>
  `candidate:1 1 udp 2113937151 ${address} ${port} ${rest}`;

describe('parseCandidate', () => {
  it('reads the fields werift reads, with or without a=', () => {
    expect(parseCandidate(line('8.8.4.4'))).toEqual({
      component: 1,
      transport: 'udp',
      address: '8.8.4.4',
      port: 50_000,
      type: 'host',
    });
    expect(parseCandidate(`a=${line('8.8.4.4', 3478, 'typ srflx raddr 0.0.0.0 rport 0')}`)).toMatchObject({
      port: 3478,
      type: 'srflx',
    });
  });

  it.each([
    ['no candidate: prefix', '1 1 udp 1 8.8.4.4 50000 typ host'],
    ['no typ', 'candidate:1 1 udp 1 8.8.4.4 50000 host'],
    ['a word for a port', 'candidate:1 1 udp 1 8.8.4.4 http typ host'],
    ['a negative port', 'candidate:1 1 udp 1 8.8.4.4 -5 typ host'],
    ['a word for a priority', 'candidate:1 1 udp high 8.8.4.4 50000 typ host'],
    ['missing fields', 'candidate:1 1 udp'],
    ['empty', ''],
  ])('refuses %s', (_, text) => {
    expect(parseCandidate(text)).toBeNull();
  });
});

describe('candidateVerdict', () => {
  it('takes a public IPv4 or IPv6 address on a port from 1024, of each type a browser signals', () => {
    for (const candidate of [
      line('8.8.4.4'),
      line('8.8.4.4', 1024),
      line('8.8.4.4', 65_535),
      line('93.184.215.14', 40_000, 'typ srflx raddr 0.0.0.0 rport 0'),
      line('93.184.215.14', 49_160, 'typ relay raddr 93.184.215.14 rport 40000'),
      line('2a00:1450:4001:80b::200e'),
      `candidate:842163049 1 UDP 1677729535 8.8.4.4 61000 typ srflx raddr 0.0.0.0 rport 0 generation 0 ufrag tEle network-cost 999`,
    ])
      expect(candidateVerdict(candidate, policy)).toHaveProperty('take');
  });

  it("ignores the browser's mDNS name for its host address, without refusing it", () => {
    expect(candidateVerdict(line('0b5e1f5c-7d1a-4c6e-9a1b-2f0e6d7c8a9b.local'), policy)).toEqual({
      ignore: 'mdns',
    });
    expect(candidateVerdict(line('0B5E1F5C-7D1A-4C6E-9A1B-2F0E6D7C8A9B.local'), policy)).toEqual({
      ignore: 'mdns',
    });
  });

  it.each([
    // Names: werift would resolve any name containing ".local" by multicast DNS on the server's LAN.
    ['a name that only contains .local', line('x.local.example'), 'name'],
    ['another .local name', line('printer.local'), 'name'],
    [
      'a UUID-looking name with more after it',
      line('0b5e1f5c-7d1a-4c6e-9a1b-2f0e6d7c8a9b.local.evil'),
      'name',
    ],
    ['a DNS name', line('evil.example'), 'name'],
    ['a short IPv4 form', line('127.1'), 'name'],
    ['a hexadecimal IPv4 form', line('0x7f000001'), 'name'],
    ['an IPv6 address with a zone', line('fe80::1%eth0'), 'name'],
    // Ports below 1024: DNS, NTP, SNMP, syslog and the like.
    ['port 53', line('8.8.4.4', 53), 'port'],
    ['port 123', line('8.8.4.4', 123), 'port'],
    ['port 161', line('8.8.4.4', 161), 'port'],
    ['port 514', line('8.8.4.4', 514), 'port'],
    ['port 1023', line('8.8.4.4', 1023), 'port'],
    ['port 0', line('8.8.4.4', 0), 'port'],
    ['port 65536', line('8.8.4.4', 65_536), 'port'],
    // Special-purpose IPv4.
    ['this network', line('0.0.0.0'), 'special_purpose'],
    ['loopback', line('127.0.0.1'), 'special_purpose'],
    ['loopback, elsewhere in 127/8', line('127.0.0.2'), 'special_purpose'],
    ['RFC 1918 10/8', line('10.1.2.3'), 'special_purpose'],
    ['RFC 1918 172.16/12', line('172.31.255.1'), 'special_purpose'],
    ['RFC 1918 192.168/16', line('192.168.0.10'), 'special_purpose'],
    ['CGNAT', line('100.64.0.1'), 'special_purpose'],
    ['CGNAT, its top', line('100.127.255.254'), 'special_purpose'],
    ['link-local (cloud metadata)', line('169.254.169.254'), 'special_purpose'],
    ['IETF protocol assignments', line('192.0.0.8'), 'special_purpose'],
    ['TEST-NET-1', line('192.0.2.1'), 'special_purpose'],
    ['TEST-NET-2', line('198.51.100.7'), 'special_purpose'],
    ['TEST-NET-3', line('203.0.113.7'), 'special_purpose'],
    ['benchmarking', line('198.19.0.1'), 'special_purpose'],
    ['6to4 relay anycast', line('192.88.99.1'), 'special_purpose'],
    ['multicast', line('224.0.0.251'), 'special_purpose'],
    ['multicast, its top', line('239.255.255.250'), 'special_purpose'],
    ['reserved', line('240.0.0.1'), 'special_purpose'],
    ['broadcast', line('255.255.255.255'), 'special_purpose'],
    // Special-purpose IPv6, and IPv6 forms of IPv4 addresses.
    ['IPv6 unspecified', line('::'), 'special_purpose'],
    ['IPv6 loopback', line('::1'), 'special_purpose'],
    ['IPv4-mapped loopback', line('::ffff:127.0.0.1'), 'special_purpose'],
    ['IPv4-mapped loopback, in hexadecimal', line('::ffff:7f00:1'), 'special_purpose'],
    ['IPv4-mapped private', line('::ffff:10.0.0.1'), 'special_purpose'],
    ['IPv4-compatible', line('::10.0.0.1'), 'special_purpose'],
    ['NAT64 of a private address', line('64:ff9b::a00:1'), 'special_purpose'],
    ['6to4', line('2002:a00:1::1'), 'special_purpose'],
    ['Teredo', line('2001:0:4136:e378::1'), 'special_purpose'],
    ['IPv6 documentation', line('2001:db8::1'), 'special_purpose'],
    ['IPv6 documentation (RFC 9637)', line('3fff::1'), 'special_purpose'],
    ['unique local', line('fd12:3456::1'), 'special_purpose'],
    ['IPv6 link-local', line('fe80::1'), 'special_purpose'],
    ['IPv6 multicast', line('ff02::fb'), 'special_purpose'],
    // The server itself.
    ["the server's public address", line('93.184.215.10'), 'own_address'],
    ["the server's address behind NAT", line('198.51.100.20'), 'own_address'],
    ["the server's IPv6 address", line('2a01:4f8::10'), 'own_address'],
    ["the server's IPv6 address, written longer", line('2a01:04f8:0:0:0:0:0:10'), 'own_address'],
    ["the server's address, IPv4-mapped", line('::ffff:93.184.215.10'), 'own_address'],
    // Not what a DataChannel's ICE uses.
    ['TCP', 'candidate:1 1 tcp 1518280447 8.8.4.4 9 typ host tcptype active', 'transport'],
    ['component 2 (RTCP)', 'candidate:1 2 udp 2113937151 8.8.4.4 50000 typ host', 'component'],
    ['a signalled peer-reflexive candidate', line('8.8.4.4', 50_000, 'typ prflx'), 'type'],
    ['an unknown type', line('8.8.4.4', 50_000, 'typ cannon'), 'type'],
    ['a line that does not parse', 'candidate:1 1 udp 1 8.8.4.4', 'malformed'],
  ])('refuses %s', (_, candidate, reason) => {
    expect(candidateVerdict(candidate, policy)).toEqual({ refuse: reason });
  });

  it("takes the operator's allowed networks, and only those, for a LAN deployment", () => {
    expect(candidateVerdict(line('192.168.1.30'), lan)).toHaveProperty('take');
    expect(candidateVerdict(line('fd00::30'), lan)).toHaveProperty('take');
    expect(candidateVerdict(line('192.168.2.30'), lan)).toEqual({ refuse: 'special_purpose' });
    expect(candidateVerdict(line('10.0.0.1'), lan)).toEqual({ refuse: 'special_purpose' });
  });

  it('keeps the port and own-address rules inside the allowed networks', () => {
    expect(candidateVerdict(line('192.168.1.30', 53), lan)).toEqual({ refuse: 'port' });
    const ownOnLan = new BlockList();
    ownOnLan.addAddress('192.168.1.10', 'ipv4');
    expect(candidateVerdict(line('192.168.1.10'), { allowed: lan.allowed, own: ownOnLan })).toEqual({
      refuse: 'own_address',
    });
  });
});

describe('destinationRefusal', () => {
  it('judges an address and port as the candidates do (werift pairs)', () => {
    expect(destinationRefusal('8.8.4.4', 50_000, policy)).toBeNull();
    expect(destinationRefusal('127.0.0.1', 50_000, policy)).toBe('special_purpose');
    expect(destinationRefusal('8.8.4.4', 11_211, policy)).toBeNull();
    expect(destinationRefusal('8.8.4.4', 514, policy)).toBe('port');
    expect(destinationRefusal('x.local.example', 50_000, policy)).toBe('name');
  });
});

describe("the server's own addresses", () => {
  it('are its interfaces’ and the public one it announces', () => {
    const addresses = ownAddresses('203.0.113.7');
    expect(addresses.check('127.0.0.1', 'ipv4')).toBe(true);
    expect(addresses.check('203.0.113.7', 'ipv4')).toBe(true);
    expect(addresses.check('8.8.4.4', 'ipv4')).toBe(false);
  });

  it('are refused even when the operator allows their network', () => {
    const loopback = addressPolicy({
      publicIp: null,
      allowedNetworks: [{ address: '127.0.0.0', prefix: 8 }],
    });
    expect(destinationRefusal('127.0.0.1', 50_000, loopback)).toBe('own_address');
    expect(destinationRefusal('127.0.0.2', 50_000, loopback)).toBeNull();
  });
});
