import { isIPv4, isIPv6 } from 'node:net';

/** Why an address may not receive webhooks; `undefined` from `classifyAddress` means a public unicast address. */
export type AddressCategory = 'loopback' | 'private' | 'link-local' | 'multicast' | 'unspecified' | 'cloud-metadata' | 'reserved';

type V4Rule = [base: number, bits: number, category: AddressCategory];
type V6Rule = [base: bigint, bits: number, category: AddressCategory | 'embedded-v4'];

/**
 * IPv4 ranges a partner endpoint may never resolve to, most specific first (first match wins).
 * Besides RFC 1918 and loopback this covers the ranges an SSRF uses to reach a cloud host's own
 * services: link-local (169.254.169.254 is the metadata service of AWS, GCP and Azure), the shared
 * CGNAT range (Alibaba's metadata at 100.100.100.200) and IETF special-purpose blocks.
 */
const V4_RULES: V4Rule[] = (
  [
    ['169.254.169.254/32', 'cloud-metadata'],
    ['169.254.170.2/32', 'cloud-metadata'], // AWS ECS task credentials
    ['100.100.100.200/32', 'cloud-metadata'], // Alibaba Cloud
    ['192.0.0.192/32', 'cloud-metadata'], // Oracle Cloud
    ['0.0.0.0/8', 'unspecified'], // "this network": 0.0.0.0 reaches the local host on Linux
    ['10.0.0.0/8', 'private'],
    ['100.64.0.0/10', 'private'], // shared address space (carrier-grade NAT)
    ['127.0.0.0/8', 'loopback'],
    ['169.254.0.0/16', 'link-local'],
    ['172.16.0.0/12', 'private'],
    ['192.0.0.0/24', 'reserved'],
    ['192.0.2.0/24', 'reserved'],
    ['192.88.99.0/24', 'reserved'],
    ['192.168.0.0/16', 'private'],
    ['198.18.0.0/15', 'reserved'],
    ['198.51.100.0/24', 'reserved'],
    ['203.0.113.0/24', 'reserved'],
    ['224.0.0.0/4', 'multicast'],
    ['240.0.0.0/4', 'reserved'], // includes the broadcast address 255.255.255.255
  ] as const
).map(([cidr, category]) => {
  const [ip, bits] = cidr.split('/');
  return [v4ToNumber(ip), Number(bits), category];
});

/**
 * IPv6: anything outside global unicast (2000::/3) is refused; inside it, the special blocks.
 * Addresses that carry an IPv4 address (IPv4-mapped, NAT64, 6to4) are judged by that IPv4 address,
 * since that is where the packets end up.
 */
const V6_RULES: V6Rule[] = (
  [
    ['::/128', 'unspecified'],
    ['::1/128', 'loopback'],
    ['::ffff:0:0/96', 'embedded-v4'],
    ['64:ff9b::/96', 'embedded-v4'],
    ['2002::/16', 'embedded-v4'],
    ['fd00:ec2::254/128', 'cloud-metadata'], // AWS instance metadata over IPv6
    ['fc00::/7', 'private'], // unique local
    ['fec0::/10', 'private'], // deprecated site-local
    ['fe80::/10', 'link-local'],
    ['ff00::/8', 'multicast'],
    ['2001:db8::/32', 'reserved'],
    ['2001::/23', 'reserved'], // IETF protocol assignments (Teredo, benchmarking, ORCHID)
    ['3fff::/20', 'reserved'],
  ] as const
).map(([cidr, category]) => {
  const [ip, bits] = cidr.split('/');
  return [v6ToBigInt(ip)!, Number(bits), category];
});

const GLOBAL_UNICAST_V6 = v6ToBigInt('2000::')!;

function v4ToNumber(ip: string): number {
  return ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

function inV4(ip: number, base: number, bits: number): boolean {
  const size = 2 ** (32 - bits);
  return Math.floor(ip / size) === Math.floor(base / size);
}

function inV6(ip: bigint, base: bigint, bits: number): boolean {
  const shift = BigInt(128 - bits);
  return ip >> shift === base >> shift;
}

/** 128-bit value of an IPv6 address (zone id and brackets tolerated), or undefined. */
export function v6ToBigInt(raw: string): bigint | undefined {
  let ip = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw;
  ip = ip.split('%')[0];
  if (!isIPv6(ip)) return undefined;
  // A trailing dotted quad (::ffff:127.0.0.1) becomes two hex groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (quad) {
    const n = v4ToNumber(quad[1]);
    ip = `${ip.slice(0, -quad[1].length)}${Math.floor(n / 65_536).toString(16)}:${(n % 65_536).toString(16)}`;
  }
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? headGroups : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g || '0', 16)), 0n);
}

function classifyV4(n: number): AddressCategory | undefined {
  for (const [base, bits, category] of V4_RULES) if (inV4(n, base, bits)) return category;
  return undefined;
}

function classifyV6(n: bigint): AddressCategory | undefined {
  for (const [base, bits, category] of V6_RULES) {
    if (!inV6(n, base, bits)) continue;
    if (category !== 'embedded-v4') return category;
    // 6to4 carries the IPv4 address in bits 16..47; the others in the low 32 bits.
    const v4 = bits === 16 ? Number((n >> 80n) & 0xffff_ffffn) : Number(n & 0xffff_ffffn);
    return classifyV4(v4);
  }
  return inV6(n, GLOBAL_UNICAST_V6, 3) ? undefined : 'reserved';
}

/**
 * The category of an IP address that must not receive a webhook, or `undefined` for a public one.
 * Something that is not an IP address at all is `reserved` (refused): callers pass resolved addresses.
 */
export function classifyAddress(address: string): AddressCategory | undefined {
  if (isIPv4(address)) return classifyV4(v4ToNumber(address));
  const v6 = v6ToBigInt(address);
  return v6 === undefined ? 'reserved' : classifyV6(v6);
}
