import type { PersonTimelineHolder, TimelineEntry } from '../../kernel/module';
import { sql, type Sql } from '../../kernel/sql';

interface EmailFact {
  ref: string;
  kind: 'email_sent' | 'email_bounced' | 'email_opened' | 'email_clicked' | 'email_unsubscribed' | 'notice_sent' | 'notice_bounced';
  at: Date;
  campaign_id: string | null;
  campaign_name: string | null;
  subject: string | null;
  link_index: number | null;
}

const TITLES: Record<EmailFact['kind'], (fact: EmailFact) => string> = {
  email_sent: (fact) => `Correo enviado: ${fact.campaign_name}`,
  email_bounced: (fact) => `Correo rebotado: ${fact.campaign_name}`,
  email_opened: (fact) => `Abrió el correo: ${fact.campaign_name}`,
  email_clicked: (fact) => `Hizo clic en el correo: ${fact.campaign_name}`,
  email_unsubscribed: (fact) => `Canceló la suscripción desde el correo: ${fact.campaign_name}`,
  notice_sent: (fact) => `Aviso por correo: ${fact.subject}`,
  notice_bounced: (fact) => `Aviso por correo rebotado: ${fact.subject}`,
};

/**
 * A person's email on their page: campaign messages sent to them or bounced at their address,
 * their opens, clicks and unsubscribes (a privacy proxy's or scanner's fetch is not a person
 * reading, and is left out), and the notices mailed to them alone. A bounce is dated by the
 * suppression it created. Each kind is read newest first with its own limit, then merged.
 */
export const emailTimeline: PersonTimelineHolder = {
  async items(q, { contactId, before, limit }) {
    const until = (column: Sql<never>) => (before ? sql`and ${column} < ${before}` : sql``);
    const bounceAt = sql<never>`coalesce((select s.created_at from email_suppressions s where s.email = lower(r.email)), r.next_attempt_at)`;
    const facts = await q.rows(sql<EmailFact>`
      (select r.id::text as ref, 'email_sent' as kind, r.sent_at as at, r.campaign_id, k.name as campaign_name, null::text as subject, null::int as link_index
        from email_recipients r join email_campaigns k on k.id = r.campaign_id
        where r.contact_id = ${contactId}::uuid and r.sent_at is not null ${until(sql`r.sent_at`)} order by r.sent_at desc limit ${limit})
      union all
      (select r.id::text, 'email_bounced', ${bounceAt}, r.campaign_id, k.name, null, null
        from email_recipients r join email_campaigns k on k.id = r.campaign_id
        where r.contact_id = ${contactId}::uuid and r.status = 'bounced' and ${bounceAt} is not null ${until(bounceAt)} order by 3 desc limit ${limit})
      union all
      (select e.id::text, case e.kind when 'open' then 'email_opened' when 'click' then 'email_clicked' else 'email_unsubscribed' end, e.at, e.campaign_id, k.name, null, e.link_index
        from email_events e join email_recipients r on r.id = e.recipient_id join email_campaigns k on k.id = e.campaign_id
        where r.contact_id = ${contactId}::uuid and not e.machine ${until(sql`e.at`)} order by e.at desc limit ${limit})
      union all
      (select n.id::text, case n.status when 'bounced' then 'notice_bounced' else 'notice_sent' end, coalesce(n.sent_at, n.created_at), null, null, n.subject, null
        from email_notices n
        where n.contact_id = ${contactId}::uuid and n.status in ('sent', 'bounced') ${until(sql`coalesce(n.sent_at, n.created_at)`)}
        order by 3 desc limit ${limit})`);
    return facts.map((fact): TimelineEntry => ({
      at: fact.at,
      kind: fact.kind,
      title: TITLES[fact.kind](fact),
      refId: fact.ref,
      detail: { campaignId: fact.campaign_id, campaignName: fact.campaign_name, subject: fact.subject, ...(fact.link_index === null ? {} : { link: fact.link_index }) },
    }));
  },
};
