import { ISO_INSTANT, isIsoInstant } from './instant';

describe('ISO instants', () => {
  it.each([
    '2024-02-29',
    '2026-11-23',
    '2026-11-23T08:00:00.000Z',
    '2026-11-23T08:00Z',
    '2026-11-23T08:00:00.123456+01:00',
    '1000-01-01T00:00:00Z',
  ])('accepts %s', (value) => expect(isIsoInstant(value)).toBe(true));

  // A day the calendar does not have: Date.parse rolls it over, PostgreSQL refuses it.
  it.each(['2026-02-30', '2026-02-29T00:00:00Z', '2026-04-31T10:00:00.000Z'])('refuses the impossible day %s', (value) => {
    expect(Number.isNaN(Date.parse(value))).toBe(false);
    expect(isIsoInstant(value)).toBe(false);
  });

  // Each of these passes IsISO8601({ strict: true }) or Date.parse, and PostgreSQL's timestamptz refuses it.
  it.each(['2026', '2026-W01-1', '1', '+275760-09-13T00:00:00.000Z', '0000-01-01', '2026-11-23T10:00:00.1234567Z', 'not a date'])(
    'refuses %s',
    (value) => {
      expect(ISO_INSTANT.test(value)).toBe(false);
      expect(isIsoInstant(value)).toBe(false);
    },
  );
});
