// Which IP addresses fetch_url may connect to. Everything not public (loopback, private, link-local, reserved)
// is refused unless the web policy allows it, so an agent cannot probe the local network.
import { BlockList, isIP } from 'node:net';
import type { WebPolicy } from '../adapters-interaction.js';

export type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'reserved';

function listOf(subnets: ReadonlyArray<readonly [string, number]>): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of subnets) list.addSubnet(network, prefix, isIP(network) === 6 ? 'ipv6' : 'ipv4');
  return list;
}

// Order matters: the first list that holds the address names its kind. IPv4-mapped IPv6 addresses
// (::ffff:10.0.0.1) match the IPv4 rules, which BlockList handles. Built on first use: BlockLists are slow
// enough to show in the command's start-up, and most runs never fetch a URL.
let kinds: ReadonlyArray<readonly [AddressKind, BlockList]> | undefined;
const KINDS = (): ReadonlyArray<readonly [AddressKind, BlockList]> =>
  (kinds ??= [
    [
      'loopback',
      listOf([
        ['127.0.0.0', 8],
        ['::1', 128],
      ]),
    ],
    [
      'private',
      listOf([
        ['10.0.0.0', 8],
        ['172.16.0.0', 12],
        ['192.168.0.0', 16],
        ['100.64.0.0', 10], // carrier-grade NAT
        ['198.18.0.0', 15], // benchmarking
        ['fc00::', 7], // unique local
        ['fec0::', 10], // old site-local
      ]),
    ],
    [
      'link-local',
      listOf([
        ['169.254.0.0', 16],
        ['fe80::', 10],
      ]),
    ],
    [
      'reserved',
      listOf([
        ['0.0.0.0', 8], // "this host": connecting to 0.0.0.0 reaches the local machine
        ['192.0.0.0', 24],
        ['192.0.2.0', 24],
        ['198.51.100.0', 24],
        ['203.0.113.0', 24],
        ['224.0.0.0', 4], // multicast
        ['240.0.0.0', 4], // reserved and broadcast
        ['::', 128],
        ['64:ff9b::', 96], // NAT64: may embed a private IPv4 address
        ['100::', 64],
        ['2001:db8::', 32],
        ['ff00::', 8],
      ]),
    ],
  ]);

/** The kind of an IP address (v4 or v6, without brackets). */
export function classifyAddress(ip: string): AddressKind {
  const family = isIP(ip);
  if (family === 0) throw new Error(`not an IP address: ${ip}`);
  const type = family === 6 ? 'ipv6' : 'ipv4';
  for (const [kind, list] of KINDS()) if (list.check(ip, type)) return kind;
  return 'public';
}

export function addressAllowed(
  kind: AddressKind,
  policy: Pick<WebPolicy, 'allowLoopback' | 'allowPrivateAddresses'>,
): boolean {
  if (kind === 'public' || policy.allowPrivateAddresses === true) return true;
  return kind === 'loopback' && policy.allowLoopback === true;
}

/** Why an address is refused, or undefined when it is allowed. */
export function addressRefusal(
  host: string,
  ip: string,
  policy: Pick<WebPolicy, 'allowLoopback' | 'allowPrivateAddresses'>,
): string | undefined {
  const kind = classifyAddress(ip);
  if (addressAllowed(kind, policy)) return undefined;
  const where = host === ip ? ip : `${host} (resolves to ${ip})`;
  return `${where} is a ${kind} address; fetch_url only reaches public addresses unless the configuration allows private addresses`;
}

/** The hostname of a URL without IPv6 brackets. */
export function bareHostname(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}
