import type { Queries } from '../../kernel/sql';
import { allCompetitors } from '../social';
import { DEFAULT_AVERAGE_OPTIONS, pollAverage } from './popularity.average';
import { pollInputs } from './popularity.dashboard';
import { pollsBetween } from './popularity.repository';

/**
 * Our candidate's poll average (the same weighting as the popularity dashboard) as of each instant,
 * null where no poll in the window names us or no competitor is marked as ours. One read of the
 * polls for the whole series; the averages are computed in memory.
 */
export async function ownPollAverageAt(q: Queries, instants: readonly Date[], territoryId?: string): Promise<(number | null)[]> {
  if (instants.length === 0) return [];
  const ours = (await allCompetitors(q, { activeOnly: true })).find((competitor) => competitor.isOwn);
  if (!ours) return instants.map(() => null);
  const first = Math.min(...instants.map((at) => at.getTime()));
  const last = Math.max(...instants.map((at) => at.getTime()));
  const since = new Date(first - (DEFAULT_AVERAGE_OPTIONS.windowDays + 30) * 86_400_000).toISOString().slice(0, 10);
  const polls = await pollsBetween(q, since, new Date(last).toISOString().slice(0, 10), territoryId ? { territoryId } : {});
  if (polls.length === 0) return instants.map(() => null);
  const inputs = pollInputs(polls);
  return instants.map((asOf) => {
    const row = pollAverage(inputs, { ...DEFAULT_AVERAGE_OPTIONS, asOf }).averages.find((average) => average.competitorId === ours.id);
    return row ? Math.round(row.average * 10) / 10 : null;
  });
}
