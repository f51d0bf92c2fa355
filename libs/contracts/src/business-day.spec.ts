import {
  PLATFORM_UTC_OFFSET,
  addCalendarDays,
  businessDayBounds,
  businessDayOf,
  calendarDaysBetween,
  isCalendarDate,
  isDayOver,
  isUtcOffset,
} from './business-day';

describe('business day (West Africa Time unless told otherwise)', () => {
  it('is UTC+01:00', () => {
    expect(PLATFORM_UTC_OFFSET).toBe('+01:00');
  });

  it('a day runs from 23:00 UTC the day before to 23:00 UTC, across month, year and leap-day ends', () => {
    expect(businessDayBounds('2026-11-20')).toEqual({ from: '2026-11-19T23:00:00.000Z', to: '2026-11-20T23:00:00.000Z' });
    expect(businessDayBounds('2026-01-01')).toEqual({ from: '2025-12-31T23:00:00.000Z', to: '2026-01-01T23:00:00.000Z' });
    expect(businessDayBounds('2026-12-31')).toEqual({ from: '2026-12-30T23:00:00.000Z', to: '2026-12-31T23:00:00.000Z' });
    expect(businessDayBounds('2026-03-01')).toEqual({ from: '2026-02-28T23:00:00.000Z', to: '2026-03-01T23:00:00.000Z' });
    expect(businessDayBounds('2028-02-29')).toEqual({ from: '2028-02-28T23:00:00.000Z', to: '2028-02-29T23:00:00.000Z' });
    expect(businessDayBounds('2028-03-01').from).toBe('2028-02-29T23:00:00.000Z');
  });

  it('another offset moves the bounds the other way for a zone west of UTC', () => {
    expect(businessDayBounds('2026-11-20', '+00:00')).toEqual({ from: '2026-11-20T00:00:00.000Z', to: '2026-11-21T00:00:00.000Z' });
    expect(businessDayBounds('2026-11-20', '-05:30')).toEqual({ from: '2026-11-20T05:30:00.000Z', to: '2026-11-21T05:30:00.000Z' });
  });

  it('the day of an instant: 23:00 UTC is already the next day, 22:59:59.999 UTC is not', () => {
    expect(businessDayOf('2026-11-20T22:59:59.999Z')).toBe('2026-11-20');
    expect(businessDayOf('2026-11-20T23:00:00.000Z')).toBe('2026-11-21');
    expect(businessDayOf(new Date('2026-12-31T23:30:00Z'))).toBe('2027-01-01');
    expect(businessDayOf('2028-02-28T23:00:00Z')).toBe('2028-02-29');
    expect(businessDayOf('2026-11-21T00:30:00+01:00')).toBe('2026-11-21');
    expect(businessDayOf('2026-11-20T23:30:00Z', '+00:00')).toBe('2026-11-20');
  });

  it('bounds and day agree: the first instant belongs to the day, the excluded end to the next', () => {
    for (const day of ['2026-01-01', '2026-02-28', '2028-02-29', '2026-12-31']) {
      const { from, to } = businessDayBounds(day);
      expect(businessDayOf(from)).toBe(day);
      expect(businessDayOf(new Date(Date.parse(to) - 1))).toBe(day);
      expect(businessDayOf(to)).toBe(addCalendarDays(day, 1));
    }
  });

  it('isCalendarDate is strict', () => {
    for (const ok of ['2026-11-20', '2024-02-29', '2000-02-29', '0001-01-01', '9999-12-31']) expect(isCalendarDate(ok)).toBe(true);
    for (const bad of [
      '2026-02-29',
      '1900-02-29',
      '2026-04-31',
      '2026-13-01',
      '2026-00-10',
      '2026-11-00',
      '0000-01-01',
      '2026-1-05',
      '26-11-20',
      ' 2026-11-20',
      '2026-11-20T00:00:00Z',
      '2026/11/20',
      '',
      20261120,
      null,
      undefined,
    ]) {
      expect(isCalendarDate(bad)).toBe(false);
    }
  });

  it('refuses what is not a date, an instant or an offset', () => {
    expect(() => businessDayBounds('2026-02-30')).toThrow(RangeError);
    expect(() => businessDayBounds('yesterday')).toThrow(/not a calendar date/);
    expect(() => businessDayBounds('2026-11-20', '+1')).toThrow(/not a UTC offset/);
    expect(() => businessDayBounds('2026-11-20', '+15:00')).toThrow(RangeError);
    expect(() => businessDayOf('2026-11-20T10:00:00')).toThrow(/with its zone/);
    expect(() => businessDayOf('not a dateZ')).toThrow(RangeError);
    expect(() => businessDayOf(new Date(Number.NaN))).toThrow(RangeError);
    expect(isUtcOffset('+01:00')).toBe(true);
    expect(isUtcOffset('01:00')).toBe(false);
  });

  it('counts calendar days across month and year ends and the leap day', () => {
    expect(addCalendarDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addCalendarDays('2027-01-01', -1)).toBe('2026-12-31');
    expect(addCalendarDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addCalendarDays('2026-02-28', 1)).toBe('2026-03-01');
    expect(addCalendarDays('2026-11-20', 0)).toBe('2026-11-20');
    expect(() => addCalendarDays('9999-12-31', 1)).toThrow(RangeError);
    expect(() => addCalendarDays('2026-11-20', 0.5)).toThrow(RangeError);
    expect(calendarDaysBetween('2026-12-31', '2027-01-01')).toBe(1);
    expect(calendarDaysBetween('2028-03-01', '2028-02-28')).toBe(-2);
    expect(calendarDaysBetween('2026-01-01', '2027-01-01')).toBe(365);
  });

  it('a day is over once its last instant in West Africa Time is past', () => {
    expect(isDayOver('2026-11-20', new Date('2026-11-20T22:59:59.999Z'))).toBe(false);
    expect(isDayOver('2026-11-20', new Date('2026-11-20T23:00:00.000Z'))).toBe(true);
    expect(isDayOver('2026-11-21', new Date('2026-11-20T23:30:00Z'))).toBe(false);
    expect(isDayOver('2026-11-20', new Date('2026-11-20T23:30:00Z'), '+00:00')).toBe(false);
    expect(isDayOver('2026-12-31', new Date('2027-01-01T00:00:00Z'))).toBe(true);
  });
});
