/**
 * A client in front of several replicas of one service, as a load balancer in front of pods: each
 * request goes to the next replica in turn. A request that got no answer is not resent here — the
 * load's own retry (the same idempotency key, `untilDefinite`) does that, and its next try lands
 * on the next replica, so a killed replica costs one unanswered try, never a lost operation.
 */
import { type Answer, HttpCaller, type Tally } from './ledger-load';

export class BalancedCaller extends HttpCaller {
  private readonly upstreams: HttpCaller[];
  private next = 0;

  constructor(urls: string[], tally: Tally, headers: Record<string, string> = {}, timeoutMs?: number) {
    super(urls[0], tally, headers, timeoutMs);
    this.upstreams = urls.map((url) => new HttpCaller(url, tally, headers, timeoutMs));
  }

  override call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const upstream = this.upstreams[this.next++ % this.upstreams.length];
    return upstream.call(method, path, body, headers);
  }
}
