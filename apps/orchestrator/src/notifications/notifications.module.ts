import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import type { OrchestratorConfig } from '../orchestrator.config';
import { DevSmsController } from './dev-sms.controller';
import { DevSmsSender } from './dev-sms-sender';
import { HttpSmsSender } from './http-sms-sender';
import { OpsAlerts } from './ops-alert.service';
import { SmsOutbox } from './sms-outbox.service';
import { SmsRelay } from './sms-relay.service';
import { SmsSender } from './sms-sender';

/**
 * The notification module (docs/mobile-api.md "Notifications"): the SMS outbox and its relay, and
 * the operations alert channel. Flows enqueue with `SmsOutbox`; nothing sends an SMS directly.
 */
@Module({})
export class NotificationsModule {
  static forRoot(config: OrchestratorConfig): DynamicModule {
    const dev = config.SMS_DRIVER === 'dev';
    const providers: Provider[] = [
      SmsOutbox,
      SmsRelay,
      OpsAlerts,
      ...(dev ? [DevSmsSender, { provide: SmsSender, useExisting: DevSmsSender }] : [{ provide: SmsSender, useClass: HttpSmsSender }]),
    ];
    return {
      module: NotificationsModule,
      global: true,
      controllers: dev && config.NODE_ENV !== 'production' ? [DevSmsController] : [],
      providers,
      exports: [SmsOutbox, OpsAlerts, SmsRelay],
    };
  }
}
