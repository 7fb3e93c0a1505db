import { z } from 'zod';
import type { AppDeps } from '../../kernel/context';
import { ConflictError, invalidField } from '../../kernel/errors';
import type { Queries } from '../../kernel/sql';
import { instantAt, localClock } from '../../kernel/calendar';
import { DEFAULT_CLOSES_AT, DEFAULT_OPENS_AT } from './projection/curve';
import { dayPrior, followingDaysProblems, followingDaysSchema, historyCurveSchema, readPreviousTurnoutSpread, type DayPrior, type HistoryCurve } from './projection/curve-history';
import { settingsBody, settingsView } from './gotv.settings.schemas';
import { findSettings, saveSettings } from './gotv.stations.repository';
import { electionDateChanged, readElectionDate, setElectionDate } from '../campaign';

export { electionDateOf } from '../campaign';

export { settingsBody, settingsView };

export type SettingsInput = z.infer<typeof settingsBody>;

export async function getSettings(q: Queries): Promise<z.input<typeof settingsView>> {
  const [row, electionDate] = await Promise.all([findSettings(q), readElectionDate(q)]);
  return {
    electionDate,
    opensAt: row?.opensAt ?? DEFAULT_OPENS_AT,
    closesAt: row?.closesAt ?? DEFAULT_CLOSES_AT,
    turnoutCurve: row?.turnoutCurve ?? null,
    // A stored entry that no longer validates is left out here; the projection says so in its warnings.
    curveHistory: (row?.curveHistory ?? []).flatMap((entry): HistoryCurve[] => {
      const parsed = historyCurveSchema.safeParse(entry);
      return parsed.success ? [parsed.data] : [];
    }),
    previousTurnoutSpread: readPreviousTurnoutSpread(row?.previousTurnoutSpread ?? null),
    // Days that no longer fit election day are left out here; the projection says so in its warnings.
    followingDays: (() => {
      const parsed = followingDaysSchema.safeParse(row?.followingDays ?? []);
      return parsed.success && electionDate && followingDaysProblems(electionDate, parsed.data).length === 0 ? parsed.data : [];
    })(),
  };
}

type SettingsDeps = Pick<AppDeps, 'caches' | 'db'>;

/**
 * Where the live figures (a station's last count, the hourly curve) start: today's local midnight,
 * so that a rehearsal's counts are gone on election morning; once election day has passed, its
 * midnight, so that the day's results stay on the map.
 */
export function liveDayStart(now: Date, timeZone: string, electionDate: string | null): Date {
  const today = localClock(now, timeZone).date;
  return instantAt(electionDate !== null && electionDate < today ? electionDate : today, 0, timeZone);
}

export async function putSettings(deps: SettingsDeps, input: SettingsInput) {
  // A curve history is kept unless the body says otherwise: changing the date must not lose it.
  const stored = input.curveHistory === undefined || input.previousTurnoutSpread === undefined ? await findSettings(deps.db) : undefined;
  const curveHistory = input.curveHistory ?? stored?.curveHistory ?? [];
  const previousTurnoutSpread = input.previousTurnoutSpread === undefined ? (stored?.previousTurnoutSpread ?? null) : input.previousTurnoutSpread;
  const followingDays = input.followingDays ?? [];
  if (followingDays.length) {
    // The body may leave the date out (kept as it is): the later days are checked against the one that will hold.
    const electionDate = input.electionDate ?? (await readElectionDate(deps.db));
    if (!electionDate) throw invalidField('body.electionDate', 'set the election date before later polling days (followingDays)');
    const [problem] = followingDaysProblems(electionDate, followingDays);
    if (problem) throw invalidField(`body.followingDays.${problem.index}`, problem.message);
  }
  await deps.db.transaction(async (tx) => {
    await saveSettings(tx, { opensAt: input.opensAt, closesAt: input.closesAt, turnoutCurve: input.turnoutCurve ?? null, curveHistory, previousTurnoutSpread, followingDays });
    if (input.electionDate !== undefined) await setElectionDate(tx, input.electionDate);
  });
  if (input.electionDate !== undefined) await electionDateChanged(deps);
  return getSettings(deps.db);
}

const DEFAULT_DAY = { opensAt: DEFAULT_OPENS_AT, closesAt: DEFAULT_CLOSES_AT, turnoutCurve: null, curveHistory: [] };

/**
 * The election date and the prior the projection needs (curve, its source and spread, and any
 * stored curve set aside); 409 until a manager has set the date.
 */
export async function electionDay(q: Queries): Promise<{ electionDate: string } & DayPrior> {
  const [settings, electionDate] = await Promise.all([findSettings(q), readElectionDate(q)]);
  if (!electionDate) {
    throw new ConflictError('Set the election date first (PUT /api/campaign/settings).', 'election_date_not_set');
  }
  return { electionDate, ...dayPrior({ ...(settings ?? DEFAULT_DAY), electionDate }) };
}
