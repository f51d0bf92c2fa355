/**
 * The bench's partner: the example receiver in its own process (a partner's server is not in the
 * dispatcher's event loop). Reports the wall-clock time of each 200 to the parent over IPC, batched.
 */
import { createWebhookReceiver } from '../../examples/webhook-receiver/receiver';

const wallClock = () => performance.timeOrigin + performance.now();
let secret = '';
let batch: [string, number][] = [];

const receiver = createWebhookReceiver({
  secrets: () => [secret],
  handlers: {},
  onDelivery: ({ status, eventId }) => {
    if (status === 200 && eventId) batch.push([eventId, wallClock()]);
  },
});

setInterval(() => {
  if (batch.length > 0) {
    process.send?.({ acks: batch });
    batch = [];
  }
}, 20);

process.on('message', (message: { secret?: string }) => {
  if (message.secret !== undefined) secret = message.secret;
});
process.on('disconnect', () => process.exit(0));

receiver.listen().then((port) => process.send?.({ port }));
