import type { z } from 'zod';
import type { AppDeps } from '../../kernel/context';
import { calendarDate } from '../../kernel/schemas';
import type { Queries } from '../../kernel/sql';
import { readCampaignSettings, saveElectionDate } from './campaign.repository';
import type { CampaignSettingsInput, campaignSettingsView } from './campaign.schemas';

type Deps = Pick<AppDeps, 'caches' | 'db'>;

/** A stored date the API would refuse today (saved before the range was enforced) counts as not set: the screens ask for it again rather than fail. */
const usableDate = (stored: string | null): string | null => (stored && calendarDate.safeParse(stored).success ? stored : null);

/** The election date as stored, read inside the caller's transaction when it has one. */
export async function readElectionDate(q: Queries): Promise<string | null> {
  return usableDate((await readCampaignSettings(q)).electionDate);
}

/** The election date, read on every voter report: cached, and dropped in every process when it changes. */
const electionDates = (deps: Deps) => deps.caches.named<string | null>('campaign-election-date', async () => readElectionDate(deps.db), 30_000);

export const electionDateOf = (deps: Deps): Promise<string | null> => electionDates(deps).get('current');

/** Sets the election date, the one every module counts to; in the caller's transaction when it is part of a larger change (then `electionDateChanged` once written). */
export async function setElectionDate(q: Queries, electionDate: string | null): Promise<void> {
  await saveElectionDate(q, electionDate, new Date());
}

/** After a write that changed the date: every process reads it again. */
export const electionDateChanged = (deps: Deps): Promise<void> => electionDates(deps).invalidate('current');

export async function getCampaignSettings(q: Queries): Promise<z.input<typeof campaignSettingsView>> {
  const settings = await readCampaignSettings(q);
  return { electionDate: usableDate(settings.electionDate), updatedAt: settings.updatedAt.toISOString() };
}

export async function putCampaignSettings(deps: Deps, input: CampaignSettingsInput) {
  await setElectionDate(deps.db, input.electionDate);
  await electionDateChanged(deps);
  return getCampaignSettings(deps.db);
}
