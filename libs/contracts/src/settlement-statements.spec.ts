import { AppException } from '@mm/errors';
import { statementPeriod } from './settlement-statements';

const NOW = Date.parse('2026-11-28T12:00:00Z');

function refusal(query: Parameters<typeof statementPeriod>[0]): string {
  try {
    statementPeriod(query, NOW);
  } catch (error) {
    expect(error).toBeInstanceOf(AppException);
    return (error as AppException).code;
  }
  throw new Error('accepted');
}

describe('statementPeriod', () => {
  it('one day at West Africa Time spans 23:00 UTC the day before to 23:00 UTC that day', () => {
    expect(statementPeriod({ date: '2026-11-27' }, NOW)).toEqual({
      fromDate: '2026-11-27',
      toDate: '2026-11-27',
      utcOffset: '+01:00',
      start: '2026-11-26T23:00:00.000Z',
      end: '2026-11-27T23:00:00.000Z',
    });
  });

  it('a period at another offset, across a month end and a leap day', () => {
    expect(statementPeriod({ from: '2024-02-28', to: '2024-03-01', utcOffset: '-05:30' }, NOW)).toMatchObject({
      start: '2024-02-28T05:30:00.000Z',
      end: '2024-03-02T05:30:00.000Z',
    });
  });

  it('31 days are allowed, 32 are not', () => {
    expect(statementPeriod({ from: '2026-10-01', to: '2026-10-31' }, NOW).end).toBe('2026-10-31T23:00:00.000Z');
    expect(refusal({ from: '2026-10-01', to: '2026-11-01' })).toBe('SETTLEMENT_PERIOD_INVALID');
  });

  it('today (begun, not over) is answered; a day that has not begun is refused', () => {
    expect(statementPeriod({ date: '2026-11-28' }, NOW).end).toBe('2026-11-28T23:00:00.000Z');
    // 2026-11-29 at +01:00 begins at 2026-11-28T23:00Z, after NOW
    expect(refusal({ date: '2026-11-29' })).toBe('SETTLEMENT_PERIOD_INVALID');
    // at +14:00 it has begun (2026-11-28T10:00Z)
    expect(statementPeriod({ date: '2026-11-29', utcOffset: '+14:00' }, NOW).start).toBe('2026-11-28T10:00:00.000Z');
  });

  it.each([
    ['date with from', { date: '2026-11-27', from: '2026-11-27', to: '2026-11-27' }],
    ['from alone', { from: '2026-11-27' }],
    ['to alone', { to: '2026-11-27' }],
    ['nothing', {}],
    ['to before from', { from: '2026-11-27', to: '2026-11-26' }],
    ['a day that does not exist', { date: '2026-02-29' }],
    ['a month that does not exist', { date: '2026-13-01' }],
  ])('%s is SETTLEMENT_PERIOD_INVALID', (_, query) => {
    expect(refusal(query)).toBe('SETTLEMENT_PERIOD_INVALID');
  });
});
