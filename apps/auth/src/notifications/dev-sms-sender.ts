import { Injectable, Logger } from '@nestjs/common';
import { maskPhone } from '../common/phone';
import { SmsSender } from './sms-sender';

export interface DevSms {
  to: string;
  text: string;
  at: string;
}

const KEEP = 200;

/**
 * Development driver: nothing leaves the machine. Logs that a message was "sent" (masked phone,
 * never the text, which holds the code) and keeps the last messages in memory, readable through
 * `GET /auth/dev/sms?phone=…`, one phone at a time (a route that does not exist in production).
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
