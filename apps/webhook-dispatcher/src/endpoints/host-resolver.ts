import { lookup } from 'node:dns/promises';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to (the injection point of a DNS stub in tests). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const HOST_RESOLVER = Symbol('HOST_RESOLVER');

/**
 * The system resolver (getaddrinfo: /etc/hosts, then DNS), as an HTTP client would use it, with
 * every address returned so that a host mixing public and internal addresses can be refused.
 */
export const systemResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
