import { sql, type Queries } from '../../kernel/sql';

export interface EventPoint {
  id: string;
  title: string;
  type: string;
  startsAt: Date;
  territoryId: string | null;
  lat: number;
  lng: number;
  going: number;
}

/** Scheduled events starting in [from, to) that have a place on the map, with how many said going. */
export function eventPoints(q: Queries, from: Date, to: Date): Promise<EventPoint[]> {
  return q.rows<EventPoint>(sql`
    select e.id, e.title, e.type, e.starts_at as "startsAt", e.territory_id as "territoryId", e.latitude as lat, e.longitude as lng,
      (select count(*) from agenda_rsvps r where r.event_id = e.id and r.status = 'going')::int as going
    from agenda_events e
    where e.status = 'scheduled' and e.latitude is not null and e.starts_at >= ${from}::timestamptz and e.starts_at < ${to}::timestamptz
    order by e.starts_at, e.id limit 5000`);
}
