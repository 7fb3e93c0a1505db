import { sql, type Queries } from '../../kernel/sql';

export interface LatestAlert {
  id: string;
  kind: string;
  severity: string;
  title: string;
  state: string;
  competitorId: string | null;
  createdAt: Date;
}

/** The newest alerts not dismissed, newest first (the (created_at, id) index serves it). */
export function latestAlerts(q: Queries, limit: number): Promise<LatestAlert[]> {
  return q.rows<LatestAlert>(sql`
    select id, kind, severity, title, state, competitor_id as "competitorId", created_at as "createdAt"
    from social_alerts where state <> 'dismissed' order by created_at desc, id desc limit ${limit}::int`);
}
