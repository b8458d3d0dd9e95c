/**
 * Where a drive channel may send its connectivity checks (issue 39): the one address policy every
 * remote ICE candidate goes through, written in the offer's SDP or trickled, on the main thread
 * (drive-channel.ts) and again in the worker (drive-channel-peers.ts, with werift's candidate-pair
 * filter). A remote candidate is a destination the member names: without this policy the server
 * sent STUN to any host and port a member wrote, DNS and syslog on its own network included.
 *
 * A candidate is taken when it is UDP, component 1 (a DataChannel is one bundled, rtcp-muxed
 * transport), of a type a browser signals (host, srflx, relay), at an IP literal (no name: werift
 * would look a `.local` name up by multicast on the server's network) and port ≥ 1024, outside
 * the special-purpose ranges — loopback, RFC 1918, CGNAT, link-local, multicast, documentation,
 * benchmarking, reserved, and IPv6's equivalents and IPv4-embedding prefixes — and not one of the
 * server's own addresses. The operator may allow networks for a LAN deployment
 * (DRIVE_CHANNEL_ALLOWED_NETWORKS): they lift the special-purpose rule only, never the port or
 * own-address rules. The browser's own mDNS form (`<uuid>.local`, which hides its host address)
 * is ignored, not refused: the browser's checks reach the server anyway and werift learns that
 * address as a peer-reflexive candidate, from a packet that came from there.
 */
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** Ports below this are the system's services (DNS, NTP, SNMP, syslog…), never a browser's. */
const LOWEST_PORT = 1024;

/** IANA's special-purpose ranges no browser on the Internet is reached at. */
const SPECIAL_PURPOSE: readonly [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.0.2.0', 24, 'ipv4'],
  ['192.88.99.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  // Unspecified, loopback and IPv4-compatible (IPv4-mapped ones are checked as IPv4 by BlockList).
  ['::', 96, 'ipv6'],
  ['64:ff9b::', 96, 'ipv6'],
  ['64:ff9b:1::', 48, 'ipv6'],
  ['100::', 64, 'ipv6'],
  ['2001::', 23, 'ipv6'],
  ['2001:db8::', 32, 'ipv6'],
  ['2002::', 16, 'ipv6'],
  ['3fff::', 20, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['fec0::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

const specialPurpose = new BlockList();
for (const [network, prefix, family] of SPECIAL_PURPOSE) specialPurpose.addSubnet(network, prefix, family);

/** How a browser names its host address instead of giving it: a random UUID under `.local`. */
const BROWSER_MDNS_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.local$/i;

const SIGNALLED_TYPES = new Set(['host', 'srflx', 'relay']);

/** A network as `address/prefix` (DRIVE_CHANNEL_ALLOWED_NETWORKS). */
export interface AllowedNetwork {
  address: string;
  prefix: number;
}

/** What the policy needs besides the candidate: the operator's networks and the server's own addresses. */
export interface AddressPolicy {
  allowed: BlockList;
  /** A BlockList, which compares numbers: `::ffff:10.0.0.1` is `10.0.0.1`. */
  own: BlockList;
}

/** One remote candidate's fields, as werift reads them from the line. */
export interface ParsedCandidate {
  component: number;
  transport: string;
  address: string;
  port: number;
  type: string;
}

export type CandidateVerdict =
  | { take: ParsedCandidate }
  /** The browser's mDNS name: not a destination, and not hostile. */
  | { ignore: 'mdns' }
  | { refuse: RefusalReason };

export type RefusalReason =
  | 'malformed'
  | 'transport'
  | 'component'
  | 'type'
  | 'name'
  | 'port'
  | 'special_purpose'
  | 'own_address';

/** Every refusal reason, for counters labelled by it. */
export const REFUSAL_REASONS: readonly RefusalReason[] = [
  'malformed',
  'transport',
  'component',
  'type',
  'name',
  'port',
  'special_purpose',
  'own_address',
];

/** `candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type> …` (RFC 8839). */
export function parseCandidate(line: string): ParsedCandidate | null {
  const fields = line.replace(/^a=/, '').split(' ');
  const [foundation, component, transport, priority, address, port, typ, type] = fields;
  if (!foundation?.startsWith('candidate:') || typ !== 'typ' || !address || !type) return null;
  if (
    !/^\d{1,10}$/.test(priority ?? '') ||
    !/^\d{1,5}$/.test(component ?? '') ||
    !/^\d{1,5}$/.test(port ?? '')
  )
    return null;
  return { component: Number(component), transport: transport ?? '', address, port: Number(port), type };
}

/** The family of an IP literal without a zone (`fe80::1%eth0` is a name here), or null. */
function familyOf(address: string): 'ipv4' | 'ipv6' | null {
  if (address.includes('%')) return null;
  const version = isIP(address);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : null;
}

/** Whether the server may send to this address and port (candidates, and werift's pairs). */
export function destinationRefusal(
  address: string,
  port: number,
  policy: AddressPolicy,
): RefusalReason | null {
  const family = familyOf(address);
  if (!family) return 'name';
  if (!Number.isInteger(port) || port < LOWEST_PORT || port > 65_535) return 'port';
  if (policy.own.check(address, family)) return 'own_address';
  if (specialPurpose.check(address, family) && !policy.allowed.check(address, family))
    return 'special_purpose';
  return null;
}

/** The policy's answer for one candidate line as a browser writes it (with or without `a=`). */
export function candidateVerdict(line: string, policy: AddressPolicy): CandidateVerdict {
  const candidate = parseCandidate(line);
  if (!candidate) return { refuse: 'malformed' };
  if (candidate.transport.toLowerCase() !== 'udp') return { refuse: 'transport' };
  if (candidate.component !== 1) return { refuse: 'component' };
  if (!SIGNALLED_TYPES.has(candidate.type)) return { refuse: 'type' };
  if (BROWSER_MDNS_NAME.test(candidate.address)) return { ignore: 'mdns' };
  const refusal = destinationRefusal(candidate.address, candidate.port, policy);
  return refusal ? { refuse: refusal } : { take: candidate };
}

/** The server's addresses: its interfaces' and the public one it announces (DRIVE_CHANNEL_PUBLIC_IP). */
export function ownAddresses(publicIp: string | null): BlockList {
  const own = new BlockList();
  const add = (address: string) => {
    const family = familyOf(address);
    if (family) own.addAddress(address, family);
  };
  for (const addresses of Object.values(networkInterfaces()))
    for (const { address } of addresses ?? []) add(address);
  if (publicIp) add(publicIp);
  return own;
}

/** The operator's networks as a BlockList (checked as "allowed"). */
export function allowedNetworks(networks: readonly AllowedNetwork[]): BlockList {
  const list = new BlockList();
  for (const { address, prefix } of networks) {
    const family = familyOf(address);
    if (family) list.addSubnet(address, prefix, family);
  }
  return list;
}

/** The policy for a deployment's settings, its own addresses read now (interfaces come and go). */
export function addressPolicy(settings: {
  publicIp: string | null;
  allowedNetworks: readonly AllowedNetwork[];
}): AddressPolicy {
  return { allowed: allowedNetworks(settings.allowedNetworks), own: ownAddresses(settings.publicIp) };
}
