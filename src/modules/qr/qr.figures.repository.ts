import { sql, type Queries, type Sql } from '../../kernel/sql';
import { territoryAndDescendants } from '../territories';
import type { CodeRecord } from './qr.repository';

/** A count per local day ('YYYY-MM-DD' in the campaign's zone); days without any are absent. */
export interface DayCount {
  day: string;
  count: number;
}

/** A count per territory (the row's own territory, not rolled up); rows without a territory are absent. */
export interface TerritoryCount {
  territoryId: string;
  count: number;
}

const within = (column: Sql, territoryIds: readonly string[] | undefined): Sql => (territoryIds?.length ? sql`and ${column} in (${territoryAndDescendants(territoryIds)})` : sql``);

/** Where a lead counts: the territory the person gave, else the poster code's where they scanned it. */
const leadTerritory = sql`coalesce(l.territory_id, c.territory_id)`;

/** Leads first captured per local day in [since, until), optionally inside territories (and their descendants). */
export function leadsByDay(q: Queries, since: Date, until: Date, timeZone: string, territoryIds?: readonly string[]): Promise<DayCount[]> {
  return q.rows<DayCount>(sql`
    select (l.created_at at time zone ${timeZone}::text)::date::text as day, count(*)::int as count
    from qr_leads l ${territoryIds?.length ? sql`join qr_codes c on c.id = l.code_id` : sql``}
    where l.created_at >= ${since}::timestamptz and l.created_at < ${until}::timestamptz ${within(leadTerritory, territoryIds)}
    group by 1`);
}

/** Human (non-bot) scans per local day in [since, until); the territory is the poster code's. */
export function scansByDay(q: Queries, since: Date, until: Date, timeZone: string, territoryIds?: readonly string[]): Promise<DayCount[]> {
  return q.rows<DayCount>(sql`
    select (s.scanned_at at time zone ${timeZone}::text)::date::text as day, count(*)::int as count
    from qr_scans s ${territoryIds?.length ? sql`join qr_codes c on c.id = s.code_id` : sql``}
    where not s.is_bot and s.scanned_at >= ${since}::timestamptz and s.scanned_at < ${until}::timestamptz ${within(sql`c.territory_id`, territoryIds)}
    group by 1`);
}

/** Every lead captured, by the territory the person gave, else the poster code's. */
export function leadsByTerritory(q: Queries): Promise<TerritoryCount[]> {
  return q.rows<TerritoryCount>(sql`
    select ${leadTerritory} as "territoryId", count(*)::int as count from qr_leads l join qr_codes c on c.id = l.code_id
    where ${leadTerritory} is not null group by 1`);
}

/** Every human scan, by the territory of the poster code scanned. */
export function scansByTerritory(q: Queries): Promise<TerritoryCount[]> {
  return q.rows<TerritoryCount>(sql`
    select c.territory_id as "territoryId", count(*)::int as count from qr_scans s join qr_codes c on c.id = s.code_id
    where not s.is_bot and c.territory_id is not null group by 1`);
}

/** A poster code placed at a known spot (so its coordinates are numbers), with its human scans and leads. */
export type PosterCodePoint = Pick<CodeRecord, 'id' | 'code' | 'label' | 'campaignId' | 'territoryId'> & {
  lat: number;
  lng: number;
  removed: boolean;
  scans: number;
  leads: number;
};

/** Poster codes placed at a known spot, with their human scans and leads. */
export function posterCodePoints(q: Queries): Promise<PosterCodePoint[]> {
  return q.rows<PosterCodePoint>(sql`
    select c.id, c.code, c.label, c.campaign_id as "campaignId", c.territory_id as "territoryId", c.lat, c.lng, c.removed_at is not null as removed,
      coalesce(s.n, 0)::int as scans, coalesce(l.n, 0)::int as leads
    from qr_codes c
    left join (select code_id, count(*) as n from qr_scans where not is_bot group by code_id) s on s.code_id = c.id
    left join (select code_id, count(*) as n from qr_leads group by code_id) l on l.code_id = c.id
    where c.lat is not null and c.lng is not null`);
}
