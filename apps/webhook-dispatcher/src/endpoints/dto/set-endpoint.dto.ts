import { IsString, MaxLength } from 'class-validator';

export class SetEndpointDto {
  /** absolute http(s) URL of the partner's receiver (https in production) */
  @IsString({ context: { code: 'INVALID_WEBHOOK_URL' } })
  @MaxLength(2048, { context: { code: 'INVALID_WEBHOOK_URL' } })
  url: string;
}
