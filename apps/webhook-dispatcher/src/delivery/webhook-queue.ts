import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import { bullOptions } from '@mm/platform';
import { QUEUES, WEBHOOK_JOBS, type WebhookDeliverJob, type WebhookResendJob, webhookJobOptions } from '@mm/contracts';
import { WebhookDispatcherConfig } from '../webhook-dispatcher.config';

/** The dispatcher's own producer side of `webhooks`: the internal enqueue route, resends and replays. */
@Injectable()
export class WebhookQueue implements OnModuleDestroy {
  private readonly queue: Queue;

  constructor(config: WebhookDispatcherConfig) {
    this.queue = new Queue(QUEUES.webhooks, bullOptions(config));
  }

  /** Job id = event id: enqueueing the same event twice while its job is kept is a no-op. */
  async enqueue(job: WebhookDeliverJob): Promise<string> {
    const added = await this.queue.add(WEBHOOK_JOBS.deliver, job, webhookJobOptions(job.envelope.id));
    return added.id ?? job.envelope.id;
  }

  async resend(eventId: string, run: number): Promise<string> {
    const data: WebhookResendJob = { eventId };
    const added = await this.queue.add(WEBHOOK_JOBS.resend, data, webhookJobOptions(`${eventId}-resend-${run}`));
    return added.id ?? '';
  }

  async onModuleDestroy(): Promise<void> {
    await this.queue.close();
  }
}
