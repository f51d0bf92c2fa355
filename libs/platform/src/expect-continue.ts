import type { Server } from 'node:http';

/**
 * `Expect: 100-continue` asks "will you take this body?" before sending it. Node answers yes to
 * every such request unless the server listens for 'checkContinue'; this listener answers yes only
 * when the declared length is within the body limit. A body declared too large gets no
 * `100 Continue`: the request goes on without it, and the route answers 413 PAYLOAD_TOO_LARGE
 * (Fastify's check of Content-Length, or the gateway's own) before reading a byte, so the client
 * never uploads what will be refused.
 */
export function continueWithinBodyLimit(server: Server, limit: number): void {
  server.on('checkContinue', (req, res) => {
    const declared = Number(req.headers['content-length']);
    if (!(declared > limit)) res.writeContinue();
    server.emit('request', req, res);
  });
}
