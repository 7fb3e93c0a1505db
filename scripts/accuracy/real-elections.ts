/**
 * Real elections for the projection's accuracy report (scripts/accuracy-projection.ts), read from
 * the copies in test/fixtures/real-elections (sources and licences in its README.md).
 *
 * Each election is represented as the projection sees a day: stations (the units the file gives:
 * comuni, polling sections or counties) with their registered voters, counts at the times the file
 * gives, the previous election's turnout where the file has it, and the true final. Times are
 * wall-clock minutes since the first polling day's midnight (past 24 h on the second day), as the
 * projection reads them; its curve takes each overnight pause out (`defaultCurveFor`, `pauses`), so a
 * two-day election is one stretch of polling time from the first opening to the last closing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { defaultCurveFor, type PollingPeriod } from '../../src/modules/gotv/projection/curve';

export type Role = 'calibration' | 'evaluation';

export interface RealUnit {
  id: string;
  /** The territory the model groups the unit in (province, or none). */
  territoryId: string | null;
  /** The larger territory reported on (region), where the file says it. */
  region: string | null;
  registered: number;
  /** Voters at the previous comparable election, where the file has it. */
  previous: number | null;
  counts: { minute: number; voters: number }[];
  final: number;
}

export interface Checkpoint {
  label: string;
  /** Wall-clock minute of the latest counts the projection sees. */
  countsAt: number;
  /** Wall-clock minute the projection is made at. */
  at: number;
}

export interface RealElection {
  id: string;
  role: Role;
  /** What the file is, and how the day is represented. */
  description: string;
  /** 'YYYY-MM-DD' of the first polling day; minutes count from its midnight (UTC in the report). */
  date: string;
  /** Polling time (the curve's minutes): the first opening and the last closing, pauses taken out. */
  opensAt: number;
  closesAt: number;
  /** The polls' openings, in wall-clock minutes since the first day's midnight (the curve takes the pauses out). */
  periods: PollingPeriod[];
  units: RealUnit[];
  checkpoints: Checkpoint[];
  /**
   * The previous election's curve at the same reading times (share of its final), where the file
   * has it: the curve history a campaign would enter (one-day elections only: wall clock = polling time).
   */
  historyCurve: { minute: number; fraction: number }[] | null;
  /** Counts are citizens' reports at times of their own, not readings every unit shares. */
  citizenReports?: true;
}

const FIXTURES = join(__dirname, '../../test/fixtures/real-elections');

/** Rows of a comma-separated file (quoted fields may hold commas), gunzipped. */
function readCsv(path: string): Record<string, string>[] {
  const text = gunzipSync(readFileSync(join(FIXTURES, path)))
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  const lines = text.split(/\r?\n/).filter((line) => line.length > 0);
  const split = (line: string): string[] => {
    const fields: string[] = [];
    let field = '';
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (c === '"') quoted = !quoted;
      else if (c === ',' && !quoted) {
        fields.push(field);
        field = '';
      } else field += c;
    }
    fields.push(field);
    return fields;
  };
  const header = split(lines[0]!);
  return lines.slice(1).map((line) => {
    const fields = split(line);
    return Object.fromEntries(header.map((name, i) => [name, fields[i] ?? '']));
  });
}

const hour = (h: number) => h * 60;

/** The first opening and the last closing in polling time, the pauses taken out. */
function pollingHours(periods: PollingPeriod[]): { periods: PollingPeriod[]; opensAt: number; closesAt: number } {
  const curve = defaultCurveFor(periods);
  return { periods, opensAt: curve.opensAt, closesAt: curve.closesAt };
}
const num = (value: string | undefined) => Number((value ?? '').replace(',', '.'));

/** Sums of voters over the units at a reading, and of their previous election's at the same reading. */
function historyCurveOf(readings: { minute: number; previousShare: number[] }[], registered: number[], closesAt: number, opensAt: number): RealElection['historyCurve'] {
  const totals = readings.map((r) => r.previousShare.reduce((sum, share, i) => sum + share * registered[i]!, 0));
  const final = totals[totals.length - 1]!;
  if (!(final > 0)) return null;
  return [{ minute: opensAt, fraction: 0 }, ...readings.slice(0, -1).map((r, i) => ({ minute: r.minute, fraction: totals[i]! / final })), { minute: closesAt, fraction: 1 }];
}

/**
 * Italy, general election 25 Sep 2022 (Chamber), one day 07:00–23:00, 7,904 comuni read at 12:00,
 * 19:00 and 23:00 (the close: the final), with 2018's percentages at the same hours (2018: one day
 * 07:00–23:00 too). Territory: the province; region reported on.
 */
function politiche2022(): RealElection {
  const rows = readCsv('it_politiche_2022/affluenzaComuni.csv.gz');
  const units: RealUnit[] = [];
  const prevShares: number[][] = [[], [], []];
  const registered: number[] = [];
  for (const row of rows) {
    const electors = num(row['elettori']);
    const final = num(row['voti_h23']);
    if (!(electors > 0) || !(final > 0)) continue;
    const code = row['provincia']!;
    const prevFinal = num(row['%h23_prec']) / 100;
    units.push({
      id: row['CODICE ISTAT']!,
      territoryId: code.slice(0, 5),
      region: code.slice(0, 2),
      registered: electors,
      previous: prevFinal > 0 ? Math.min(electors, Math.round(prevFinal * electors)) : null,
      counts: [
        { minute: hour(12), voters: num(row['voti_h12']) },
        { minute: hour(19), voters: num(row['voti_h19']) },
      ],
      final,
    });
    ['%h12_prec', '%h19_prec', '%h23_prec'].forEach((column, i) => prevShares[i]!.push(num(row[column]) / 100));
    registered.push(electors);
  }
  return {
    id: 'it-politiche-2022',
    role: 'evaluation',
    description: 'Italy, general election 2022: comuni, one day 07–23, counts at 12:00 and 19:00, final at 23:00; previous: 2018',
    date: '2022-09-25',
    periods: [{ opensAt: hour(7), closesAt: hour(23) }],
    opensAt: hour(7),
    closesAt: hour(23),
    units,
    checkpoints: [
      { label: '12:30', countsAt: hour(12), at: hour(12.5) },
      { label: '19:30', countsAt: hour(19), at: hour(19.5) },
    ],
    historyCurve: historyCurveOf(
      [hour(12), hour(19), hour(23)].map((minute, i) => ({ minute, previousShare: prevShares[i]! })),
      registered,
      hour(23),
      hour(7),
    ),
  };
}

/**
 * Italy, European election 8–9 Jun 2024: Saturday 15:00–23:00 and Sunday 07:00–23:00, 7,896 comuni
 * read at Sat 23:00, Sun 12:00 and 19:00, final at Sun 23:00, with 2019's percentages at the same
 * readings (2019: one day, Sunday 07:00–23:00, read at 12:00, 19:00 and 23:00: Saturday's 23:00
 * reading compares with 2019's 12:00; only 2019's final is used). Territory: the province. Polling time: Saturday 15:00 is
 * minute 900, Saturday 23:00 is 1380 and so is Sunday 07:00; Sunday 23:00 is 2340.
 */
function europee2024(): RealElection {
  const rows = readCsv('it_europee_2024/affluenza_comuni_long.csv.gz');
  const axis: Record<string, number> = { '1': hour(23), '2': hour(24 + 12), '3': hour(24 + 19), '4': hour(24 + 23) };
  const byUnit = new Map<string, Record<string, string>[]>();
  for (const row of rows) {
    const key = `${row['provincia_file']}-${row['cod_comune']}`;
    const list = byUnit.get(key) ?? [];
    list.push(row);
    byUnit.set(key, list);
  }
  const units: RealUnit[] = [];
  for (const [id, list] of byUnit) {
    const reading = (com: string) => list.find((r) => r['com'] === com);
    const last = reading('4');
    const electors = num(last?.['elettori_tot']);
    const final = num(last?.['votanti_tot']);
    if (!last || !(electors > 0) || !(final > 0) || list.length !== 4) continue;
    const prevFinal = num(last['perc_prev_election_same_hour']) / 100;
    units.push({
      id,
      territoryId: last['provincia_file']!,
      region: null,
      registered: electors,
      previous: prevFinal > 0 ? Math.min(electors, Math.round(prevFinal * electors)) : null,
      counts: ['1', '2', '3'].map((com) => ({ minute: axis[com]!, voters: num(reading(com)!['votanti_tot']) })),
      final,
    });
  }
  return {
    id: 'it-europee-2024',
    role: 'calibration',
    description: 'Italy, European election 2024: comuni, Sat 15–23 and Sun 07–23, counts at Sat 23:00, Sun 12:00 and 19:00, final at Sun 23:00; previous: 2019',
    date: '2024-06-08',
    ...pollingHours([
      { opensAt: hour(15), closesAt: hour(23) },
      { opensAt: hour(24 + 7), closesAt: hour(24 + 23) },
    ]),
    units,
    checkpoints: [
      { label: 'Sat 23:30', countsAt: axis['1']!, at: axis['1']! + 30 },
      { label: 'Sun 12:30', countsAt: axis['2']!, at: axis['2']! + 30 },
      { label: 'Sun 19:30', countsAt: axis['3']!, at: axis['3']! + 30 },
    ],
    // 2019 voted on one day (Sunday 07:00–23:00) and 2024 from Saturday afternoon: the ministry pairs
    // readings by their order (Saturday's 23:00 with 2019's 12:00), not by the share of polling time,
    // so 2019's curve is no history for 2024's hours; its previous turnout (2019's final) is.
    historyCurve: null,
  };
}

/**
 * Italy, constitutional referendum 22–23 Mar 2026: Sunday 07:00–23:00 and Monday 07:00–15:00,
 * 7,895 comuni read at Sun 12:00, 19:00, 23:00, final at Mon 15:00; no previous election in the
 * file. Territory: the province; region reported on. Polling time: Monday 07:00 is Sunday 23:00
 * (1380), Monday 15:00 is 1860.
 */
function referendum2026(): RealElection {
  const rows = readCsv('it_referendum_2026/affluenza.csv.gz').filter((row) => row['livello'] === 'comune');
  const axis: Record<string, number> = { '1': hour(12), '2': hour(19), '3': hour(23), '4': hour(24 + 15) };
  const byUnit = new Map<string, Record<string, string>[]>();
  for (const row of rows) {
    const list = byUnit.get(row['cod_eligendo']!) ?? [];
    list.push(row);
    byUnit.set(row['cod_eligendo']!, list);
  }
  const units: RealUnit[] = [];
  for (const [id, list] of byUnit) {
    const reading = (r: string) => list.find((row) => row['rilevazione'] === r);
    const last = reading('4');
    const electors = num(last?.['elettori_t']);
    const final = num(last?.['votanti_t']);
    if (!last || !(electors > 0) || !(final > 0) || list.length !== 4) continue;
    units.push({
      id,
      territoryId: `${last['cod_reg']}-${last['cod_prov']}`,
      region: last['cod_reg']!,
      registered: electors,
      previous: null,
      counts: ['1', '2', '3'].map((r) => ({ minute: axis[r]!, voters: num(reading(r)!['votanti_t']) })),
      final,
    });
  }
  return {
    id: 'it-referendum-2026',
    role: 'evaluation',
    description: 'Italy, referendum 2026: comuni, Sun 07–23 and Mon 07–15, counts at Sun 12:00, 19:00, 23:00, final at Mon 15:00; no previous',
    date: '2026-03-22',
    ...pollingHours([
      { opensAt: hour(7), closesAt: hour(23) },
      { opensAt: hour(24 + 7), closesAt: hour(24 + 15) },
    ]),
    units,
    checkpoints: [
      { label: 'Sun 12:30', countsAt: axis['1']!, at: hour(12.5) },
      { label: 'Sun 19:30', countsAt: axis['2']!, at: hour(19.5) },
      { label: 'Mon 07:30', countsAt: axis['3']!, at: hour(24 + 7.5) },
    ],
    historyCurve: null,
  };
}

/**
 * Liguria, regional election 27–28 Oct 2024: Sunday 07:00–23:00 and Monday 07:00–15:00, 1,785
 * polling sections read at Sun 12:00, 19:00, 23:00, final at Mon 15:00; no previous election in the
 * file. Territory: the comune; region: the province.
 */
function liguria2024(): RealElection {
  const rows = readCsv('it_liguria_2024/affluenza_comuni.csv.gz');
  const axis: Record<string, number> = { '20241027120000': hour(12), '20241027190000': hour(19), '20241027230000': hour(23), '20241028150000': hour(24 + 15) };
  const bySection = new Map<string, Record<string, string>[]>();
  for (const row of rows) {
    const key = `${row['minint_elettorale']}-${row['codice_sezione']}`;
    const list = bySection.get(key) ?? [];
    list.push(row);
    bySection.set(key, list);
  }
  const units: RealUnit[] = [];
  for (const [id, list] of bySection) {
    const last = list.find((row) => row['orario'] === '20241028150000');
    const electors = num(last?.['elettori_totali']);
    const final = num(last?.['votanti']);
    if (!last || !(electors > 0) || !(final > 0) || list.length !== 4) continue;
    units.push({
      id,
      territoryId: last['minint_elettorale']!,
      region: last['minint_elettorale']!.slice(3, 6),
      registered: electors,
      previous: null,
      counts: list.filter((row) => row !== last).map((row) => ({ minute: axis[row['orario']!]!, voters: num(row['votanti']) })),
      final,
    });
  }
  return {
    id: 'it-liguria-2024',
    role: 'evaluation',
    description: 'Liguria, regional election 2024: polling sections, Sun 07–23 and Mon 07–15, counts at Sun 12:00, 19:00, 23:00, final at Mon 15:00; no previous',
    date: '2024-10-27',
    ...pollingHours([
      { opensAt: hour(7), closesAt: hour(23) },
      { opensAt: hour(24 + 7), closesAt: hour(24 + 15) },
    ]),
    units,
    checkpoints: [
      { label: 'Sun 12:30', countsAt: hour(12), at: hour(12.5) },
      { label: 'Sun 19:30', countsAt: hour(19), at: hour(19.5) },
      { label: 'Mon 07:30', countsAt: hour(23), at: hour(24 + 7.5) },
    ],
    historyCurve: null,
  };
}

/** Romanian elections in the file with a whole day (07:00–20:00), oldest first, and their comparable predecessor. */
const ROMANIA = [
  { id: '2016-parl', previous: null },
  { id: '2019-prez-1', previous: null },
  { id: '2019-prez-2', previous: '2019-prez-1' },
  { id: '2020-parl', previous: '2016-parl' },
] as const;

/**
 * Romania, four national elections: 42 counties and Bucharest read every hour from 07:00 to 20:00
 * (diaspora left out). Polls close at 21:00 and the file stops at 20:00: the day is represented as
 * 07:00–20:00 with the 20:00 count as its final. Registered voters are the 2024 permanent lists (the
 * only ones in the file). Previous: the comparable election before (2016's parliament for 2020's,
 * the first round for the second); curve history: the national curve of the election before it.
 */
function romania(): RealElection[] {
  const rows = readCsv('ro_hourly_counties/judete.csv.gz').filter((row) => row['diaspora'] === '0');
  const registered = new Map<string, number>();
  for (const row of rows) if (row['alegeri'] === '2024-prez-1' && num(row['inscrisi_L_permanente']) > 0) registered.set(row['Judet']!, num(row['inscrisi_L_permanente']));
  const series = new Map<string, Map<string, { minute: number; voters: number }[]>>();
  const dates = new Map<string, string>();
  for (const row of rows) {
    const election = row['alegeri']!;
    if (!ROMANIA.some((e) => e.id === election)) continue;
    const time = /(\d{2}):(\d{2})$/.exec(row['timestamp']!);
    if (!time) continue;
    if (!dates.has(election)) dates.set(election, row['timestamp']!.slice(0, 10));
    const byCounty = series.get(election) ?? new Map<string, { minute: number; voters: number }[]>();
    series.set(election, byCounty);
    const list = byCounty.get(row['Judet']!) ?? [];
    list.push({ minute: Number(time[1]) * 60 + Number(time[2]), voters: num(row['LT']) });
    byCounty.set(row['Judet']!, list);
  }
  const finalOf = (election: string, county: string) =>
    series
      .get(election)
      ?.get(county)
      ?.find((c) => c.minute === hour(20))?.voters ?? null;
  const nationalCurve = (election: string): RealElection['historyCurve'] => {
    const totals = new Map<number, number>();
    for (const list of series.get(election)?.values() ?? []) for (const c of list) totals.set(c.minute, (totals.get(c.minute) ?? 0) + c.voters);
    const final = totals.get(hour(20)) ?? 0;
    return [...totals.entries()].sort(([a], [b]) => a - b).map(([minute, voters]) => ({ minute, fraction: minute === hour(7) ? 0 : voters / final }));
  };
  return ROMANIA.map(({ id, previous }, index) => {
    const units: RealUnit[] = [];
    for (const [county, list] of series.get(id) ?? []) {
      const electors = registered.get(county);
      const final = finalOf(id, county);
      if (!electors || !final) continue;
      const prev = previous ? finalOf(previous, county) : null;
      units.push({
        id: county,
        territoryId: null,
        region: null,
        registered: Math.max(electors, final),
        previous: prev ? Math.min(Math.max(electors, final), prev) : null,
        counts: list.filter((c) => c.minute > hour(7) && c.minute < hour(20)).sort((a, b) => a.minute - b.minute),
        final,
      });
    }
    return {
      id: `ro-${id}`,
      role: 'calibration' as const,
      description: `Romania ${id}: counties, 07–21 with hourly counts to 20:00 (taken as the final)${previous ? `; previous: ${previous}` : ''}`,
      date: dates.get(id)!,
      ...pollingHours([{ opensAt: hour(7), closesAt: hour(20) }]),
      units,
      checkpoints: [
        { label: '10:30', countsAt: hour(10), at: hour(10.5) },
        { label: '13:30', countsAt: hour(13), at: hour(13.5) },
        { label: '17:30', countsAt: hour(17), at: hour(17.5) },
      ],
      historyCurve: index > 0 ? nationalCurve(ROMANIA[index - 1]!.id) : null,
    };
  });
}

/**
 * Philadelphia's elections read from the citizen tracker, with the comparable election before each.
 * Not 2020's general election: its final counts the mail ballots, about half the city's votes that
 * year, which no report from a polling place sees (reports at 19:00 were 0.41 of the final).
 */
const PHILADELPHIA = [
  { id: '2019-primary', file: 'phila_201905_google_download.csv.gz', date: '2019-05-21', final: '2019 primary', previous: '2015 primary' },
  { id: '2019-general', file: 'phila_201911_google_download.csv.gz', date: '2019-11-05', final: '2019 general', previous: '2015 general' },
];

/**
 * Philadelphia, 07:00–20:00: citizens' own reports ("how many people voted before you, plus you" at
 * their division), 1–3 for a few hundred of the 1,703 divisions, as sent, with their mistakes: the
 * noisy, sparse input a campaign's volunteers give. Divisions are the stations and wards their
 * territories; each division's final is the city's count, the previous turnout the comparable
 * election four years before. The file has no registered voters: a division's is taken as 1.5 times
 * its highest turnout of 2002–2020 (a presidential election brings out about two thirds of the
 * registered), which keeps the projection's upper bound out of the way; turnout percentages in the
 * report are of that figure, errors and coverage are not affected by it.
 */
function philadelphia(): RealElection[] {
  const finals = new Map<string, Map<string, number>>();
  const highest = new Map<string, number>();
  for (const row of readCsv('us_philadelphia_tracker/phila_division_final_turnout_2002_2020.csv.gz')) {
    const turnout = Math.round(num(row['turnout']));
    if (!(turnout >= 0)) continue;
    const byDivision = finals.get(row['election']!) ?? new Map<string, number>();
    finals.set(row['election']!, byDivision);
    byDivision.set(row['precinct']!, turnout);
    highest.set(row['precinct']!, Math.max(highest.get(row['precinct']!) ?? 0, turnout));
  }
  return PHILADELPHIA.map(({ id, file, date, final, previous }) => {
    const [year, month, day] = date.split('-').map(Number);
    const reports = new Map<string, { minute: number; voters: number }[]>();
    for (const row of readCsv(`us_philadelphia_tracker/${file}`)) {
      const fields = Object.values(row);
      // 2019's forms: Timestamp, Ward, Division, Time of day, Voter number; 2020's: timestamp, ward, div, time_of_day, obs, vote_method.
      const [stamp, ward, division, time, voters, method] = fields;
      if (method !== undefined && method !== 'in person') continue;
      // Sent on election day (the form also took tests and earlier days' mail ballots).
      const sent = /^(\d+)\/(\d+)\/(\d+)/.exec(stamp ?? '');
      if (!sent || Number(sent[1]) !== month || Number(sent[2]) !== day || Number(sent[3]) !== year) continue;
      const clock = /^(\d{1,2}):(\d{2})/.exec(time ?? '');
      const count = num(voters);
      if (!clock || !Number.isInteger(count) || count < 0) continue;
      const minute = Number(clock[1]) * 60 + Number(clock[2]);
      if (minute <= hour(7) || minute >= hour(20)) continue;
      const precinct = `${String(Number(ward)).padStart(2, '0')}${String(Number(division)).padStart(2, '0')}`;
      const list = reports.get(precinct) ?? [];
      list.push({ minute, voters: count });
      reports.set(precinct, list);
    }
    const units: RealUnit[] = [];
    for (const [precinct, turnout] of finals.get(final) ?? []) {
      if (!(turnout > 0)) continue;
      const registered = Math.max(turnout, Math.round(1.5 * (highest.get(precinct) ?? turnout)));
      const before = finals.get(previous)?.get(precinct) ?? null;
      units.push({
        id: precinct,
        territoryId: `ward ${precinct.slice(0, 2)}`,
        region: null,
        registered,
        previous: before && before > 0 ? Math.min(before, registered) : null,
        counts: (reports.get(precinct) ?? []).sort((a, b) => a.minute - b.minute),
        final: turnout,
      });
    }
    return {
      id: `us-phila-${id}`,
      role: 'calibration' as const,
      description: `Philadelphia ${final}: 1,703 divisions, 07–20, citizens' sparse reports; previous: ${previous}`,
      date,
      ...pollingHours([{ opensAt: hour(7), closesAt: hour(20) }]),
      units,
      checkpoints: [
        { label: '10:30', countsAt: hour(10.5), at: hour(10.5) },
        { label: '13:30', countsAt: hour(13.5), at: hour(13.5) },
        { label: '17:30', countsAt: hour(17.5), at: hour(17.5) },
      ],
      historyCurve: null,
      citizenReports: true,
    };
  });
}

export const REAL_ELECTIONS: Record<string, () => RealElection[]> = {
  'it-europee-2024': () => [europee2024()],
  romania,
  philadelphia,
  'it-politiche-2022': () => [politiche2022()],
  'it-referendum-2026': () => [referendum2026()],
  'it-liguria-2024': () => [liguria2024()],
};
