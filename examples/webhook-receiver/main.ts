/**
 * Runs the example receiver: WEBHOOK_SECRET (and WEBHOOK_PREVIOUS_SECRET during a rotation), PORT.
 *   WEBHOOK_SECRET=whsec_… PORT=8080 node dist/examples/webhook-receiver/main.js
 */
import { createWebhookReceiver } from './receiver';

const secrets = [process.env.WEBHOOK_SECRET, process.env.WEBHOOK_PREVIOUS_SECRET].filter((s): s is string => !!s);
if (secrets.length === 0) {
  process.stderr.write('WEBHOOK_SECRET is required\n');
  process.exit(1);
}

const receiver = createWebhookReceiver({
  secrets,
  handlers: {
    'order.paid': (event) => {
      // Order by paidAt, not by arrival: there is no ordering guarantee.
      process.stdout.write(
        `${JSON.stringify({ msg: 'order paid', eventId: event.id, orderId: event.data.orderId, paidAt: event.data.paidAt })}\n`,
      );
    },
  },
  onDelivery: ({ status, reason, eventId }) => process.stdout.write(`${JSON.stringify({ msg: 'webhook', status, reason, eventId })}\n`),
  onWorkError: (error, event) =>
    process.stderr.write(`${JSON.stringify({ msg: 'handler failed', eventId: event.id, error: String(error) })}\n`),
});

receiver
  .listen(Number(process.env.PORT ?? 8080), process.env.HOST ?? '127.0.0.1')
  .then((port) => process.stdout.write(`webhook receiver listening on ${port}\n`));
