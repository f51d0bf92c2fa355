import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ERROR_CATALOG, type ErrorBody, type ErrorCode } from '@mm/errors';

interface ClientErrorLogger {
  debug(obj: object, msg: string): void;
}

/** Node's parser errors, and the answer each one gets. */
function answerFor(code: string | undefined): { code: ErrorCode; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'HEADERS_TOO_LARGE', message: ERROR_CATALOG.HEADERS_TOO_LARGE.message };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'REQUEST_TIMEOUT', message: ERROR_CATALOG.REQUEST_TIMEOUT.message };
    // A method the HTTP parser does not know at all is one no route of the server implements: 501
    // (RFC 9110 §15.6.2). 405 with Allow stays for a known method on a route that lacks it.
    case 'HPE_INVALID_METHOD':
      return { code: 'NOT_IMPLEMENTED', message: 'The server does not implement this request method' };
    default:
      return {
        code: 'BAD_REQUEST',
        message: 'The request is not valid HTTP (a control or non-ASCII byte in the request line or a header?)',
      };
  }
}

/**
 * The answer to a request Node's HTTP parser refused before any request object existed (a control
 * or raw non-ASCII byte in the path, headers above the size limit, a method it cannot parse, a
 * request that took too long to arrive): the platform error body with a fresh X-Request-Id, as
 * every other answer, instead of Fastify's `{error, message, statusCode}` or Node's empty body.
 * The incoming X-Request-Id cannot be echoed: the headers were never parsed. No hook runs for such
 * a request, so it has no request log line either; it is logged here at debug (a scanner can send
 * thousands).
 * Used as Fastify's `clientErrorHandler` and on the internal listener (the same 'clientError' listener).
 */
export function createClientErrorHandler(logger: ClientErrorLogger): (error: NodeJS.ErrnoException, socket: Socket) => void {
  return (error, socket) => {
    // A reset connection has nobody left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const { code, message } = answerFor(error.code);
    const requestId = randomUUID();
    logger.debug({ err: { code: error.code, message: error.message }, requestId }, 'client error');
    const body: ErrorBody = { code, message, requestId };
    const payload = JSON.stringify(body);
    const status = ERROR_CATALOG[code].status;
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      'content-type: application/json; charset=utf-8',
      `content-length: ${Buffer.byteLength(payload)}`,
      `x-request-id: ${requestId}`,
      'server-timing: total;dur=0.0',
      'connection: close',
    ].join('\r\n');
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    // What the client still sends is not read: the socket goes once the answer is flushed.
    socket.once('finish', () => socket.destroy());
    socket.end(`${head}\r\n\r\n${payload}`);
  };
}
