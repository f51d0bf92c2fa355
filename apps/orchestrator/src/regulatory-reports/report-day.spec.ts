import { dayWindow, daysEndingOn, isReportDay, previousDay, reportDayOf } from './report-day';

describe('report days (UTC+01:00)', () => {
  it('a day runs from 23:00 UTC the day before to 23:00 UTC', () => {
    expect(dayWindow('2026-11-27')).toEqual({ from: '2026-11-26T23:00:00.000Z', to: '2026-11-27T23:00:00.000Z' });
    expect(dayWindow('2027-01-01')).toEqual({ from: '2026-12-31T23:00:00.000Z', to: '2027-01-01T23:00:00.000Z' });
  });

  it('an instant belongs to the day of its local time', () => {
    expect(reportDayOf(new Date('2026-11-26T22:59:59.999Z'))).toBe('2026-11-26');
    expect(reportDayOf(new Date('2026-11-26T23:00:00.000Z'))).toBe('2026-11-27');
    expect(previousDay('2026-03-01')).toBe('2026-02-28');
  });

  it('lists the days ending on a given one, oldest first, across a month and a year', () => {
    expect(daysEndingOn('2027-01-02', 4)).toEqual(['2026-12-30', '2026-12-31', '2027-01-01', '2027-01-02']);
    expect(daysEndingOn('2028-03-01', 2)).toEqual(['2028-02-29', '2028-03-01']);
    expect(daysEndingOn('2026-11-27', 1)).toEqual(['2026-11-27']);
  });

  it.each(['2026-02-30', '2026-13-01', '26-11-27', '2026-11-27T00:00:00Z', '1999-12-31', 20261127])('%s is not a report day', (value) => {
    expect(isReportDay(value)).toBe(false);
  });

  it('accepts a real day, 29 February of a leap year included', () => {
    expect(isReportDay('2028-02-29')).toBe(true);
    expect(isReportDay('2027-02-29')).toBe(false);
  });
});
