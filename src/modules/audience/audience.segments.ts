import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { TERRITORY_AND_DESCENDANTS } from '../territories';

export const CHANNELS = ['whatsapp', 'email'] as const;
export type Channel = (typeof CHANNELS)[number];

const interest = z.string().trim().toLowerCase().min(1).max(60);

/** Who a mass message goes to; every condition given must hold. */
export const segmentSchema = z
  .object({
    interestsAny: z.array(interest).min(1).max(50).optional(),
    interestsAll: z.array(interest).min(1).max(50).optional(),
    /** A territory includes everything inside it (a comuna includes its barrios). */
    territoryIds: z.array(z.uuid()).min(1).max(500).optional(),
    qrCampaignIds: z.array(z.uuid()).min(1).max(100).optional(),
    createdFrom: z.iso.datetime({ offset: true }).optional(),
    createdTo: z.iso.datetime({ offset: true }).optional(),
  })
  .refine((segment) => !segment.createdFrom || !segment.createdTo || Date.parse(segment.createdFrom) <= Date.parse(segment.createdTo), {
    message: 'createdFrom must not be after createdTo',
    path: ['createdTo'],
  })
  .meta({ id: 'Segment' });

export type Segment = z.infer<typeof segmentSchema>;

export interface SegmentMember {
  id: string;
  name: string;
  phone: string | null;
  email: string | null;
}

interface SqlFragment {
  sql: string;
  params: unknown[];
}

/**
 * The WHERE clause of a segment over `contacts c`. Parameters are bound with `?`; arrays go in as
 * `array[?]` because MikroORM expands an array parameter into a list.
 */
function segmentWhere(segment: Segment, channel: Channel): SqlFragment {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (channel === 'whatsapp') {
    clauses.push('c.phone is not null', 'c.whatsapp_opt_in', 'c.whatsapp_opted_out_at is null');
  } else {
    clauses.push('c.email is not null', 'c.email_opt_in', 'c.email_opted_out_at is null');
  }
  if (segment.interestsAny) {
    clauses.push('c.interests && array[?]::text[]');
    params.push(segment.interestsAny);
  }
  if (segment.interestsAll) {
    clauses.push('c.interests @> array[?]::text[]');
    params.push(segment.interestsAll);
  }
  if (segment.territoryIds) {
    clauses.push(`c.territory_id in (${TERRITORY_AND_DESCENDANTS})`);
    params.push(segment.territoryIds);
  }
  if (segment.qrCampaignIds) {
    clauses.push(`exists (select 1 from contact_origins o where o.contact_id = c.id and o.kind = 'qr_campaign' and o.ref_id = any(array[?]::uuid[]))`);
    params.push(segment.qrCampaignIds);
  }
  if (segment.createdFrom) {
    clauses.push('c.created_at >= ?');
    params.push(new Date(segment.createdFrom));
  }
  if (segment.createdTo) {
    clauses.push('c.created_at <= ?');
    params.push(new Date(segment.createdTo));
  }
  return { sql: clauses.join(' and '), params };
}

/**
 * Email has no identity constraint (two contacts may share an inbox), so each address counts
 * once: the oldest contact holding it represents it.
 */
function dedupe(channel: Channel, where: SqlFragment): SqlFragment {
  if (channel === 'whatsapp') return { sql: `select c.id, c.name, c.phone, c.email from contacts c where ${where.sql}`, params: where.params };
  return {
    sql: `select distinct on (lower(c.email)) c.id, c.name, c.phone, c.email from contacts c where ${where.sql} order by lower(c.email), c.id`,
    params: where.params,
  };
}

/**
 * The segment's members as SQL (`select id, name, phone, email ...`, `?` parameters), for a
 * module that writes its send list set-based (`insert ... select ... from (<sql>) m`) rather
 * than streaming members through the process.
 */
export function segmentMembersSql(segment: Segment, channel: Channel): { sql: string; params: unknown[] } {
  return dedupe(channel, segmentWhere(segment, channel));
}

/** How many distinct people a segment reaches on a channel (consent and opt-outs applied). */
export async function countSegment(em: EntityManager, segment: Segment, channel: Channel): Promise<number> {
  const members = segmentMembersSql(segment, channel);
  const rows = await em.execute<{ n: number }[]>(`select count(*)::int as n from (${members.sql}) m`, members.params);
  return rows[0]?.n ?? 0;
}

/**
 * The segment's members in id order, a batch at a time, so a campaign of 100k recipients never
 * sits in memory at once. Consent is read at the moment each batch is fetched.
 */
export async function* segmentBatches(em: EntityManager, segment: Segment, channel: Channel, batchSize = 1000): AsyncGenerator<SegmentMember[]> {
  const members = dedupe(channel, segmentWhere(segment, channel));
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const batch = await em.execute<SegmentMember[]>(
      `select * from (${members.sql}) m where m.id > ? order by m.id limit ?`,
      [...members.params, after, batchSize],
    );
    if (batch.length === 0) return;
    yield batch;
    after = batch[batch.length - 1]!.id;
    if (batch.length < batchSize) return;
  }
}
