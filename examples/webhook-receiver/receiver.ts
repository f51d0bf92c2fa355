/**
 * A minimal partner receiver for our webhooks, following the five receiver rules of the partner
 * API (docs/partners.md "5. Webhooks"). Plain node:http, no framework: copy it and replace the handlers.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '@mm/webhook-signature';

export interface Envelope {
  event: string;
  id: string;
  createdAt: string;
  data: Record<string, unknown>;
}

export type EventHandler = (event: Envelope) => Promise<void> | void;

export interface ReceiverOptions {
  /** the webhook secret(s): during a rotation give the new and the previous one */
  secrets: string[] | (() => string[]);
  /** rule 2: reject a `t` older than this (default 300 s) */
  toleranceSec?: number;
  /** work per event type, run after the 200 has been sent (rule 4) */
  handlers: Record<string, EventHandler>;
  /** sees every request once answered (audit log, tests) */
  onDelivery?: (delivery: { status: number; reason?: string; eventId?: string; headers: IncomingHttpHeaders; rawBody: Buffer }) => void;
  /** called when queued work throws (log it; the event was already acknowledged) */
  onWorkError?: (error: unknown, event: Envelope) => void;
}

const MAX_BODY_BYTES = 1_048_576;
const SEEN_TTL_MS = 48 * 3600 * 1000;

export interface WebhookReceiver {
  server: http.Server;
  listen(port?: number, host?: string): Promise<number>;
  /** resolves once every queued event has been handled */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export function createWebhookReceiver(options: ReceiverOptions): WebhookReceiver {
  // Rule 3: ids already accepted. In production use a table with a unique key on the event id
  // (insert it in the same transaction as the work), not process memory.
  const seen = new Map<string, number>();
  let work: Promise<void> = Promise.resolve();

  const enqueue = (event: Envelope, handler: EventHandler) => {
    work = work.then(async () => {
      try {
        await handler(event);
      } catch (error) {
        options.onWorkError?.(error, event);
      }
    });
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      // Verify the raw bytes as received: a re-serialised JSON object would not match the signature.
      const rawBody = Buffer.concat(chunks);
      const answer = (status: number, reason?: string, eventId?: string) => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(reason ? { error: reason } : { received: true }));
        options.onDelivery?.({ status, reason, eventId, headers: req.headers, rawBody });
      };
      if (req.method !== 'POST') return answer(405, 'method_not_allowed');
      if (size > MAX_BODY_BYTES) return answer(413, 'body_too_large');

      // Rules 1 and 2: constant-time signature check, and 400 when t is more than 5 minutes away.
      const secrets = typeof options.secrets === 'function' ? options.secrets() : options.secrets;
      const check = verify(req.headers['svc-signature'], rawBody, secrets, { toleranceSec: options.toleranceSec ?? 300 });
      if (!check.ok) return answer(400, check.reason);

      let event: Envelope;
      try {
        event = JSON.parse(rawBody.toString('utf8')) as Envelope;
      } catch {
        return answer(400, 'invalid_json');
      }
      const eventId = req.headers['svc-event-id'];
      if (typeof eventId !== 'string' || eventId !== event.id) return answer(400, 'event_id_mismatch');

      // Rule 3: a duplicate is acknowledged and ignored.
      const now = Date.now();
      // A Map iterates in insertion order: drop expired ids from the oldest end only.
      for (const [id, at] of seen) {
        if (now - at <= SEEN_TTL_MS) break;
        seen.delete(id);
      }
      if (seen.has(eventId)) return answer(200, undefined, eventId);
      seen.set(eventId, now);

      // Rule 5: an unknown type is acknowledged (new types may appear at any time).
      const handler = options.handlers[event.event];
      // Rule 4: answer at once; the work runs afterwards, in order.
      if (handler) enqueue(event, handler);
      return answer(200, undefined, eventId);
    });
  });

  return {
    server,
    listen: (port = 0, host = '127.0.0.1') =>
      new Promise<number>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
      }),
    idle: async () => {
      let current: Promise<void>;
      do {
        current = work;
        await current;
      } while (current !== work);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
