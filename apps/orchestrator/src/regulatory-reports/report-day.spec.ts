import { businessDayBounds } from '@mm/contracts';
import { FIRST_REPORT_YEAR, REPORT_TIME_ZONE, daysEndingOn, isReportDay } from './report-day';

describe('report days', () => {
  it('names the zone of the platform business day, whose days run from 23:00 UTC the day before', () => {
    expect(REPORT_TIME_ZONE).toBe('UTC+01:00');
    expect(businessDayBounds('2026-11-27')).toEqual({ from: '2026-11-26T23:00:00.000Z', to: '2026-11-27T23:00:00.000Z' });
  });

  it('lists the days ending on a given one, oldest first, across a month and a year', () => {
    expect(daysEndingOn('2027-01-02', 4)).toEqual(['2026-12-30', '2026-12-31', '2027-01-01', '2027-01-02']);
    expect(daysEndingOn('2028-03-01', 2)).toEqual(['2028-02-29', '2028-03-01']);
    expect(daysEndingOn('2026-11-27', 1)).toEqual(['2026-11-27']);
  });

  it.each(['2026-02-30', '2026-13-01', '26-11-27', '2026-11-27T00:00:00Z', ' 2026-11-27', '1999-12-31', '0202-11-27', 20261127, null])(
    '%s is not a report day',
    (value) => {
      expect(isReportDay(value)).toBe(false);
    },
  );

  it('accepts a real day from the year 2000, 29 February of a leap year included', () => {
    expect(isReportDay(`${FIRST_REPORT_YEAR}-01-01`)).toBe(true);
    expect(isReportDay('2000-02-29')).toBe(true);
    expect(isReportDay('2028-02-29')).toBe(true);
    expect(isReportDay('2027-02-29')).toBe(false);
    expect(isReportDay('9999-12-31')).toBe(true);
  });
});
