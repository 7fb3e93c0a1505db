import type { InferKyselyDB } from '@mikro-orm/sql';
import type { PersonTimelineHolder, TimelineEntry } from '../../kernel/module';
import { sql, tables } from '../../kernel/sql';
import type { QrCampaignSchema, QrCodeSchema, QrLeadSchema } from './qr.entities';

type QrTables = InferKyselyDB<typeof QrCampaignSchema | typeof QrCodeSchema | typeof QrLeadSchema>;
const db = tables<QrTables>();

/**
 * A person's poster captures on their page: when they left their data at a campaign's poster, and
 * when they sent the form again. Leads are found through the person's `qr_campaign` origins (the
 * capture writes both in one statement), so the look-up uses the (campaign, contact) key instead
 * of a contact index the capture path would have to keep up.
 */
export const qrTimeline: PersonTimelineHolder = {
  async items(q, { contactId, origins, before, limit }) {
    const campaigns = origins.filter((origin) => origin.kind === 'qr_campaign').map((origin) => origin.refId);
    if (!campaigns.length) return [];
    let query = db
      .selectFrom('qr_leads as l')
      .innerJoin('qr_campaigns as k', 'k.id', 'l.campaign_id')
      .innerJoin('qr_codes as c', 'c.id', 'l.code_id')
      .select(['l.id', 'l.campaign_id', 'k.name as campaign_name', 'c.label as code_label', 'l.submissions', 'l.created_at', 'l.updated_at'])
      .where('l.campaign_id', 'in', campaigns)
      .where('l.contact_id', '=', contactId);
    if (before) query = query.where('l.created_at', '<', before);
    const leads = await q.rows(query.orderBy('l.created_at', 'desc').limit(limit));
    const items: TimelineEntry[] = [];
    for (const lead of leads) {
      const detail = { campaignId: lead.campaign_id, campaignName: lead.campaign_name, poster: lead.code_label, submissions: lead.submissions };
      items.push({ at: lead.created_at, kind: 'lead_captured', title: `Dejó sus datos en un afiche: ${lead.campaign_name}`, refId: lead.id, detail });
      if (lead.submissions > 1 && lead.updated_at > lead.created_at && (!before || lead.updated_at < before)) {
        items.push({ at: lead.updated_at, kind: 'lead_resubmitted', title: `Volvió a enviar el formulario: ${lead.campaign_name}`, refId: lead.id, detail });
      }
    }
    return items;
  },

  originNames: {
    qr_campaign: (ref) => sql`(select k.name from qr_campaigns k where k.id = ${ref})`,
  },
};
