import { Readable, Transform } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { AppException } from '@mm/errors';

/** Raised inside the proxied body stream when it grows past the limit; recognised by `oversizedBodyAnswer`. */
class ProxiedBodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the request body exceeds ${limit} bytes`);
    this.name = 'ProxiedBodyTooLarge';
  }
}

const tooLarge = (limit: number) => new AppException('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes`);

/**
 * The proxy streams request bodies to the upstream without reading them, so Fastify's body limit
 * never applies on proxied routes. The upstream enforces its own, but it answers 413 while the
 * proxy is still writing, and the proxy only sees the write fail (EPIPE): the client got 502
 * UPSTREAM_UNAVAILABLE and could not tell "too large" from "down". The gateway applies the same
 * limit itself: a declared Content-Length above it is refused at once; a chunked body is counted
 * as it streams, and the proxy call fails with an error `oversizedBodyAnswer` recognises once it passes
 * the limit. (Upstreams keep a limit at least as large; all services share BODY_LIMIT_BYTES.)
 */
export function limitProxiedBody(req: FastifyRequest, limit: number): void {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) throw tooLarge(limit);
  const body = req.body;
  if (!(body instanceof Readable) || declared !== undefined) return;
  let seen = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > limit) {
        // Stop reading the client; the 413 closes the connection (its body was not consumed).
        body.unpipe(counted);
        callback(new ProxiedBodyTooLarge(limit));
        return;
      }
      callback(null, chunk);
    },
  });
  // The client's stream is not destroyed with the counter: its socket must stay up for the 413.
  body.pipe(counted);
  (req as { body: unknown }).body = counted;
}

/** The 413 for a proxy call that failed because `limitProxiedBody` cut the body (looked for among the causes), else undefined. */
export function oversizedBodyAnswer(error: unknown): AppException | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ProxiedBodyTooLarge) return tooLarge(e.limit);
  }
  return undefined;
}
