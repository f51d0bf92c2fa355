import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';

export class SetEndpointDto {
  /** absolute http(s) URL of the partner's receiver (https in production) */
  @ApiProperty({
    description: "absolute URL of the partner's receiver (https in production)",
    format: 'uri',
    maxLength: 2048,
    example: 'https://pos.example.com/webhooks/mm',
  })
  @IsString({ context: { code: 'INVALID_WEBHOOK_URL' } })
  @MaxLength(2048, { context: { code: 'INVALID_WEBHOOK_URL' } })
  url: string;
}
