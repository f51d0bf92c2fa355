import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { EndpointView, HealthEventView } from '../endpoint.types';

/*
 * OpenAPI shapes of what the endpoint routes answer. The classes `implement` the views the service
 * builds, so a field added there without its documentation fails to compile; the dispatcher's
 * tests compare real answers with these schemas.
 */

const SECRET_PATTERN = '^whsec_[A-Za-z0-9_-]{43}$';

export class EndpointViewDto implements EndpointView {
  @ApiProperty({ format: 'uuid', example: '7c9e6679-7425-40de-944b-e07fc1f90ae7' })
  integrationId: string;

  @ApiProperty({ format: 'uri', example: 'https://pos.example.com/webhooks/mm', description: "the partner's receiver" })
  url: string;

  @ApiProperty({
    enum: ['enabled', 'disabled'],
    example: 'enabled',
    description: 'disabled after a sustained run of failed deliveries; its events are held until an operator enables it',
  })
  status: 'enabled' | 'disabled';

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description: 'the first failed attempt since the last success; null while deliveries succeed',
  })
  failingSince: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null, description: 'set while disabled' })
  disabledAt: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'why it was disabled (e.g. "no successful delivery since 2026-11-20T08:00:00Z"); set while disabled',
  })
  disabledReason: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description: 'until then the previous secret also signs (after a rotation); null when only one secret signs',
  })
  previousSecretExpiresAt: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  updatedAt: string;
}

/** PUT's answer: the endpoint, plus its signing secret the one time it is created. */
export class SetEndpointView extends EndpointViewDto {
  @ApiPropertyOptional({
    pattern: SECRET_PATTERN,
    example: 'whsec_3q2-7wE9xY0aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV',
    description: 'present only when this call created the endpoint: shown once, never again (a rotation issues a new one)',
  })
  secret?: string;
}

export class RotatedSecretView {
  @ApiProperty({
    pattern: SECRET_PATTERN,
    example: 'whsec_3q2-7wE9xY0aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV',
    description: 'the new signing secret, shown this once',
  })
  secret: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-11-23T10:00:00.000Z',
    description: 'until then deliveries carry a second signature with the previous secret; null when the overlap is configured to 0',
  })
  previousSecretExpiresAt: string | null;
}

export class EnabledEndpointView {
  @ApiProperty({ type: EndpointViewDto })
  endpoint: EndpointViewDto;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    example: 2,
    description:
      "the endpoint's held events queued again by this call: every one, oldest first, in pages of WEBHOOK_RESEND_BATCH_MAX. Also counted when the endpoint was already enabled: events held before it existed, or left held by an earlier call that ended with 503; 0 when none was held",
  })
  replayed: number;
}

export class HealthEventViewDto implements HealthEventView {
  @ApiProperty({ enum: ['disabled', 'enabled'], example: 'disabled' })
  kind: 'disabled' | 'enabled';

  @ApiProperty({
    example: 'no successful delivery since 2026-11-20T08:00:00Z',
    description: 'why (for an operator re-enabling: "enabled by an operator")',
  })
  reason: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-23T08:00:01.000Z' })
  createdAt: string;
}
