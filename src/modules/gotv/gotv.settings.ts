import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { AppDeps } from '../../kernel/context';
import { ConflictError } from '../../kernel/errors';
import { buildCurve, curveSettingsSchema, DEFAULT_CLOSES_AT, DEFAULT_OPENS_AT, instantAt, localClock, type TurnoutCurve } from './gotv.curve';
import { GotvSettingsSchema } from './gotv.entities';

export const settingsBody = z.object({ electionDate: z.iso.date() }).and(curveSettingsSchema);

export const settingsView = z
  .object({
    electionDate: z.iso.date().nullable(),
    opensAt: z.string(),
    closesAt: z.string(),
    turnoutCurve: z
      .array(z.object({ time: z.string(), fraction: z.number() }))
      .nullable()
      .describe('null: the documented default curve'),
  })
  .meta({ id: 'GotvSettings' });

export type SettingsInput = z.infer<typeof settingsBody>;

const SINGLE_ROW = 1;

export async function getSettings(em: EntityManager): Promise<z.input<typeof settingsView>> {
  const row = await em.findOne(GotvSettingsSchema, { id: SINGLE_ROW });
  return {
    electionDate: row?.electionDate ?? null,
    opensAt: row?.opensAt ?? DEFAULT_OPENS_AT,
    closesAt: row?.closesAt ?? DEFAULT_CLOSES_AT,
    turnoutCurve: row?.turnoutCurve ?? null,
  };
}

type SettingsDeps = Pick<AppDeps, 'caches' | 'orm'>;

/** The election date, read on every voter report: cached, and dropped in every process when the settings change. */
const electionDates = (deps: SettingsDeps) => deps.caches.named<string | null>('gotv-election-date', async () => (await getSettings(deps.orm.em.fork())).electionDate, 30_000);

export const electionDateOf = (deps: SettingsDeps): Promise<string | null> => electionDates(deps).get('current');

/**
 * Where the live figures (a station's last count, the hourly curve) start: today's local midnight,
 * so that a rehearsal's counts are gone on election morning; once election day has passed, its
 * midnight, so that the day's results stay on the map.
 */
export function liveDayStart(now: Date, timeZone: string, electionDate: string | null): Date {
  const today = localClock(now, timeZone).date;
  return instantAt(electionDate !== null && electionDate < today ? electionDate : today, 0, timeZone);
}

export async function putSettings(deps: SettingsDeps, em: EntityManager, input: SettingsInput) {
  await em.upsert(GotvSettingsSchema, {
    id: SINGLE_ROW,
    electionDate: input.electionDate,
    opensAt: input.opensAt,
    closesAt: input.closesAt,
    turnoutCurve: input.turnoutCurve ?? null,
    updatedAt: new Date(),
  });
  await electionDates(deps).invalidate('current');
  return getSettings(em);
}

/** The election date and curve the projection needs; 409 until a manager has set the date. */
export async function electionDay(em: EntityManager): Promise<{ electionDate: string; curve: TurnoutCurve }> {
  const settings = await getSettings(em);
  if (!settings.electionDate) {
    throw new ConflictError('Set the election date first (PUT /api/gotv/settings).', 'election_date_not_set');
  }
  const curve = buildCurve({ opensAt: settings.opensAt, closesAt: settings.closesAt, ...(settings.turnoutCurve ? { turnoutCurve: settings.turnoutCurve } : {}) });
  return { electionDate: settings.electionDate, curve };
}
