import { Controller, Get, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { IsDefined } from 'class-validator';
import { IsPhone } from '../common/validators';
import { type DevSms, DevSmsSender } from './dev-sms-sender';

class DevSmsQuery {
  // Required: without a phone the box would hand every code sent to anyone who asks.
  @IsDefined({ message: 'phone is required: the box shows the messages of one phone', context: { code: 'REQUIRED' } })
  @IsPhone()
  phone!: string;
}

/** Development and tests only: the module does not register this controller when NODE_ENV=production. */
@ApiExcludeController()
@Controller('auth/dev')
export class DevSmsController {
  constructor(private readonly outbox: DevSmsSender) {}

  @Get('sms')
  async list(@Query() query: DevSmsQuery): Promise<{ messages: DevSms[] }> {
    return { messages: await this.outbox.list(query.phone) };
  }
}
