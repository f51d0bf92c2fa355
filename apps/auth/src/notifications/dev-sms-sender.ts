import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { type DevSms, DevSmsBox, REDIS } from '@mm/platform';
import { maskPhone } from '../common/phone';
import { SmsSender } from './sms-sender';

export type { DevSms };

/**
 * Development driver: nothing leaves the machine. Logs that a message was "sent" (masked phone,
 * never the text, which holds the code) and keeps the last messages of each phone in the service's
 * Redis (DevSmsBox: every replica reads the same box), readable through `GET /auth/dev/sms?phone=…`,
 * one phone at a time (a route that does not exist in production).
 */
@Injectable()
export class DevSmsSender extends SmsSender {
  private readonly logger = new Logger(DevSmsSender.name);
  private readonly box: DevSmsBox;

  constructor(@Inject(REDIS) redis: Redis) {
    super();
    this.box = new DevSmsBox(redis, 'auth');
  }

  async send(to: string, text: string): Promise<void> {
    await this.box.keep(to, text);
    this.logger.log({ msg: 'dev SMS stored (not sent)', to: maskPhone(to), chars: text.length });
  }

  /** The messages of one phone, newest first: there is deliberately no way to read them all. */
  list(to: string): Promise<DevSms[]> {
    return this.box.list(to);
  }
}
