import type { HostResolver, ResolvedAddress } from '../../src/endpoints/host-resolver';

/**
 * A scripted DNS for the dispatcher (injected as its resolver): each name answers from its list of
 * answers in turn, the last one repeating, which is how a rebinding attacker's server behaves
 * (a harmless address while the URL is registered, an internal one when the webhook is sent).
 */
export class DnsStub {
  private readonly answers = new Map<string, string[][]>();
  readonly queries: string[] = [];

  /** `answers[i]` is what the i-th lookup of `name` returns (IPv4 or IPv6 literals). */
  set(name: string, ...answers: string[][]): this {
    this.answers.set(name.toLowerCase(), answers);
    return this;
  }

  lookups(name: string): number {
    return this.queries.filter((q) => q === name.toLowerCase()).length;
  }

  readonly resolver: HostResolver = async (hostname) => {
    const name = hostname.toLowerCase();
    const seen = this.lookups(name);
    this.queries.push(name);
    const script = this.answers.get(name);
    if (!script) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const answer = script[Math.min(seen, script.length - 1)];
    return answer.map((address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}
