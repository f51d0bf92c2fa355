import { ApiProperty } from '@nestjs/swagger';
import { ATTEMPT_ERROR_CODES, type AttemptErrorCode } from '../../delivery/attempt-result';
import type { AttemptView, EventStatus, EventView } from '../event.types';

/*
 * OpenAPI shapes of what the event routes answer. The classes `implement` the views the repository
 * builds, so a field added there without its documentation fails to compile; the dispatcher's
 * tests compare real answers with these schemas.
 */

export const EVENT_STATUSES: readonly EventStatus[] = ['pending', 'delivered', 'failed', 'held'];

export class QueuedEventView {
  @ApiProperty({ format: 'uuid', example: '0b5f2a7e-3c1d-4e8f-9a6b-2d4c8e1f3a5b', description: 'the event id (lower case)' })
  eventId: string;

  @ApiProperty({
    example: '0b5f2a7e-3c1d-4e8f-9a6b-2d4c8e1f3a5b-resend-1',
    description: 'the delivery job: the event id for a first dispatch, `<eventId>-resend-<n>` for the n-th resend',
  })
  jobId: string;
}

export class ResentEventView extends QueuedEventView {
  @ApiProperty({ example: false, description: 'true when this idempotency key had already started the run: nothing new was queued' })
  repeated: boolean;
}

export class ResentEventsView {
  @ApiProperty({
    type: 'string',
    format: 'uuid',
    isArray: true,
    example: ['0b5f2a7e-3c1d-4e8f-9a6b-2d4c8e1f3a5b'],
    description: 'the failed or held events of the window now queued again, oldest received first (empty when none)',
  })
  eventIds: string[];

  @ApiProperty({
    example: false,
    description:
      'true when the window holds more undelivered events than one call queues: call again with `after` = the last id of `eventIds`',
  })
  truncated: boolean;
}

export class EventViewDto implements EventView {
  @ApiProperty({ format: 'uuid', example: '0b5f2a7e-3c1d-4e8f-9a6b-2d4c8e1f3a5b' })
  id: string;

  @ApiProperty({ format: 'uuid', example: '7c9e6679-7425-40de-944b-e07fc1f90ae7' })
  integrationId: string;

  @ApiProperty({ example: 'order.paid', description: 'the event name' })
  event: string;

  @ApiProperty({
    enum: EVENT_STATUSES,
    example: 'delivered',
    description:
      'pending: queued or being retried; delivered: a 2xx received; failed: every attempt failed; held: its endpoint is missing or disabled',
  })
  status: EventStatus;

  @ApiProperty({ type: 'integer', minimum: 0, example: 1, description: 'attempts made, across resends' })
  attemptCount: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    example: 0,
    description:
      'delivery runs begun after the first: resends, replays, re-queues by the pending sweep (a resend that Redis did not take counts too)',
  })
  resendCount: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z', description: "the envelope's createdAt" })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.012Z', description: 'when the dispatcher first recorded it' })
  receivedAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-22T10:00:00.150Z' })
  lastAttemptAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-22T10:00:00.150Z' })
  deliveredAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null, description: 'when the last retry failed' })
  failedAt: string | null;
}

export class AttemptViewDto implements AttemptView {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1, description: 'numbered per event, across resends' })
  attemptNumber: number;

  @ApiProperty({ example: '0b5f2a7e-3c1d-4e8f-9a6b-2d4c8e1f3a5b', description: 'the delivery job that made it' })
  jobId: string;

  @ApiProperty({ format: 'uri', example: 'https://pos.example.com/webhooks/mm' })
  url: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.020Z' })
  attemptedAt: string;

  @ApiProperty({
    type: 'integer',
    example: 1_795_428_000,
    description: 'the signature timestamp (Unix seconds) the attempt carried, or would have carried when it failed before signing',
  })
  signedAt: number;

  @ApiProperty({ type: 'integer', nullable: true, example: 200, description: "the receiver's HTTP status; null when it did not answer" })
  statusCode: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description:
      'why no status came back, for people (e.g. `timeout`, `network: ECONNREFUSED`, `dns: ENOTFOUND`, `refused: private address`, `secret: …`); null when one did',
  })
  error: string | null;

  @ApiProperty({
    type: String,
    enum: ATTEMPT_ERROR_CODES,
    nullable: true,
    example: null,
    description:
      'why the attempt failed, stable; null on success. The first three fail before any request is sent and count like any failed attempt (attemptCount, retries, disabling the endpoint): WEBHOOK_SECRET_UNREADABLE (the stored secret does not decrypt with the current key), WEBHOOK_DNS_FAILED, WEBHOOK_ADDRESS_REFUSED (the SSRF policy refused the URL or the address it resolves to); then WEBHOOK_RECEIVER_UNREACHABLE, WEBHOOK_RECEIVER_TIMEOUT, WEBHOOK_RECEIVER_HTTP_ERROR (a status other than 2xx)',
  })
  errorCode: AttemptErrorCode | null;

  @ApiProperty({ type: 'integer', minimum: 0, example: 130 })
  latencyMs: number;

  @ApiProperty({ type: String, nullable: true, example: 'ok', description: "the first bytes (at most 512) of the receiver's answer" })
  responseExcerpt: string | null;

  @ApiProperty({ enum: ['success', 'failure'], example: 'success', description: 'success: a 2xx within the timeout' })
  outcome: 'success' | 'failure';
}
