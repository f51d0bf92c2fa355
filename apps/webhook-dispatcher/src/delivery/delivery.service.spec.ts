import { WEBHOOK_JOBS } from '@mm/contracts';
import { eventIdOfJob } from './delivery.service';

describe('eventIdOfJob: the event a job names', () => {
  const id = '8D7E6F5A-4B3C-4D2E-9F1A-0B1C2D3E4F5A';
  it('reads the envelope id of a deliver job and the eventId of a resend job, lower-cased', () => {
    expect(eventIdOfJob(WEBHOOK_JOBS.deliver, { envelope: { id } })).toBe(id.toLowerCase());
    expect(eventIdOfJob(WEBHOOK_JOBS.resend, { eventId: id })).toBe(id.toLowerCase());
  });
  it('names none for malformed data or an id that is not a UUID v4 (event ids are v4, as the envelope check requires)', () => {
    expect(eventIdOfJob(WEBHOOK_JOBS.deliver, { eventId: id })).toBeUndefined();
    expect(eventIdOfJob(WEBHOOK_JOBS.resend, { envelope: { id } })).toBeUndefined();
    expect(eventIdOfJob(WEBHOOK_JOBS.resend, null)).toBeUndefined();
    expect(eventIdOfJob(WEBHOOK_JOBS.resend, { eventId: 'not-an-event' })).toBeUndefined();
    // A version-1 UUID: the old local pattern took any hex groups.
    expect(eventIdOfJob(WEBHOOK_JOBS.resend, { eventId: 'c232ab00-9414-11ec-b3c8-9f6bdeced846' })).toBeUndefined();
  });
});
