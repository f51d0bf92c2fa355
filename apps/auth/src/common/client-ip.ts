import { isIPv4, isIPv6 } from 'node:net';
import type { FastifyRequest } from 'fastify';

/**
 * The client address for per-IP throttles. Behind the gateway every request comes from the
 * gateway, so with TRUST_FORWARDED_FOR the last X-Forwarded-For entry (the one the gateway
 * appended) is used; never the first, which the client controls.
 */
export function clientIp(request: FastifyRequest, trustForwardedFor: boolean): string {
  if (trustForwardedFor) {
    const header = request.headers['x-forwarded-for'];
    const value = Array.isArray(header) ? header.join(',') : header;
    const last = value
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .pop();
    if (last && /^[0-9a-fA-F:.]{2,45}$/.test(last)) return last;
  }
  return request.ip;
}

/**
 * What a per-address limit counts: an IPv4 address as is (also when written IPv4-mapped), an IPv6
 * address by its /64, because one subscriber line usually gets a whole /64 and could otherwise
 * rotate through addresses to escape the limit.
 */
export function addressBucket(ip: string): string {
  const address = ip.trim().replace(/%.*$/, '').toLowerCase();
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return address;
  const groups = expandIPv6(address);
  if (groups.slice(0, 5).every((g) => g === '0') && groups[5] === 'ffff') {
    const [hi, lo] = [parseInt(groups[6], 16), parseInt(groups[7], 16)];
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
  }
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, without leading zeros. */
function expandIPv6(address: string): string[] {
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const groups = (part: string | undefined): string[] => {
    if (!part) return [];
    return part.split(':').flatMap((g) => {
      if (!g.includes('.')) return [g];
      const [a, b, c, d] = g.split('.').map(Number);
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    });
  };
  const front = groups(head);
  const back = groups(tail);
  const middle = tail === undefined ? [] : Array<string>(8 - front.length - back.length).fill('0');
  return [...front, ...middle, ...back].map((g) => parseInt(g, 16).toString(16));
}
