import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { camelRow } from '../../kernel/rows';
import { tables, type Queries } from '../../kernel/sql';
import { AlertSchema } from './social.entities';

type AlertTables = InferKyselyDB<typeof AlertSchema>;
const db = tables<AlertTables>();

const latestColumns = ['id', 'kind', 'severity', 'title', 'state', 'competitor_id', 'created_at'] as const;

const latestOf = (row: Pick<Selectable<AlertTables['social_alerts']>, (typeof latestColumns)[number]>) => camelRow(row);

export type LatestAlert = ReturnType<typeof latestOf>;

/** The newest alerts not dismissed, newest first (the (created_at, id) index serves it). */
export async function latestAlerts(q: Queries, limit: number): Promise<LatestAlert[]> {
  const rows = await q.rows(
    db.selectFrom('social_alerts').select(latestColumns).where('state', '<>', 'dismissed').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit),
  );
  return rows.map(latestOf);
}
