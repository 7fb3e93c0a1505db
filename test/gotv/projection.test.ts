import { instantAt, localClock, minutesOfDay } from '../../src/kernel/calendar';
import { buildCurve, DEFAULT_CURVE, defaultCurveFor, fractionAt, InvalidCurveError, parseTimeOfDay } from '../../src/modules/gotv/projection/curve';
import { project, projectionView, stationFigure, type StationInput } from '../../src/modules/gotv/projection/projection';
import { at, ELECTION_DATE, syntheticDay, TIME_ZONE } from './synthetic';

const h = (time: string) => parseTimeOfDay(time);

const projectAt = (minutes: number, stations: StationInput[], date = ELECTION_DATE) =>
  project({ now: at(minutes, date), timeZone: TIME_ZONE, electionDate: ELECTION_DATE, curve: DEFAULT_CURVE, stations });

describe('turnout curve', () => {
  it('interpolates linearly between the hourly points and is 0 before opening, 1 after closing', () => {
    expect(fractionAt(DEFAULT_CURVE, h('10:00'))).toBeCloseTo(0.19);
    expect(fractionAt(DEFAULT_CURVE, h('10:30'))).toBeCloseTo(0.255);
    expect(fractionAt(DEFAULT_CURVE, h('15:45'))).toBeCloseTo(0.9625);
    expect(fractionAt(DEFAULT_CURVE, h('06:00'))).toBe(0);
    expect(fractionAt(DEFAULT_CURVE, h('08:00'))).toBe(0);
    expect(fractionAt(DEFAULT_CURVE, h('16:00'))).toBe(1);
    expect(fractionAt(DEFAULT_CURVE, h('20:00'))).toBe(1);
  });

  it('adapts the default to other hours by its flow per clock hour (not stretched), and takes a valid custom curve', () => {
    // 07:00–17:00: the default's 08:00–16:00 flow plus an hour either side at its mean hourly flow (1/8).
    const longer = buildCurve({ opensAt: '07:00', closesAt: '17:00' });
    expect(fractionAt(longer, h('12:00'))).toBeCloseTo((0.125 + 0.46) / 1.25, 6);
    expect(fractionAt(longer, h('17:00'))).toBe(1);
    // A 07:00–23:00 day: by noon, the flow of 07:00–12:00 over the day's (stretched, noon was the default's 10:30).
    const italian = buildCurve({ opensAt: '07:00', closesAt: '23:00' });
    expect(fractionAt(italian, h('12:00'))).toBeCloseTo((0.125 + 0.46) / 2, 6);
    // Two days with the night taken out: Sunday 07–23 and Monday 07–15 is 24 hours of polling time.
    const twoDays = defaultCurveFor([
      { opensAt: h('07:00'), closesAt: h('23:00') },
      { opensAt: 24 * 60 + h('07:00'), closesAt: 24 * 60 + h('15:00') },
    ]);
    expect(twoDays.pauses).toEqual([{ from: h('23:00'), to: 24 * 60 + h('07:00') }]);
    expect(twoDays.closesAt - twoDays.opensAt).toBe(24 * 60);
    expect(fractionAt(twoDays, h('23:00'))).toBeCloseTo(2 / (2 + 0.125 + 0.85), 6);
    const custom = buildCurve({
      turnoutCurve: [
        { time: '08:00', fraction: 0 },
        { time: '12:00', fraction: 0.6 },
        { time: '16:00', fraction: 1 },
      ],
    });
    expect(fractionAt(custom, h('10:00'))).toBeCloseTo(0.3);
  });

  it.each([
    [
      'a decreasing fraction',
      [
        { time: '08:00', fraction: 0 },
        { time: '12:00', fraction: 0.6 },
        { time: '13:00', fraction: 0.5 },
        { time: '16:00', fraction: 1 },
      ],
      /must not decrease/,
    ],
    [
      'not starting at 0',
      [
        { time: '08:00', fraction: 0.1 },
        { time: '16:00', fraction: 1 },
      ],
      /start at opensAt/,
    ],
    [
      'not starting at opening',
      [
        { time: '09:00', fraction: 0 },
        { time: '16:00', fraction: 1 },
      ],
      /start at opensAt/,
    ],
    [
      'not ending at 1',
      [
        { time: '08:00', fraction: 0 },
        { time: '16:00', fraction: 0.9 },
      ],
      /end at closesAt/,
    ],
    [
      'times out of order',
      [
        { time: '08:00', fraction: 0 },
        { time: '12:00', fraction: 0.4 },
        { time: '11:00', fraction: 0.5 },
        { time: '16:00', fraction: 1 },
      ],
      /strictly increasing/,
    ],
    [
      'a fraction above 1',
      [
        { time: '08:00', fraction: 0 },
        { time: '12:00', fraction: 1.2 },
        { time: '16:00', fraction: 1 },
      ],
      /1/,
    ],
    [
      'an impossible time',
      [
        { time: '08:00', fraction: 0 },
        { time: '25:00', fraction: 0.5 },
        { time: '16:00', fraction: 1 },
      ],
      /HH:MM/,
    ],
  ])('rejects a curve with %s', (_name, turnoutCurve, message) => {
    expect(() => buildCurve({ turnoutCurve })).toThrow(InvalidCurveError);
    expect(() => buildCurve({ turnoutCurve })).toThrow(message);
  });

  it('rejects closing before opening', () => {
    expect(() => buildCurve({ opensAt: '16:00', closesAt: '08:00' })).toThrow(/closesAt \(08:00\) must be after opensAt/);
  });

  it('reads the wall clock in the campaign time zone', () => {
    expect(minutesOfDay(new Date('2026-03-08T15:30:00Z'), 'America/Bogota')).toBe(10 * 60 + 30);
    expect(localClock(new Date('2026-03-09T03:00:00Z'), 'America/Bogota')).toEqual({ date: '2026-03-08', minutes: 22 * 60 });
    expect(instantAt('2026-03-08', 8 * 60, 'America/Bogota').toISOString()).toBe('2026-03-08T13:00:00.000Z');
    // 2026-03-08 is also the day New York moves to summer time (02:00 → 03:00).
    expect(instantAt('2026-03-08', 10 * 60, 'America/New_York').toISOString()).toBe('2026-03-08T14:00:00.000Z');
    expect(instantAt('2026-03-08', 60, 'America/New_York').toISOString()).toBe('2026-03-08T06:00:00.000Z');
  });
});

describe('station figure (monotone counts)', () => {
  const station = (counts: { votersSoFar: number; reportedAt: Date }[]): StationInput => ({
    id: 'a',
    territoryId: 't',
    registeredVoters: 2000,
    confirmedVoters: 0,
    confirmedVoted: 0,
    counts,
  });

  it('keeps the highest count reported so far: a lower later count does not lower it, and is set aside with a warning', () => {
    const counts = [
      { votersSoFar: 120, reportedAt: at(h('10:00')) },
      { votersSoFar: 300, reportedAt: at(h('11:00')) },
      { votersSoFar: 250, reportedAt: at(h('12:00')) },
    ];
    const result = projectAt(h('12:30'), [station(counts)]);
    const [s] = result.stations;
    expect(s).toMatchObject({ votersSoFar: 300, basis: 'count', lastCountAt: at(h('11:00')).toISOString() });
    expect(stationFigure(counts, 0, at(h('12:30')).getTime())).toEqual({ votersSoFar: 300, at: counts[1]!.reportedAt });
    // The lower count changes nothing but the warning: the same answer as without it.
    const without = projectAt(h('12:30'), [station(counts.slice(0, 2))]);
    expect(s).toEqual(without.stations[0]);
    expect(result.warnings).toEqual(['1 count(s) lower than an earlier count of the same station were set aside']);
    expect(without.warnings).toEqual([]);
    // Scaled by the curve: well above the figure, below what is possible.
    expect(s!.projectedTurnout!).toBeGreaterThan(600);
    expect(s!.projectedTurnoutHigh!).toBeLessThanOrEqual(2000);
  });

  it('a later report repeating the figure moves its time forward; reports after now or before election day are ignored', () => {
    const counts = [
      { votersSoFar: 1500, reportedAt: at(h('15:00'), '2026-03-07') }, // rehearsal the day before
      { votersSoFar: 300, reportedAt: at(h('11:00')) },
      { votersSoFar: 300, reportedAt: at(h('12:00')) },
      { votersSoFar: 900, reportedAt: at(h('15:00')) }, // not yet at 12:30
    ];
    const [s] = projectAt(h('12:30'), [station(counts)]).stations;
    expect(s).toMatchObject({ votersSoFar: 300, lastCountAt: at(h('12:00')).toISOString() });
    const [onlyToday] = projectAt(h('12:30'), [station(counts.slice(1, 3))]).stations;
    expect(s).toEqual(onlyToday);
  });

  it('does not scale a count read too early in the day; the station borrows instead', () => {
    const early = station([{ votersSoFar: 20, reportedAt: at(h('08:15')) }]);
    const result = projectAt(h('08:20'), [early]);
    expect(result.stations[0]).toMatchObject({ basis: 'none', votersSoFar: 20, projectedTurnout: null });
    expect(result.overall.projectedTurnout).toBeNull();
  });
});

describe('phases', () => {
  const day = syntheticDay(7);

  it('says the polls are not open yet, before 08:00 and on the days before', () => {
    for (const now of [at(h('07:59')), at(h('15:00'), '2026-03-07')]) {
      const result = project({ now, timeZone: TIME_ZONE, electionDate: ELECTION_DATE, curve: day.curve, stations: day.inputsAt(0) });
      expect(result).toMatchObject({ phase: 'before_open', elapsedFraction: 0, method: 'learned-curve/v3', lagMinutes: null, coverage: 0.9 });
      // The curve is the prior, with the prior's band.
      expect(result.curve.points.map((p) => p.fraction)).toEqual(result.curve.points.map((p) => p.prior));
      expect(result.curve.points[4]!.low).toBeLessThan(result.curve.points[4]!.fraction);
      expect(result.overall).toMatchObject({ projectedTurnout: null, projectedTurnoutLow: null, projectedConfirmedVoted: null, votersSoFar: 0 });
      expect(result.stations.every((s) => s.projectedTurnout === null && s.basis === 'none')).toBe(true);
      expect(projectionView.safeParse(result).success).toBe(true);
    }
  });

  it('polls over two days: the night is a pause, not the close; counts after it continue the day', () => {
    // Sunday 07:00–23:00 and Monday 07:00–15:00; the day after ELECTION_DATE is 2026-03-09.
    const curve = defaultCurveFor([
      { opensAt: h('07:00'), closesAt: h('23:00') },
      { opensAt: 24 * 60 + h('07:00'), closesAt: 24 * 60 + h('15:00') },
    ]);
    const stations: StationInput[] = Array.from({ length: 30 }, (_, i) => ({
      id: `s${i}`,
      territoryId: `t${i % 3}`,
      registeredVoters: 1000,
      confirmedVoters: 0,
      confirmedVoted: 0,
      counts: [
        { votersSoFar: 150 + i, reportedAt: at(h('12:00')) },
        { votersSoFar: 380 + i, reportedAt: at(h('19:00')) },
        { votersSoFar: 450 + i, reportedAt: at(h('23:00')) },
        { votersSoFar: 520 + i, reportedAt: at(h('10:00'), '2026-03-09') },
      ],
    }));
    const run = (minutes: number, date = ELECTION_DATE) => project({ now: at(minutes, date), timeZone: TIME_ZONE, electionDate: ELECTION_DATE, curve, stations });
    const night = run(h('23:30'));
    // Sunday 23:00 is not the close: the phase stays open through the night and the final is still to come.
    expect(night.phase).toBe('open');
    expect(night.overall.projectedTurnout!).toBeGreaterThan(night.overall.votersSoFar);
    expect(night.overall.projectedTurnoutHigh!).toBeGreaterThan(night.overall.projectedTurnout!);
    // The night adds no polling time: 03:00 on Monday is where Sunday closed.
    expect(run(h('03:00'), '2026-03-09').elapsedFraction).toBe(night.elapsedFraction);
    const monday = run(h('10:30'), '2026-03-09');
    expect(monday.phase).toBe('open');
    expect(monday.elapsedFraction).toBeGreaterThan(night.elapsedFraction);
    expect(monday.overall.projectedTurnout!).toBeGreaterThan(monday.overall.votersSoFar);
    // The curve's hourly points are labelled with the wall clock: Monday's 08:00 follows Sunday's 23:00.
    const times = monday.curve.points.map((p) => p.time);
    expect(times.slice(times.indexOf('23:00'), times.indexOf('23:00') + 2)).toEqual(['23:00', '08:00']);
    expect(run(h('15:30'), '2026-03-09').phase).toBe('closed');
    expect(projectionView.safeParse(monday).success).toBe(true);
  });

  it('after closing, with every station reporting, equals the reported totals', () => {
    const result = projectAt(h('16:30'), day.inputsAt(h('16:30'), { closingCounts: true }));
    expect(result).toMatchObject({ phase: 'closed', elapsedFraction: 1 });
    expect(result.overall).toMatchObject({
      votersSoFar: day.finalTurnout,
      projectedTurnout: day.finalTurnout,
      projectedTurnoutLow: day.finalTurnout,
      projectedTurnoutHigh: day.finalTurnout,
      confirmedVoted: day.finalConfirmedVoted,
      projectedConfirmedVoted: day.finalConfirmedVoted,
      low: day.finalConfirmedVoted,
      high: day.finalConfirmedVoted,
      reportedShare: 1,
    });
    for (const territory of result.byTerritory) expect(territory.projectedTurnout).toBe(territory.votersSoFar);
    expect(projectionView.safeParse(result).success).toBe(true);
  });
});

describe('projection accuracy on synthetic election days (300 stations)', () => {
  const seeds = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
  const times = ['10:00', '12:00', '14:00'];

  // Coverage against the truth over many days is the accuracy report's (npm run accuracy:projection).
  it.each(seeds)('seed %i: figures stay within what is reported and what is possible, and the interval narrows through the day', (seed) => {
    const day = syntheticDay(seed);
    const reporting = day.stations.filter((s) => s.counts.length > 0).length;
    expect(reporting / day.stations.length).toBeGreaterThan(0.65);
    expect(reporting / day.stations.length).toBeLessThan(0.85);

    const widths: number[] = [];
    for (const time of times) {
      const result = projectAt(h(time), day.inputsAt(h(time)));
      const { overall } = result;
      expect(result.phase).toBe('open');
      expect(projectionView.safeParse(result).success).toBe(true);
      // Clamped to what is already reported and to what is possible.
      expect(overall.projectedTurnoutLow!).toBeGreaterThanOrEqual(overall.votersSoFar);
      expect(overall.projectedTurnoutHigh!).toBeLessThanOrEqual(overall.registeredVoters);
      expect(overall.high!).toBeLessThanOrEqual(overall.confirmedVoters);
      for (const s of result.stations) {
        expect(s.projectedTurnoutLow!).toBeGreaterThanOrEqual(s.votersSoFar);
        expect(s.projectedTurnoutLow!).toBeLessThanOrEqual(s.projectedTurnout!);
        expect(s.projectedTurnout!).toBeLessThanOrEqual(s.projectedTurnoutHigh!);
        expect(s.projectedTurnoutHigh!).toBeLessThanOrEqual(s.registeredVoters);
      }
      widths.push(overall.projectedTurnoutHigh! - overall.projectedTurnoutLow!);
    }
    expect(widths[1]!).toBeLessThan(widths[0]!);
    expect(widths[2]!).toBeLessThan(widths[1]!);
  });

  it('stations without counts borrow their territory’s rate, with a wider band than stations with a recent count', () => {
    const day = syntheticDay(3);
    const result = projectAt(h('14:00'), day.inputsAt(h('14:00')));
    const relativeWidth = (s: (typeof result.stations)[number]) => (s.projectedTurnoutHigh! - s.projectedTurnoutLow!) / s.registeredVoters;
    // A count read at 08:40 says little and gets a wide band of its own; compare with counts from noon on.
    const reported = result.stations.filter((s) => s.basis === 'count' && s.lastCountAt! >= at(h('12:00')).toISOString());
    const borrowed = result.stations.filter((s) => s.basis === 'territory');
    expect(reported.length).toBeGreaterThan(0);
    expect(borrowed.length).toBeGreaterThan(0);
    const mean = (list: typeof reported) => list.reduce((sum, s) => sum + relativeWidth(s), 0) / list.length;
    expect(mean(borrowed)).toBeGreaterThan(mean(reported));
    // A borrowed rate tracks the territory: the richest territory lends a higher rate than the poorest.
    const rate = (territoryId: string) => {
      const s = borrowed.find((b) => b.territoryId === territoryId)!;
      return s.projectedTurnout! / s.registeredVoters;
    };
    expect(rate('t4')).toBeGreaterThan(rate('t0') + 0.1);
    expect(result.byTerritory.map((t) => t.territoryId)).toEqual(['t0', 't1', 't2', 't3', 't4']);
    expect(result.overall.reportedShare).toBeGreaterThan(0);
    expect(result.overall.reportedShare).toBeLessThan(1);
  });

  it('is deterministic', () => {
    const day = syntheticDay(5);
    expect(projectAt(h('12:00'), day.inputsAt(h('12:00')))).toEqual(projectAt(h('12:00'), day.inputsAt(h('12:00'))));
  });
});
