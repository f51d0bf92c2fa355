import { AppException } from '@mm/errors';
import type { WebhookDeliverJob, WebhookEnvelope } from '@mm/contracts';
import { isUuid, isUuidV4 } from '@mm/platform';

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Checks a producer's job and serialises the envelope once, fields in spec order. The string
 * returned is stored and sent byte-identical on every attempt (the signature covers these bytes).
 */
export function serializeEnvelope(job: WebhookDeliverJob): { envelope: WebhookEnvelope; body: string } {
  const e = job?.envelope;
  const valid =
    isUuid(job?.integrationId) &&
    e !== null &&
    typeof e === 'object' &&
    typeof e.event === 'string' &&
    /^[a-z][a-z0-9_.]{0,99}$/.test(e.event) &&
    isUuidV4(e.id) &&
    typeof e.createdAt === 'string' &&
    ISO_8601.test(e.createdAt) &&
    !Number.isNaN(Date.parse(e.createdAt)) &&
    e.data !== null &&
    typeof e.data === 'object' &&
    !Array.isArray(e.data);
  if (!valid) throw new AppException('INVALID_WEBHOOK_EVENT');
  const envelope: WebhookEnvelope = { event: e.event, id: e.id.toLowerCase(), createdAt: e.createdAt, data: e.data };
  return { envelope, body: JSON.stringify(envelope) };
}
