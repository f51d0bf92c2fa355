/**
 * The bench's partner: the example receiver in its own process (a partner's server is not in any
 * service's event loop). For each verified 200 it reports, over IPC and batched: the event id, the
 * wall-clock time of the answer, the `paidAt` the event carries (the ledger commit time) and the order id.
 */
import { createWebhookReceiver } from '../../examples/webhook-receiver/receiver';

const wallClock = () => performance.timeOrigin + performance.now();
let secrets: string[] = [];
let batch: Array<[string, number, number, string]> = [];

const receiver = createWebhookReceiver({
  secrets: () => secrets,
  handlers: {},
  onDelivery: ({ status, eventId, rawBody }) => {
    if (status !== 200 || !eventId) return;
    const at = wallClock();
    const body = JSON.parse(rawBody.toString('utf8')) as { event: string; data: { paidAt?: string; orderId?: string } };
    if (body.event === 'order.paid' && body.data.paidAt) batch.push([eventId, at, Date.parse(body.data.paidAt), body.data.orderId ?? '']);
  },
});

setInterval(() => {
  if (batch.length > 0) {
    process.send?.({ acks: batch });
    batch = [];
  }
}, 20);

process.on('message', (message: { secrets?: string[] }) => {
  if (message.secrets) secrets = message.secrets;
});
process.on('disconnect', () => process.exit(0));

receiver.listen().then((port) => process.send?.({ port }));
