import { Injectable, Logger } from '@nestjs/common';
import { maskPhone } from '../common/validators';
import { SmsSender } from './sms-sender';

export interface DevSms {
  to: string;
  text: string;
  at: string;
}

const KEEP = 200;

/**
 * Development driver: nothing leaves the machine. The last messages stay in memory, readable at
 * `GET /api/dev/sms?phone=…`, one phone at a time (a route that does not exist in production); logs
 * never carry the text.
 */
@Injectable()
export class DevSmsSender extends SmsSender {
  private readonly logger = new Logger(DevSmsSender.name);
  private readonly messages: DevSms[] = [];

  async send(to: string, text: string): Promise<void> {
    this.messages.push({ to, text, at: new Date().toISOString() });
    if (this.messages.length > KEEP) this.messages.shift();
    this.logger.log({ msg: 'dev SMS stored (not sent)', to: maskPhone(to), chars: text.length });
  }

  /** The messages of one phone, newest first: there is deliberately no way to read them all. */
  list(to: string): DevSms[] {
    return this.messages.filter((m) => m.to === to).reverse();
  }
}
