/**
 * How the agenda screens write an event's or a shift's times, without a browser: in Bogotá, with the
 * day it ends on when that is not the day it starts (a night shift, a fair over two days).
 */
import { daysOf, shiftInstants, shiftRange, timeRange } from '../../web/console/agenda/data';
import { formatDate } from '../../web/console/app/format';

describe('an event or shift written as its times', () => {
  it('is two times on one Bogotá day', () => {
    expect(timeRange({ startsAt: '2026-12-05T14:00:00Z', endsAt: '2026-12-05T16:30:00Z' })).toBe('09:00–11:30');
  });

  it('says the next day when it runs past midnight in Bogotá (not in UTC)', () => {
    // 23:00 to 01:30 in Bogotá: both instants fall on 6 December in UTC.
    const night = { startsAt: '2026-12-06T04:00:00Z', endsAt: '2026-12-06T06:30:00Z' };
    expect(timeRange(night)).toBe('23:00–01:30 del día siguiente');
    expect(daysOf(night)).toEqual(['2026-12-05', '2026-12-06']);
    // 19:00 to 23:00 in Bogotá crosses midnight in UTC only.
    expect(timeRange({ startsAt: '2026-12-06T00:00:00Z', endsAt: '2026-12-06T04:00:00Z' })).toBe('19:00–23:00');
  });

  it('names the day it ends on when that is later than the next', () => {
    // The date as the console writes dates (its words depend on the runtime's locale data).
    expect(timeRange({ startsAt: '2026-12-05T14:00:00Z', endsAt: '2026-12-07T22:00:00Z' })).toBe(`09:00–17:00 del ${formatDate('2026-12-07')}`);
  });
});

describe('a shift typed as two times of day at its event', () => {
  // An 18:00–06:00 watch over the count, 5 to 6 December in Bogotá.
  const watch = { startsAt: '2026-12-05T23:00:00Z', endsAt: '2026-12-06T11:00:00Z' };

  it('falls on the day that puts it at the event: the night for 01:00, the evening before for 16:00', () => {
    expect(shiftInstants(watch, '01:00', '05:00')).toEqual({ startsAt: '2026-12-06T01:00:00-05:00', endsAt: '2026-12-06T05:00:00-05:00' });
    expect(shiftInstants(watch, '22:00', '02:00')).toEqual({ startsAt: '2026-12-05T22:00:00-05:00', endsAt: '2026-12-06T02:00:00-05:00' });
    // Setting up before the doors open stays on the first day.
    expect(shiftInstants(watch, '16:00', '18:00')).toEqual({ startsAt: '2026-12-05T16:00:00-05:00', endsAt: '2026-12-05T18:00:00-05:00' });
    expect(shiftInstants(watch, '01:00', '')).toBeUndefined();
  });

  it('stays on the first day of an event of one day, and says the day of a shift on a later one', () => {
    const meeting = { startsAt: '2026-12-05T14:00:00Z', endsAt: '2026-12-05T16:00:00Z' };
    expect(shiftInstants(meeting, '08:00', '09:00')).toEqual({ startsAt: '2026-12-05T08:00:00-05:00', endsAt: '2026-12-05T09:00:00-05:00' });
    expect(shiftRange({ startsAt: '2026-12-06T06:00:00Z', endsAt: '2026-12-06T10:00:00Z' }, watch)).toBe('Día siguiente, 01:00–05:00');
    expect(shiftRange({ startsAt: '2026-12-06T03:00:00Z', endsAt: '2026-12-06T07:00:00Z' }, watch)).toBe('22:00–02:00 del día siguiente');
  });
});
