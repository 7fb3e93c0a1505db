import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { sql, tables, type BatchColumnType, type Queries } from '../../kernel/sql';
import { jsonText, snakeRow } from '../../kernel/rows';
import type { NewCampaign, VariantRecord } from './email.campaigns.repository';
import type { EmailCampaignSchema, EmailRecipientSchema, EmailVariantSchema } from './email.entities';

type EmailTables = InferKyselyDB<typeof EmailCampaignSchema | typeof EmailVariantSchema | typeof EmailRecipientSchema>;
const db = tables<EmailTables>();

export interface TrackingEvent {
  recipientId: string;
  kind: string;
  linkIndex: number | null;
  machine: boolean;
}

/**
 * One multi-row insert for a batch of opens and clicks, stamped with the insert's time. An open
 * within `machineOpenSeconds` of the send is a mail scanner's, not a person's.
 */
export async function insertTrackingEvents(db: Queries, events: TrackingEvent[], machineOpenSeconds: number): Promise<void> {
  const column = (type: BatchColumnType, pick: (event: TrackingEvent) => unknown) => sql.batch(events.map(pick), type);
  await db.write(
    sql`insert into email_events (campaign_id, variant_id, recipient_id, kind, link_index, machine, at)
        select r.campaign_id, r.variant_id, r.id, e.kind, e.link_index,
               e.machine or (e.kind = 'open' and r.sent_at is not null and now() < r.sent_at + make_interval(secs => ${machineOpenSeconds})),
               now()
        from unnest(${column('bigint', (event) => event.recipientId)}, ${column('text', (event) => event.kind)},
                    ${column('int', (event) => event.linkIndex)}, ${column('boolean', (event) => event.machine)})
          as e(recipient_id, kind, link_index, machine)
        join email_recipients r on r.id = e.recipient_id`.prepared('email_insert_events'),
  );
}

/** The URL at that position of the message the recipient was sent, if any. */
export async function clickTarget(db: Queries, recipientId: string, linkIndex: number): Promise<string | undefined> {
  const row = await db.first(
    sql<{ url: string | null }>`
      select t.links->>(${linkIndex}::int) as url from email_recipients r
      join email_variants v on v.id = r.variant_id join email_templates t on t.id = v.template_id
      where r.id = ${recipientId}`.prepared('email_click_target'),
  );
  return row?.url ?? undefined;
}

/** A recipient as the tracking links find it; the bigint key as pg gives it (text), which the builder's types would call a number. */
export type RecipientRow = Pick<Selectable<EmailTables['email_recipients']>, 'campaign_id' | 'variant_id' | 'email'> & { id: string };

/** The recipient, locked for the rest of the transaction. */
export function lockRecipient(q: Queries, recipientId: string): Promise<RecipientRow | undefined> {
  return q.first(sql<RecipientRow>`select id, campaign_id, variant_id, email from email_recipients where id = ${recipientId} for update`);
}

/** A recipient's unsubscribe counts once in the campaign's statistics, however often the link is used. */
export async function recordUnsubscribeEvent(q: Queries, recipient: RecipientRow): Promise<void> {
  await q.write(sql`
    insert into email_events (campaign_id, variant_id, recipient_id, kind, machine, at)
    select ${recipient.campaign_id}, ${recipient.variant_id}, ${recipient.id}, 'unsubscribe', false, now()
    where not exists (select 1 from email_events where recipient_id = ${recipient.id} and kind = 'unsubscribe')`);
}

/** The campaign turns `sending` from one of `from`; nothing comes back otherwise. */
export function markSending(q: Queries, campaignId: string, from: readonly ('draft' | 'scheduled')[]) {
  return q.first(
    db
      .updateTable('email_campaigns as c')
      .set((eb) => ({
        status: 'sending',
        started_at: eb.fn<Date>('now', []),
        updated_at: eb.fn<Date>('now', []),
        ab_phase: eb
          .case()
          .when('c.ab_test', 'is', null)
          .then('none' as const)
          .else('testing' as const)
          .end(),
      }))
      .where('c.id', '=', campaignId)
      .where('c.status', 'in', from)
      .returning((eb) => [
        'c.segment',
        'c.ab_test',
        eb
          .selectFrom('email_variants as v')
          .select((inner) => inner.cast<number>(inner.fn.countAll(), 'integer').as('n'))
          .whereRef('v.campaign_id', '=', 'c.id')
          .$asScalar()
          .$notNull()
          .as('variants'),
      ]),
  );
}

export async function campaignExists(q: Queries, campaignId: string): Promise<boolean> {
  return (await q.first(db.selectFrom('email_campaigns').select('id').where('id', '=', campaignId))) !== undefined;
}

export async function setAudienceSize(q: Queries, campaignId: string, size: number): Promise<void> {
  await q.write(db.updateTable('email_campaigns').set({ audience_size: size }).where('id', '=', campaignId));
}

/** What rewriting a campaign sets; its status follows from `scheduledAt`. */
export type CampaignChanges = Omit<NewCampaign, 'status'>;

/**
 * Rewrites a campaign that has not started (draft or scheduled) and its variants, in the caller's
 * transaction: a conditional update, so a campaign that started meanwhile is left alone (undefined).
 * Nothing refers to a draft's variants yet (the send list is written at the start), so they are replaced.
 */
export async function rewriteUnstartedCampaign(
  q: Queries,
  campaignId: string,
  changes: CampaignChanges,
  variants: readonly Pick<VariantRecord, 'id' | 'name' | 'subject' | 'templateId'>[],
): Promise<boolean> {
  const { count } = await q.write(
    db
      .updateTable('email_campaigns')
      .set((eb) => ({
        ...snakeRow(changes),
        segment: jsonText(changes.segment),
        ab_test: changes.abTest === null ? null : jsonText(changes.abTest),
        status: changes.scheduledAt === null ? 'draft' : 'scheduled',
        updated_at: eb.fn<Date>('now', []),
      }))
      .where('id', '=', campaignId)
      .where('status', 'in', ['draft', 'scheduled']),
  );
  if (count === 0) return false;
  await q.write(db.deleteFrom('email_variants').where('campaign_id', '=', campaignId));
  await q.write(sql`
    insert into email_variants (id, campaign_id, position, name, subject, template_id)
    select v.id, ${campaignId}::uuid, v.position - 1, v.name, v.subject, v.template_id
    from unnest(${variants.map((variant) => variant.id)}::uuid[], ${variants.map((variant) => variant.name)}::text[],
                ${variants.map((variant) => variant.subject)}::text[], ${variants.map((variant) => variant.templateId)}::uuid[])
         with ordinality as v(id, name, subject, template_id, position)`);
  return true;
}
