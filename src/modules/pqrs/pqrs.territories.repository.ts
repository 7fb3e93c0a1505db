import { sql, type Queries } from '../../kernel/sql';
import { OPEN_STATUSES } from './pqrs.entities';

export interface PqrsTerritoryCount {
  territoryId: string;
  /** Every request received there. */
  count: number;
  /** Those still waiting for an answer. */
  open: number;
}

/** Requests by the territory they concern (requests without one are left out), for maps. */
export function pqrsByTerritory(q: Queries): Promise<PqrsTerritoryCount[]> {
  return q.rows<PqrsTerritoryCount>(sql`
    select territory_id as "territoryId", count(*)::int as count, count(*) filter (where status = any(${[...OPEN_STATUSES]}::text[]))::int as open
    from pqrs_requests where territory_id is not null group by 1`);
}
