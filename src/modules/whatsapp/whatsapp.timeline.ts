import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import type { PersonTimelineHolder, TimelineEntry } from '../../kernel/module';
import { sql } from '../../kernel/sql';
import type { WaMessageSchema } from './whatsapp.entities';

/** A message's own columns, when it counts on the page, and the names of its campaign and template. */
type MessageRow = Pick<Selectable<InferKyselyDB<typeof WaMessageSchema>['wa_messages']>, 'id' | 'direction' | 'kind' | 'status' | 'body'> & {
  at: Date;
  campaign_name: string | null;
  template_name: string | null;
};

/** What the page shows of a message's text: enough to recognise it. */
const PREVIEW = 280;

function titleOf(message: MessageRow): string {
  if (message.direction === 'in') return 'Mensaje de WhatsApp recibido';
  if (message.campaign_name) return `WhatsApp de la campaña: ${message.campaign_name}`;
  return message.template_name ? 'Aviso por WhatsApp' : 'WhatsApp enviado por el equipo';
}

/**
 * A person's WhatsApp messages on their page, in and out: when (the provider's acceptance for one
 * sent, arrival for one received), from which campaign or template, how it went, and the start of
 * its text.
 */
export const whatsappTimeline: PersonTimelineHolder = {
  async items(q, { contactId, before, limit }) {
    const at = sql`coalesce(m.accepted_at, m.created_at)`;
    const rows = await q.rows(sql<MessageRow>`
      select m.id, m.direction, m.kind, m.status, m.body, ${at} as at, k.name as campaign_name, t.name as template_name
      from wa_messages m left join wa_campaigns k on k.id = m.campaign_id left join wa_templates t on t.id = m.template_id
      where m.contact_id = ${contactId}::uuid ${before ? sql`and ${at} < ${before}` : sql``}
      order by ${at} desc, m.id desc limit ${limit}`);
    return rows.map((message): TimelineEntry => ({
      at: message.at,
      kind: message.direction === 'in' ? 'message_in' : 'message_out',
      title: titleOf(message),
      refId: message.id,
      detail: {
        direction: message.direction,
        messageKind: message.kind,
        status: message.status,
        campaignName: message.campaign_name,
        templateName: message.template_name,
        text: message.body === null ? null : message.body.slice(0, PREVIEW),
      },
    }));
  },
};
