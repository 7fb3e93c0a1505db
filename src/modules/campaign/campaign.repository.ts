import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { camelRow } from '../../kernel/rows';
import { tables, type Queries } from '../../kernel/sql';
import { CampaignSettingsSchema } from './campaign.entities';

type CampaignTables = InferKyselyDB<typeof CampaignSettingsSchema>;
const db = tables<CampaignTables>();

const settingsOf = (row: Pick<Selectable<CampaignTables['campaign_settings']>, 'election_date' | 'updated_at'>) => camelRow(row);
export type CampaignSettingsRecord = ReturnType<typeof settingsOf>;

/** The one row the migration inserts. */
export async function readCampaignSettings(q: Queries): Promise<CampaignSettingsRecord> {
  const row = await q.first(db.selectFrom('campaign_settings').select(['election_date', 'updated_at']).where('id', '=', 1));
  if (!row) throw new Error('campaign_settings has no row: its migration inserts it');
  return settingsOf(row);
}

export async function saveElectionDate(q: Queries, electionDate: string | null, at: Date): Promise<void> {
  await q.write(db.updateTable('campaign_settings').set({ election_date: electionDate, updated_at: at }).where('id', '=', 1));
}
