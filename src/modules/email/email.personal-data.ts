import { createHash } from 'node:crypto';
import type { InferKyselyDB } from '@mikro-orm/sql';
import type { PersonalDataHolder } from '../../kernel/module';
import { sql, tables, type Queries, type Sql } from '../../kernel/sql';
import { audienceContacts } from '../audience';
import type { EmailCampaignSchema, EmailEventSchema, EmailNoticeSchema, EmailRecipientSchema, EmailSuppressionSchema } from './email.entities';
import { outboxArea, outboxName } from './providers/mailer';

type EmailTables = InferKyselyDB<typeof EmailCampaignSchema | typeof EmailRecipientSchema | typeof EmailEventSchema | typeof EmailSuppressionSchema | typeof EmailNoticeSchema>;
const db = tables<EmailTables>();

/**
 * The form a suppressed address takes once its owner's data is erased: a hash of the lower-cased
 * address, so the address is gone but a check that hashes an address before mailing it still
 * finds it suppressed.
 */
export function erasedSuppressionKey(address: string): string {
  return `sha256:${createHash('sha256').update(address.toLowerCase()).digest('hex')}`;
}

/** `erasedSuppressionKey` of an address column or value, inside a statement. */
function erasedSuppressionKeySql(address: Sql<unknown>): Sql<never> {
  return sql`'sha256:' || encode(sha256(convert_to(lower(${address}), 'UTF8')), 'hex')`;
}

/** Whether an address is suppressed, in the clear or (its owner erased) by its hash. */
export function suppressed(address: Sql<unknown>): Sql<never> {
  return sql`exists (select 1 from email_suppressions s where s.email in (lower(${address}), ${erasedSuppressionKeySql(address)}))`;
}

/** Every address the person was mailed at, and the one they have now, lower-cased. */
async function addressesOf(q: Queries, personId: string): Promise<string[]> {
  const rows = await q.rows(sql<{ email: string }>`
    select lower(email) as email from email_recipients where contact_id = ${personId}
    union select lower(email) from email_notices where contact_id = ${personId}
    union select lower(c.email) from ${audienceContacts()} c where c.id = ${personId} and c.email is not null`);
  return rows.map((row) => row.email);
}

/**
 * A person's place on campaigns' send lists, what they did with each message (opens, clicks,
 * unsubscribes), the notices mailed to them alone (a reminder, an answer) and their addresses'
 * bounces. Erasure keeps every recipient row with its status
 * and every event (campaign statistics and the dashboard count them) but not the address or the
 * SMTP error (which may quote it), nor a notice's subject and text; a message still waiting to go
 * is skipped; a suppressed address
 * becomes its hash, so it stays suppressed and counted. Messages the outbox kept as files (no
 * SMTP_URL) are deleted once the erasure has committed.
 *
 * A merge moves the other record's places on send lists and its notices to the survivor: a
 * campaign's list is unique by address, not by contact, so nothing collides, and each row keeps
 * the address it was sent to.
 */
export const emailPersonalData: PersonalDataHolder = {
  // Notices to other people that write the person's identifiers (a PQRS answer to a neighbour); the
  // person's own notices are cleared by `erase`.
  freeText: [
    { table: 'email_notices', column: 'subject', kind: 'noticeSubjects', record: 'contact_id' },
    { table: 'email_notices', column: 'text', kind: 'noticeTexts', record: 'contact_id' },
    { table: 'email_notices', column: 'html', kind: 'noticeHtml', record: 'contact_id' },
  ],
  /** Every address the person was mailed at: an older one may still key their bounce. */
  async keys(q, personId) {
    return { emails: await addressesOf(q, personId) };
  },

  async export(q, personId) {
    const recipients = await q.rows(
      db
        .selectFrom('email_recipients as r')
        .innerJoin('email_campaigns as k', 'k.id', 'r.campaign_id')
        .select(['r.campaign_id', 'k.name as campaign_name', 'r.email', 'r.phase', 'r.status', 'r.attempts', 'r.sent_at', 'r.last_error'])
        .where('r.contact_id', '=', personId)
        .orderBy('r.id'),
    );
    const events = await q.rows(
      db
        .selectFrom('email_events as e')
        .innerJoin('email_recipients as r', 'r.id', 'e.recipient_id')
        .select(['e.campaign_id', 'e.kind', 'e.link_index', 'e.machine', 'e.at'])
        .where('r.contact_id', '=', personId)
        .orderBy('e.at')
        .orderBy('e.id'),
    );
    const addresses = await addressesOf(q, personId);
    const suppressions = addresses.length
      ? await q.rows(db.selectFrom('email_suppressions').select(['email', 'reason', 'campaign_id', 'detail', 'created_at']).where('email', 'in', addresses).orderBy('created_at'))
      : [];
    const notices = await q.rows(
      db
        .selectFrom('email_notices')
        .select(['id', 'email', 'subject', 'text', 'html', 'status', 'attempts', 'sent_at', 'last_error', 'created_at'])
        .where('contact_id', '=', personId)
        .orderBy('id'),
    );
    return {
      notices: notices.map((notice) => ({
        id: String(notice.id),
        email: notice.email,
        subject: notice.subject,
        text: notice.text,
        html: notice.html,
        status: notice.status,
        attempts: notice.attempts,
        sentAt: notice.sent_at,
        lastError: notice.last_error,
        createdAt: notice.created_at,
      })),
      recipients: recipients.map((recipient) => ({
        campaignId: recipient.campaign_id,
        campaignName: recipient.campaign_name,
        email: recipient.email,
        phase: recipient.phase,
        status: recipient.status,
        attempts: recipient.attempts,
        sentAt: recipient.sent_at,
        lastError: recipient.last_error,
      })),
      events: events.map((event) => ({ campaignId: event.campaign_id, kind: event.kind, linkIndex: event.link_index, machine: event.machine, at: event.at })),
      suppressions: suppressions.map((row) => ({ email: row.email, reason: row.reason, campaignId: row.campaign_id, detail: row.detail, createdAt: row.created_at })),
    };
  },

  async erase(q, personId, erasure) {
    const addresses = await addressesOf(q, personId);
    // Without SMTP_URL each message sent is kept as a file in the outbox, named by its Message-ID.
    const sent = await q.rows(sql<{ message_id: string }>`
      select message_id from email_recipients where contact_id = ${personId}::uuid and message_id is not null
      union select message_id from email_notices where contact_id = ${personId}::uuid and message_id is not null`);
    if (sent.length) {
      erasure.afterCommit(async (deps) => {
        for (const { message_id: messageId } of sent) await outboxArea(deps.files).remove(outboxName(messageId));
      });
    }
    const unsent = await q.write(db.updateTable('email_recipients').set({ status: 'skipped' }).where('contact_id', '=', personId).where('status', 'in', ['held', 'queued']));
    // The address must stay unique within a campaign's list: each row gets its own stand-in.
    const recipients = await q.write(sql`update email_recipients set email = 'erased:' || id, last_error = null where contact_id = ${personId}`);
    // A hash already present (the address was erased once before) makes the plain row a duplicate.
    const suppressions = await q.write(sql`
      with keys as (select * from unnest(${addresses}::text[], ${addresses.map(erasedSuppressionKey)}::text[]) as k(email, hashed)),
      duplicates as (
        delete from email_suppressions s using keys k
        where s.email = k.email and exists (select 1 from email_suppressions h where h.email = k.hashed)
        returning 1
      )
      update email_suppressions s set email = k.hashed, detail = null from keys k
      where s.email = k.email and not exists (select 1 from email_suppressions h where h.email = k.hashed)`);
    const unsentNotices = await q.write(db.updateTable('email_notices').set({ status: 'skipped' }).where('contact_id', '=', personId).where('status', '=', 'queued'));
    const notices = await q.write(
      sql`update email_notices set email = 'erased:' || id, subject = '', text = '', html = null, last_error = null where contact_id = ${personId}::uuid`,
    );
    return {
      recipients: recipients.count,
      unsentSkipped: unsent.count + unsentNotices.count,
      notices: notices.count,
      suppressionsHashed: suppressions.count,
    };
  },

  async merge(q, fromId, intoId) {
    const recipients = await q.write(sql<{ id: string }>`update email_recipients set contact_id = ${intoId}::uuid where contact_id = ${fromId}::uuid returning id::text`);
    const notices = await q.write(sql<{ id: string }>`update email_notices set contact_id = ${intoId}::uuid where contact_id = ${fromId}::uuid returning id::text`);
    return { moved: { email_recipients: recipients.rows.map((row) => row.id), email_notices: notices.rows.map((row) => row.id) } };
  },

  async unmerge(q, moves, fromId, intoId) {
    const recipients = moves.moved.email_recipients ?? [];
    const notices = moves.moved.email_notices ?? [];
    if (recipients.length) await q.write(sql`update email_recipients set contact_id = ${fromId}::uuid where id = any(${recipients}::bigint[]) and contact_id = ${intoId}::uuid`);
    if (notices.length) await q.write(sql`update email_notices set contact_id = ${fromId}::uuid where id = any(${notices}::bigint[]) and contact_id = ${intoId}::uuid`);
  },
};
