import type { Server } from 'node:http';
import { ERROR_CATALOG, type ErrorBody } from '@mm/errors';
import { genRequestId } from './http-hooks';

/**
 * The `Expect` request header, answered by the HTTP server before any route runs:
 *
 * - `Expect: 100-continue` asks "will you take this body?" before sending it. Node answers yes to
 *   every such request unless the server listens for 'checkContinue'; this listener answers yes only
 *   when the declared length is within the body limit. A body declared too large gets no
 *   `100 Continue`: the request goes on without it, and the route answers 413 PAYLOAD_TOO_LARGE
 *   (Fastify's check of Content-Length, or the gateway's own) before reading a byte, so the client
 *   never uploads what will be refused.
 * - Any other expectation cannot be met (RFC 9110 §10.1.1): 417. Node's own 417 has no body and no
 *   X-Request-Id; this one is the platform's error body, like every other answer.
 */
export function answerExpectHeader(server: Server, limit: number): void {
  server.on('checkContinue', (req, res) => {
    const declared = Number(req.headers['content-length']);
    if (!(declared > limit)) res.writeContinue();
    server.emit('request', req, res);
  });
  server.on('checkExpectation', (req, res) => {
    // Never handed to Fastify (no hook runs), so the ids and timing header are set here.
    const requestId = genRequestId(req);
    const body: ErrorBody = { code: 'EXPECTATION_FAILED', message: ERROR_CATALOG.EXPECTATION_FAILED.message, requestId };
    const payload = JSON.stringify(body);
    res.writeHead(ERROR_CATALOG.EXPECTATION_FAILED.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(payload),
      'x-request-id': requestId,
      'server-timing': 'total;dur=0.0',
      // a body the client may be sending is not read: the connection ends with the answer
      connection: 'close',
    });
    res.end(payload);
  });
}
