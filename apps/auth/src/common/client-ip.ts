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
