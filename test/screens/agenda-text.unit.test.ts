/**
 * How the agenda screens write an event's or a shift's times, without a browser: in Bogotá, with the
 * day it ends on when that is not the day it starts (a night shift, a fair over two days).
 */
import { daysOf, timeRange } from '../../web/console/agenda/data';
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
