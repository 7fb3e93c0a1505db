import { buildCurve, DEFAULT_CURVE, fractionAt, parseTimeOfDay } from '../../src/modules/gotv/projection/curve';
import { dayPrior, spreadFromHistory } from '../../src/modules/gotv/projection/curve-history';
import { ADAPTED_DEFAULT_SPREAD, DEFAULT_CURVE_SPREAD, HISTORY_CURVE_SPREAD } from '../../src/modules/gotv/projection/curve-model';
import { estimateLag, reportedWithin, type LagCount } from '../../src/modules/gotv/projection/lag';
import { fitPrepared, prepareDay, project, projectionView, type ProjectionInput, type StationInput } from '../../src/modules/gotv/projection/projection';
import { familyDay } from './families';
import { at, ELECTION_DATE, mulberry32, syntheticDay, TIME_ZONE } from './synthetic';

// What the projection answers to inputs it cannot use as they are: every answer is defined (a
// documented fallback, or the input set aside with the reason in `warnings`), never NaN or a throw.

const h = parseTimeOfDay;

const projectAt = (minutes: number, stations: StationInput[], extra: Partial<ProjectionInput> = {}) =>
  project({ now: at(minutes), timeZone: TIME_ZONE, electionDate: ELECTION_DATE, curve: DEFAULT_CURVE, stations, ...extra });

/** Every number in the answer is finite, and the answer is what the API schema accepts. */
function expectWellFormed(result: ReturnType<typeof project>): void {
  expect(projectionView.safeParse(result).success).toBe(true);
  JSON.stringify(result, (_key, value: unknown) => {
    if (typeof value === 'number') expect(Number.isFinite(value)).toBe(true);
    return value;
  });
}

const station = (id: string, counts: { votersSoFar: number; at: string }[], extra: Partial<StationInput> = {}): StationInput => ({
  id,
  territoryId: 't',
  registeredVoters: 1000,
  confirmedVoters: 10,
  confirmedVoted: 0,
  counts: counts.map((c) => ({ votersSoFar: c.votersSoFar, reportedAt: at(h(c.at)) })),
  ...extra,
});

describe('inputs the projection sets aside or falls back on', () => {
  const day = syntheticDay(11);
  const others = () => day.inputsAt(h('13:00')).slice(0, 60);

  it('a count above the station’s registered voters is set aside with a warning; the figure still shows it and caps the station', () => {
    const odd = station('odd', [
      { votersSoFar: 300, at: '11:00' },
      { votersSoFar: 1200, at: '12:00' },
    ]);
    const result = projectAt(h('13:00'), [...others(), odd]);
    expectWellFormed(result);
    expect(result.warnings).toContain("1 count(s) above the station's registered voters were set aside");
    const s = result.stations.find((x) => x.id === 'odd')!;
    expect(s).toMatchObject({ votersSoFar: 1200, projectedTurnout: 1200, projectedTurnoutLow: 1200, projectedTurnoutHigh: 1200 });
  });

  it('a count read before opening is set aside; a count read after closing is the station’s final figure', () => {
    const early = station('early', [{ votersSoFar: 40, at: '07:30' }]);
    const closed = station('closed', [
      { votersSoFar: 200, at: '10:00' },
      { votersSoFar: 640, at: '16:20' },
    ]);
    const result = projectAt(h('16:30'), [...others(), early, closed]);
    expectWellFormed(result);
    expect(result.warnings).toContain('1 count(s) read before opening were set aside');
    expect(result.stations.find((x) => x.id === 'early')).toMatchObject({ votersSoFar: 40, basis: 'territory' });
    expect(result.stations.find((x) => x.id === 'closed')).toMatchObject({ projectedTurnout: 640, projectedTurnoutLow: 640, projectedTurnoutHigh: 640 });
  });

  it('every count from one station: the others borrow its rate with a wide band', () => {
    const stations = day.inputsAt(h('14:00')).map((s, i) => (i === 0 ? s : { ...s, counts: [] }));
    stations[0] = {
      ...stations[0]!,
      counts: [
        { votersSoFar: 400, reportedAt: at(h('11:00')) },
        { votersSoFar: 700, reportedAt: at(h('13:30')) },
      ],
    };
    const result = projectAt(h('14:00'), stations);
    expectWellFormed(result);
    expect(result.overall.reportingStations).toBe(1);
    const borrowed = result.stations.filter((s) => s.basis !== 'count');
    expect(borrowed.length).toBe(stations.length - 1);
    // One station says little about the others' rates: the band is wide.
    const { projectedTurnout, projectedTurnoutLow, projectedTurnoutHigh } = result.overall;
    expect((projectedTurnoutHigh! - projectedTurnoutLow!) / projectedTurnout!).toBeGreaterThan(0.5);
  });

  it('no count at all: no turnout projection, the prior curve with its band, a warning; supporters are still projected', () => {
    const stations = day.inputsAt(h('13:00')).map((s) => ({ ...s, counts: [] }));
    const result = projectAt(h('13:00'), stations);
    expectWellFormed(result);
    expect(result.overall).toMatchObject({ projectedTurnout: null, projectedTurnoutLow: null, projectedTurnoutHigh: null, reportingStations: 0 });
    expect(result.stations.every((s) => s.basis === 'none' && s.projectedTurnout === null)).toBe(true);
    expect(result.warnings).toContain('no usable count yet: turnout is not projected and the curve is the prior');
    expect(result.curve.points.map((p) => p.fraction)).toEqual(result.curve.points.map((p) => p.prior));
    expect(result.overall.projectedConfirmedVoted).toBeGreaterThan(result.overall.confirmedVoted);
  });

  it('answers from the first usable counts on a slow morning, with a wide interval and why it is wide', () => {
    // A 07:00–23:00 day whose curve history says 3 % have voted by 9:00 and 4.5 % by 10:00.
    const slow = buildCurve({
      opensAt: '07:00',
      closesAt: '23:00',
      turnoutCurve: [
        { time: '07:00', fraction: 0 },
        { time: '09:00', fraction: 0.03 },
        { time: '10:00', fraction: 0.045 },
        { time: '19:00', fraction: 0.75 },
        { time: '23:00', fraction: 1 },
      ],
    });
    const stations = Array.from({ length: 40 }, (_, i) =>
      station(`s${i}`, [{ votersSoFar: 15 + (i % 7), at: '09:00' }], { territoryId: `t${i % 4}`, confirmedVoters: 300, confirmedVoted: 8 }),
    );
    const result = projectAt(h('10:00'), stations, { curve: slow, curveSource: 'history' });
    expectWellFormed(result);
    const { overall } = result;
    expect(overall.projectedTurnout).not.toBeNull();
    expect(overall.projectedTurnoutLow!).toBeLessThan(overall.projectedTurnout!);
    expect(overall.projectedTurnoutHigh!).toBeGreaterThan(overall.projectedTurnout!);
    // The supporters' share expected reported (4.5 %) is too small to scale by: the widest interval.
    expect(overall.projectedConfirmedVoted).not.toBeNull();
    expect(overall.low).toBe(overall.confirmedVoted);
    expect(overall.high).toBe(overall.confirmedVoters);
    expect(result.wideBecause.some((reason) => reason.startsWith('early in the day'))).toBe(true);
    expect(result.wideBecause.some((reason) => reason.startsWith("too few supporters' votes"))).toBe(true);
    expect(result.wideBecause.some((reason) => reason.startsWith('no station has a previous turnout'))).toBe(true);
    // Later in the day, with counts that pin it, the early reasons are gone.
    const later = projectAt(
      h('20:00'),
      stations.map((s, i) => ({ ...s, previousTurnout: 600, counts: [...s.counts, { votersSoFar: 500 + i, reportedAt: at(h('19:30')) }] })),
      { curve: slow, curveSource: 'history' },
    );
    expect(later.wideBecause).toEqual([]);
  });

  it('a station with no registered voters, or counts of zero, projects to its figure without NaN', () => {
    const empty = station('empty', [{ votersSoFar: 0, at: '11:00' }], { registeredVoters: 0, confirmedVoters: 0 });
    const zeros = station('zeros', [{ votersSoFar: 0, at: '09:00' }]);
    const result = projectAt(h('13:00'), [...others(), empty, zeros]);
    expectWellFormed(result);
    expect(result.stations.find((x) => x.id === 'empty')).toMatchObject({ projectedTurnout: 0, projectedTurnoutHigh: 0 });
    expect(result.overall.projectedTurnout).toBeGreaterThan(0);
    expect(result.stations.find((x) => x.id === 'zeros')!.projectedTurnout).toBeGreaterThan(0);
  });

  it('a stored curve that is not monotone or does not end at 1 falls back to the default shape with a warning', () => {
    for (const turnoutCurve of [
      [
        { time: '08:00', fraction: 0 },
        { time: '12:00', fraction: 0.7 },
        { time: '13:00', fraction: 0.5 },
        { time: '16:00', fraction: 1 },
      ],
      [
        { time: '08:00', fraction: 0 },
        { time: '16:00', fraction: 0.9 },
      ],
    ]) {
      const prior = dayPrior({ opensAt: '08:00', closesAt: '16:00', turnoutCurve, curveHistory: [] });
      expect(prior.source).toBe('default');
      expect(prior.curve).toEqual(DEFAULT_CURVE);
      expect(prior.warnings).toHaveLength(1);
      expect(prior.warnings[0]).toMatch(/stored turnout curve set aside/);
    }
    // Hours that are themselves unusable: the default day.
    expect(dayPrior({ opensAt: '16:00', closesAt: '08:00', turnoutCurve: null, curveHistory: [] }).curve).toEqual(DEFAULT_CURVE);
  });

  it('reports only the stations asked for, with the curve learned from all of them', () => {
    const stations = day.inputsAt(h('13:00'));
    const only = new Set(stations.filter((s) => s.territoryId === 't2').map((s) => s.id));
    const all = projectAt(h('13:00'), stations);
    const some = projectAt(h('13:00'), stations, { only });
    expectWellFormed(some);
    expect(some.stations.map((s) => s.id)).toEqual([...only]);
    expect(some.byTerritory.map((t) => t.territoryId)).toEqual(['t2']);
    expect(some.curve).toEqual(all.curve);
    expect(some.overall.projectedTurnout).toBe(all.byTerritory.find((t) => t.territoryId === 't2')!.projectedTurnout);
  });

  it('previous turnout: used when it fits, set aside with a warning above registered voters, ignored at 0; never NaN', () => {
    const base = familyDay('default', 3, { stations: 120 }).inputsAt(h('12:00')).stations;
    const withHistory = projectAt(h('12:00'), base);
    expectWellFormed(withHistory);
    // A station with history and no count takes its previous turnout times the day's factor.
    const silent = base.findIndex((s) => s.counts.length === 0 && (s.previousTurnout ?? 0) > 0);
    expect(withHistory.stations[silent]!.basis).toBe('history');
    const odd = [
      ...base,
      station('above', [{ votersSoFar: 300, at: '11:00' }], { previousTurnout: 1500 }),
      station('zero', [{ votersSoFar: 300, at: '11:00' }], { previousTurnout: 0 }),
    ];
    const result = projectAt(h('12:00'), odd);
    expectWellFormed(result);
    expect(result.warnings).toContain('1 station(s) with a previous turnout above their registered voters: that history was set aside');
    // Without any history the projection is the one it was before history existed.
    const none = base.map((s) => ({ ...s, previousTurnout: null }));
    const plain = projectAt(h('12:00'), none);
    const absent = projectAt(
      h('12:00'),
      base.map(({ previousTurnout: _unused, ...s }) => s),
    );
    expect(plain).toEqual(absent);
    expect(plain.stations.some((s) => s.basis === 'history')).toBe(false);
  });

  it('a fit passed in (a cache) gives what a fresh fit gives', () => {
    const input: ProjectionInput = { now: at(h('12:00')), timeZone: TIME_ZONE, electionDate: ELECTION_DATE, curve: DEFAULT_CURVE, stations: day.inputsAt(h('12:00')) };
    const fit = fitPrepared(prepareDay(input));
    expect(project(input, { fit: () => fit })).toEqual(project(input));
    // The cache key follows the counts the fit is made from.
    expect(prepareDay(input).key).toBe(prepareDay(input).key);
    expect(prepareDay({ ...input, now: at(h('13:00')), stations: day.inputsAt(h('13:00')) }).key).not.toBe(prepareDay(input).key);
  });
});

describe('reporting lag', () => {
  /** Votes over the last three hours, each reported 0–60 minutes later (uniform), seen at `now`. */
  function delays(seed: number): LagCount[] {
    const random = mulberry32(seed);
    const rows: LagCount[] = [];
    for (let i = 0; i < 4000; i++) {
      const age = random() * 180;
      const lag = random() * 60;
      if (lag <= age) rows.push({ lagMinutes: Math.floor(lag), ageMinutes: Math.floor(age), count: 1 });
    }
    return rows;
  }

  it('estimates the delay despite recent votes’ long delays not having arrived yet', () => {
    const rows = delays(4);
    const lag = estimateLag(rows)!;
    expect(lag.medianMinutes).toBeGreaterThan(27);
    expect(lag.medianMinutes).toBeLessThan(33);
    expect(reportedWithin(lag, 15)).toBeCloseTo(0.25, 1);
    expect(reportedWithin(lag, 90)).toBe(1);
    // The plain median of the delays seen is biased short: the correction is what fixes it.
    const seen = rows.map((r) => r.lagMinutes).sort((a, b) => a - b);
    expect(seen[seen.length >> 1]!).toBeLessThan(27);
  });

  it('needs enough reports, and says so with null', () => {
    expect(estimateLag(delays(4).slice(0, 20))).toBeNull();
    expect(reportedWithin(null, 5)).toBe(1);
  });

  it('corrects the confirmed-supporter projection for votes cast but not yet reported, and exposes the delay', () => {
    let coveredCorrected = 0;
    let coveredUncorrected = 0;
    const errors: number[] = [];
    for (const seed of [1, 2, 3, 4, 5]) {
      // Without history the curve's band is narrow enough at 15:00 to show the delay's effect alone.
      const day = familyDay('delayed-voter-reports', seed, { stations: 200, history: false });
      const { stations, voterLags, voterVotes } = day.inputsAt(h('15:00'));
      const corrected = projectAt(h('15:00'), stations, { voterLags, voterVotes });
      const uncorrected = projectAt(h('15:00'), stations, { voterVotes });
      expect(corrected.lagMinutes).toBeGreaterThan(25);
      expect(corrected.lagMinutes).toBeLessThan(35);
      expect(uncorrected.lagMinutes).toBeNull();
      expect(corrected.byTerritory.every((t) => t.lagMinutes !== null)).toBe(true);
      const truth = day.finalConfirmedVoted;
      const covers = (r: typeof corrected) => r.overall.low! <= truth && truth <= r.overall.high!;
      if (covers(corrected)) coveredCorrected += 1;
      if (covers(uncorrected)) coveredUncorrected += 1;
      errors.push(Math.abs(corrected.overall.projectedConfirmedVoted! / truth - 1));
    }
    // Without the correction the half hour of votes still in transit is missed every time.
    expect(coveredUncorrected).toBe(0);
    expect(coveredCorrected).toBeGreaterThanOrEqual(4);
    expect(errors.reduce((sum, e) => sum + e, 0) / errors.length).toBeLessThan(0.03);
  });
});

describe('the supporters’ flow', () => {
  it('keeps learning the curve when counts stop: the supporters’ flow shows the afternoon', () => {
    const error = { with: 0, without: 0 };
    const width = { with: 0, without: 0 };
    const seeds = [1, 2, 3, 4, 5, 6];
    for (const seed of seeds) {
      const day = familyDay('counts-stop-at-noon', seed, { stations: 240, history: false });
      const { stations, voterLags, voterVotes } = day.inputsAt(h('15:00'));
      const withFlow = projectAt(h('15:00'), stations, { voterLags, voterVotes });
      const withoutFlow = projectAt(h('15:00'), stations, { voterLags });
      expectWellFormed(withFlow);
      expect(withFlow.curve.supporterVotes).toBeGreaterThan(10_000);
      expect(withoutFlow.curve.supporterVotes).toBe(0);
      for (const [key, result] of [
        ['with', withFlow],
        ['without', withoutFlow],
      ] as const) {
        error[key] += Math.abs(result.overall.projectedTurnout! / day.finalTurnout - 1) / seeds.length;
        width[key] += (result.overall.projectedTurnoutHigh! - result.overall.projectedTurnoutLow!) / day.finalTurnout / seeds.length;
      }
    }
    expect(error.with).toBeLessThan(0.7 * error.without);
    expect(width.with).toBeLessThan(0.8 * width.without);
  });

  it('fits only whole bins already over, with enough votes, inside the day; anything else is left out, never NaN', () => {
    const day = syntheticDay(11);
    const stations = day.inputsAt(h('13:00')).slice(0, 60);
    const votes = (time: string, count: number, territoryId: string | null = 't') => ({ territoryId, votedMinute: at(h(time)), count });
    const usable = [votes('09:10', 12), votes('09:40', 30), votes('10:40', 15, null)];
    const dropped = [
      votes('07:30', 40), // before opening
      votes('12:45', 40), // its bin (12:30–13:00) is not over at 12:50
      votes('14:10', 40), // a vote time after now (a phone's clock ahead)
      votes('09:20', 0),
      votes('09:20', -3),
      votes('09:20', Number.NaN),
      { territoryId: 't', votedMinute: new Date(Number.NaN), count: 40 },
    ];
    const unusable = [...dropped, votes('11:10', 5)]; // the last: a bin with too few votes to fit
    const result = projectAt(h('12:50'), stations, { voterVotes: [...usable, ...unusable] });
    expectWellFormed(result);
    // 09:00–09:30 (12) and 09:30–10:00 (30) are fitted; 10:30–11:00 (15, no territory) too; the day's curve pools them.
    expect(result.curve.supporterVotes).toBe(57);
    const alone = projectAt(h('12:50'), stations, { voterVotes: usable });
    expect(alone).toEqual(result);
    // The fit (and its cache key) follows the flow.
    const input: ProjectionInput = { now: at(h('12:50')), timeZone: TIME_ZONE, electionDate: ELECTION_DATE, curve: DEFAULT_CURVE, stations };
    expect(prepareDay({ ...input, voterVotes: usable }).key).not.toBe(prepareDay(input).key);
    expect(prepareDay({ ...input, voterVotes: usable }).key).toBe(prepareDay({ ...input, voterVotes: [...usable, ...dropped] }).key);
  });
});

describe('curve history', () => {
  const late = [
    { time: '08:00', fraction: 0 },
    { time: '10:00', fraction: 0.12 },
    { time: '12:00', fraction: 0.33 },
    { time: '14:00', fraction: 0.6 },
    { time: '16:00', fraction: 1 },
  ];
  const early = [
    { time: '07:00', fraction: 0 },
    { time: '10:00', fraction: 0.4 },
    { time: '13:00', fraction: 0.75 },
    { time: '17:00', fraction: 1 },
  ];
  /** A kept curve as a function of the share of its day gone by, as the history reads it. */
  const relative = (points: { time: string; fraction: number }[]) => {
    const curve = { opensAt: h(points[0]!.time), closesAt: h(points[points.length - 1]!.time), points: points.map((p) => ({ minute: h(p.time), fraction: p.fraction })) };
    return (share: number) => fractionAt(curve, curve.opensAt + share * (curve.closesAt - curve.opensAt));
  };
  /** Three days just like the default curve. */
  const calmDays = () => [0, 1, 2].map(() => (share: number) => fractionAt(DEFAULT_CURVE, 480 + share * 480));

  it('without a configured curve, the history’s mean (on today’s hours) is the prior', () => {
    const prior = dayPrior({ opensAt: '08:00', closesAt: '16:00', turnoutCurve: null, curveHistory: [{ label: '2022', turnoutCurve: late }] });
    expect(prior.source).toBe('history');
    expect(fractionAt(prior.curve, h('12:00'))).toBeCloseTo(0.33, 5);
    // A curve kept on other hours is stretched: halfway through its day is halfway through today.
    const stretched = dayPrior({ opensAt: '08:00', closesAt: '16:00', turnoutCurve: null, curveHistory: [{ label: 'other hours', turnoutCurve: early }] });
    expect(fractionAt(stretched.curve, h('12:00'))).toBeCloseTo(
      fractionAt({ opensAt: 420, closesAt: 1020, points: early.map((p) => ({ minute: h(p.time), fraction: p.fraction })) }, 720),
      2,
    );
  });

  it('a configured curve stays the prior’s mean; one or two history days bring the real days’ spread, three or more their own', () => {
    const configured = buildCurve({}).points.map((p) => ({ time: `${String(Math.floor(p.minute / 60)).padStart(2, '0')}:00`, fraction: p.fraction }));
    const two = dayPrior({
      opensAt: '08:00',
      closesAt: '16:00',
      turnoutCurve: configured,
      curveHistory: [
        { label: 'a', turnoutCurve: late },
        { label: 'b', turnoutCurve: early },
      ],
    });
    expect(two.source).toBe('configured');
    expect(two.spread).toEqual(HISTORY_CURVE_SPREAD);
    // The default on its own hours keeps its spread; adapted to other hours, the real days' wider one.
    expect(dayPrior({ opensAt: '08:00', closesAt: '16:00', turnoutCurve: null, curveHistory: [] }).spread).toEqual(DEFAULT_CURVE_SPREAD);
    expect(dayPrior({ opensAt: '07:00', closesAt: '23:00', turnoutCurve: null, curveHistory: [] }).spread).toEqual(ADAPTED_DEFAULT_SPREAD);
    // Three days just like the prior: calmer than the default, but never below what the blend allows.
    const calm = spreadFromHistory(DEFAULT_CURVE, calmDays());
    expect(calm.tiltSd).toBeCloseTo(DEFAULT_CURVE_SPREAD.tiltSd / Math.SQRT2, 5);
    expect(calm.wiggleSd).toBeCloseTo(DEFAULT_CURVE_SPREAD.wiggleSd / Math.SQRT2, 5);
    expect(calm.openingWiggleSd).toBeCloseTo(DEFAULT_CURVE_SPREAD.openingWiggleSd / Math.SQRT2, 5);
    // Days whose first hour is 0.16 of the day or 0.03, against the prior's 0.08, and like it after:
    // the first hour's own spread grows past the default and stays well above the rest's.
    const firstHour = fractionAt(DEFAULT_CURVE, 540);
    const opening = (share: number) => (minute: number) => {
      const prior = fractionAt(DEFAULT_CURVE, minute);
      return minute <= 540 ? (prior * share) / firstHour : share + ((prior - firstHour) * (1 - share)) / (1 - firstHour);
    };
    const openings = spreadFromHistory(
      DEFAULT_CURVE,
      [0.16, 0.03, 0.16, 0.03].map((share) => (dayShare: number) => opening(share)(480 + dayShare * 480)),
    );
    expect(openings.openingWiggleSd).toBeGreaterThan(DEFAULT_CURVE_SPREAD.openingWiggleSd);
    expect(openings.openingWiggleSd).toBeGreaterThan(3 * openings.wiggleSd);
    // Days as different as an early and a late one: a wider tilt than the default.
    const wild = spreadFromHistory(DEFAULT_CURVE, [relative(late), relative(early), relative(late), relative(early)]);
    expect(wild.tiltSd).toBeGreaterThan(DEFAULT_CURVE_SPREAD.tiltSd);
  });

  it('λ’s scale and the drift come from how far the past days’ afternoons strayed from their mornings', () => {
    // Days just like the prior: their afternoons were what their mornings said; the blend's floor.
    const calm = spreadFromHistory(DEFAULT_CURVE, calmDays());
    expect(calm.futureSd).toBeCloseTo(DEFAULT_CURVE_SPREAD.futureSd / Math.SQRT2, 5);
    expect(calm.driftSd).toBeCloseTo(DEFAULT_CURVE_SPREAD.driftSd / Math.SQRT2, 5);
    // Early and late days tilt the whole day: their mornings tell their afternoons.
    const tilted = spreadFromHistory(DEFAULT_CURVE, [relative(late), relative(early), relative(late), relative(early)]);
    // Days that went flat and surged after 14:00 (the flat-surge day's): the morning looked ordinary, the afternoon was not.
    const surging = [
      { time: '08:00', fraction: 0 },
      { time: '10:00', fraction: 0.1 },
      { time: '12:00', fraction: 0.26 },
      { time: '14:00', fraction: 0.4 },
      { time: '15:00', fraction: 0.67 },
      { time: '16:00', fraction: 1 },
    ];
    const surges = spreadFromHistory(
      DEFAULT_CURVE,
      [0, 1, 2, 3].map(() => relative(surging)),
    );
    expect(tilted.futureSd).toBeLessThan(DEFAULT_CURVE_SPREAD.futureSd);
    expect(surges.futureSd).toBeGreaterThan(DEFAULT_CURVE_SPREAD.futureSd);
    expect(surges.futureSd).toBeGreaterThan(tilted.futureSd + 0.1);
    expect(surges.driftSd / surges.futureSd).toBeCloseTo(DEFAULT_CURVE_SPREAD.driftSd / DEFAULT_CURVE_SPREAD.futureSd, 10);
    // A day of three hours has no hour two hours past its first with an hour still to come: nothing
    // to learn λ from, the default stays (while tilt and wiggle are still learned).
    const short = spreadFromHistory(
      { opensAt: 480, closesAt: 660, points: [0, 60, 120, 180].map((m) => ({ minute: 480 + m, fraction: m / 180 })) },
      [0, 1, 2].map(() => relative(surging)),
    );
    expect(short.futureSd).toBe(DEFAULT_CURVE_SPREAD.futureSd);
    expect(short.driftSd).toBe(DEFAULT_CURVE_SPREAD.driftSd);
    expect(short.tiltSd).not.toBe(DEFAULT_CURVE_SPREAD.tiltSd);
  });

  it('a stored history curve that no longer validates is set aside with a warning', () => {
    const prior = dayPrior({ opensAt: '08:00', closesAt: '16:00', turnoutCurve: null, curveHistory: [{ label: 'broken', turnoutCurve: [{ time: '08:00', fraction: 0.2 }] }] });
    expect(prior.source).toBe('default');
    expect(prior.warnings).toEqual([expect.stringMatching(/^history curve 1 set aside/)]);
  });
});
