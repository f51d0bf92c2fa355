import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ALWAYS_LEADER, JOB_LEASE } from '@mm/platform';
import { WebhookEventsRepository } from '../events/webhook-events.repository';
import { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import { DeliveryService } from './delivery.service';
import { PendingSweep } from './pending-sweep';
import { WebhookQueue } from './webhook-queue';

describe('PendingSweep shutdown', () => {
  it('stops (waiting for its pass) before WebhookQueue closes its connection', async () => {
    const order: string[] = [];
    let releasePage!: () => void;
    const stubEvents: { stalePending?: () => Promise<unknown[]> } = {};
    const pageAsked = new Promise<void>((asked) => {
      stubEvents.stalePending = () => {
        asked();
        return new Promise((resolve) => (releasePage = () => resolve([])));
      };
    });

    @Module({
      providers: [
        { provide: WebhookDispatcherConfig, useValue: { WEBHOOK_PENDING_SWEEP_INTERVAL_MS: 0, WEBHOOK_PENDING_SWEEP_AGE_MS: 1000 } },
        { provide: WebhookEventsRepository, useValue: stubEvents },
        { provide: DeliveryService, useValue: {} },
        { provide: WebhookQueue, useValue: { onModuleDestroy: async () => void order.push('queue closed') } },
        { provide: JOB_LEASE, useValue: ALWAYS_LEADER },
        PendingSweep,
      ],
    })
    class SweepOnly {}

    const app = await NestFactory.createApplicationContext(SweepOnly, { logger: false });
    await app.init();
    const pass = app
      .get(PendingSweep)
      .sweep()
      .then(() => order.push('pass ended'));
    await pageAsked;
    const closed = app.close();
    // Let Nest run whatever hooks it runs before the sweep's pass can end.
    await new Promise((resolve) => setTimeout(resolve, 20));
    releasePage();
    await Promise.all([pass, closed]);
    expect(order).toEqual(['pass ended', 'queue closed']);
  });
});
