import { sql, type Queries, type Sql } from '../../kernel/sql';
import { segmentMembers, type Segment } from '../audience';
import { suppressed } from './email.personal-data';

/**
 * Who an email campaign reaches: the audience module's segment on the email channel (opt-in,
 * not unsubscribed, one contact per address) minus addresses that hard-bounced before (kept
 * hashed once their owner's data was erased).
 */
export function reachable(segment: Segment): Sql<{ id: string; name: string; email: string }> {
  return sql`select m.id, m.name, lower(m.email) as email from (${segmentMembers(segment, 'email')}) m
             where not ${suppressed(sql`m.email`)}`;
}

export async function countReachable(q: Queries, segment: Segment): Promise<number> {
  const row = await q.first(sql<{ n: number }>`select count(*)::int as n from (${reachable(segment)}) r`);
  return row?.n ?? 0;
}

/**
 * Writes the send list in one statement. The order of recipients is md5(campaign id ‖ contact
 * id): random-looking, but the same on every run, so a retried statement assigns the same split.
 * With an A/B test each of the k variants gets `per` recipients, per = ⌊N·p/100/k⌋ (at least 1);
 * the rest is `held` until the winner is known. Without a test everyone gets the first variant.
 */
export async function writeSendList(q: Queries, campaignId: string, segment: Segment, variants: number, testPercent: number): Promise<number> {
  const row = await q.first(sql<{ n: number }>`
    with params as (select ${campaignId}::uuid as campaign_id, ${variants}::int as k, ${testPercent}::numeric as p),
    members as (
      select r.id as contact_id, r.email,
             row_number() over (order by md5(params.campaign_id::text || r.id::text)) as rn,
             count(*) over () as total
      from (${reachable(segment)}) r, params
    ),
    sized as (
      select mb.*, params.k, params.p, params.campaign_id,
             case when params.p = 0 then 0
                  else least(mb.total / params.k, greatest(1, floor(mb.total * params.p / 100 / params.k)))::int end as per
      from members mb, params
    ),
    inserted as (
      insert into email_recipients (campaign_id, contact_id, email, variant_id, phase, status, attempts)
      select s.campaign_id, s.contact_id, s.email,
             case when s.p = 0 then v0.id when s.rn <= s.per * s.k then vt.id end,
             case when s.p = 0 then 'main' when s.rn <= s.per * s.k then 'test' else 'rest' end,
             case when s.p = 0 or s.rn <= s.per * s.k then 'queued' else 'held' end,
             0
      from sized s
      join email_variants v0 on v0.campaign_id = s.campaign_id and v0.position = 0
      left join email_variants vt on vt.campaign_id = s.campaign_id and vt.position = (s.rn - 1) % s.k
      returning 1
    )
    select count(*)::int as n from inserted`);
  return row?.n ?? 0;
}
