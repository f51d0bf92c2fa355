import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from '../endpoints/host-resolver';
import type { SendResult } from './attempt-result';

/** First bytes of the receiver's answer kept in the attempt log (for support, not for parsing). */
const EXCERPT_BYTES = 512;

/**
 * A lookup that answers with the one address already checked, whatever the name: the connection
 * goes where the SSRF policy looked, not where a second DNS answer would send it. (Node asks for
 * all addresses when it races IPv4 and IPv6, hence both callback shapes.)
 */
function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
}

/**
 * One HTTP POST to a partner endpoint with a hard deadline. Plain node:http(s) rather than fetch:
 * the headers sent are exactly the ones given (plus Host), the deadline covers connecting, sending
 * and the status line, and redirects are never followed (a 3xx is a failed attempt, so a receiver
 * cannot bounce us to an internal address). Keep-alive agents reuse connections to busy endpoints;
 * a reused socket was opened to an address checked at the time.
 */
export class WebhookSender {
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64 });

  /** `pinned`: the checked address to connect to (the host name still goes in Host and TLS SNI). */
  send(url: string, body: string, headers: Record<string, string>, timeoutMs: number, pinned?: ResolvedAddress): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      let statusCode: number | undefined;
      const chunks: Buffer[] = [];
      let kept = 0;
      const finish = (result: Omit<SendResult, 'latencyMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...result, latencyMs: elapsed() });
      };
      // PostgreSQL text cannot hold NUL characters.
      const excerpt = () => Buffer.concat(chunks).toString('utf8').split('\u0000').join('');

      const target = new URL(url);
      const client = target.protocol === 'https:' ? https : http;
      const req = client.request(target, {
        method: 'POST',
        headers,
        agent: target.protocol === 'https:' ? this.httpsAgent : this.httpAgent,
        ...(pinned ? { lookup: pinnedLookup(pinned) } : {}),
      });
      const timer = setTimeout(() => {
        // An answer whose status already arrived counts even if its body is slow.
        if (statusCode !== undefined) finish({ statusCode, excerpt: excerpt() });
        else finish({ error: 'timeout', errorCode: 'WEBHOOK_RECEIVER_TIMEOUT' });
        req.destroy();
      }, timeoutMs);

      req.on('response', (res) => {
        statusCode = res.statusCode ?? 0;
        res.on('data', (chunk: Buffer) => {
          if (kept < EXCERPT_BYTES) {
            const slice = chunk.subarray(0, EXCERPT_BYTES - kept);
            chunks.push(slice);
            kept += slice.length;
          }
        });
        res.on('end', () => finish({ statusCode, excerpt: excerpt() }));
        res.on('error', () => finish({ statusCode, excerpt: excerpt() }));
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (statusCode !== undefined) finish({ statusCode, excerpt: excerpt() });
        else finish({ error: `network: ${error.code ?? error.message}`.slice(0, 200), errorCode: 'WEBHOOK_RECEIVER_UNREACHABLE' });
      });
      req.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
