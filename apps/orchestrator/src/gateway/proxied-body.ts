import { Readable, Transform } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
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
 * Either 413 ends the connection (`closeAfterAnswer`), as Fastify's own 413 does.
 */
export function limitProxiedBody(req: FastifyRequest, reply: FastifyReply, limit: number): void {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    closeAfterAnswer(reply);
    throw tooLarge(limit);
  }
  const body = req.body;
  if (!(body instanceof Readable) || declared !== undefined) return;
  let seen = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > limit) {
        // Stop reading the client; the 413 then closes the connection (see oversizedBodyAnswer).
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

/**
 * The 413 for a proxy call that failed because `limitProxiedBody` cut the body (looked for among
 * the causes), else undefined. The answer then ends the connection (`closeAfterAnswer`): the proxy
 * only closes it for an upstream's answer, never on its error path.
 */
export function oversizedBodyAnswer(error: unknown, reply: FastifyReply): AppException | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ProxiedBodyTooLarge) {
      closeAfterAnswer(reply);
      return tooLarge(e.limit);
    }
  }
  return undefined;
}

/**
 * A 413 is sent before the body was read. On a kept-alive connection Node would then read the
 * whole rest of the body to find the next request (a client goes on uploading what was refused),
 * or, for a chunked body this module stopped reading, leave it in the socket for good. With
 * `Connection: close` Node ends the socket once the answer is written, and nothing more is read.
 */
function closeAfterAnswer(reply: FastifyReply): void {
  reply.header('connection', 'close');
}
