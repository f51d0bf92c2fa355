import { Controller, Get, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { IsDefined } from 'class-validator';
import { PublicRoute } from '../access/permissions';
import { IsPhone } from '../common/validators';
import { type DevSms, DevSmsSender } from './dev-sms-sender';

class DevSmsQuery {
  // Required: without a phone the box would hand every code sent to anyone who asks.
  @IsDefined({ message: 'phone is required: the box shows the messages of one phone', context: { code: 'REQUIRED' } })
  @IsPhone()
  phone!: string;
}

/** Development and tests only: registered when SMS_DRIVER=dev, never in production. */
@ApiExcludeController()
@Controller('dev')
export class DevSmsController {
  constructor(private readonly outbox: DevSmsSender) {}

  @Get('sms')
  @PublicRoute()
  async list(@Query() query: DevSmsQuery): Promise<{ messages: DevSms[] }> {
    return { messages: await this.outbox.list(query.phone) };
  }
}
