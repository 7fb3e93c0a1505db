import type { InferKyselyDB } from '@mikro-orm/sql';
import type { PersonalDataHolder } from '../../kernel/module';
import { tables } from '../../kernel/sql';
import type { QrCampaignSchema, QrCodeSchema, QrLeadSchema } from './qr.entities';

type QrTables = InferKyselyDB<typeof QrCampaignSchema | typeof QrCodeSchema | typeof QrLeadSchema>;
const db = tables<QrTables>();

/**
 * A person's leads: the campaigns and posters they answered. Erasure keeps each lead (the
 * campaign's analysis counts it by code, day, interest and territory) and drops the one free
 * text the person typed, their neighbourhood; who they are lives in the audience contact.
 */
export const qrPersonalData: PersonalDataHolder = {
  async export(q, personId) {
    const leads = await q.rows(
      db
        .selectFrom('qr_leads as l')
        .innerJoin('qr_codes as c', 'c.id', 'l.code_id')
        .innerJoin('qr_campaigns as k', 'k.id', 'l.campaign_id')
        .select([
          'l.id',
          'l.campaign_id',
          'k.name as campaign_name',
          'l.code_id',
          'c.label as code_label',
          'l.territory_id',
          'l.neighbourhood',
          'l.interests',
          'l.whatsapp_opt_in',
          'l.email_opt_in',
          'l.submissions',
          'l.created_at',
          'l.updated_at',
        ])
        .where('l.contact_id', '=', personId)
        .orderBy('l.created_at'),
    );
    return {
      leads: leads.map((lead) => ({
        id: lead.id,
        campaignId: lead.campaign_id,
        campaignName: lead.campaign_name,
        codeId: lead.code_id,
        codeLabel: lead.code_label,
        territoryId: lead.territory_id,
        neighbourhood: lead.neighbourhood,
        interests: lead.interests,
        whatsappOptIn: lead.whatsapp_opt_in,
        emailOptIn: lead.email_opt_in,
        submissions: lead.submissions,
        createdAt: lead.created_at,
        updatedAt: lead.updated_at,
      })),
    };
  },

  async erase(q, personId) {
    const leads = await q.write(db.updateTable('qr_leads').set({ neighbourhood: null }).where('contact_id', '=', personId));
    return { leads: leads.count };
  },
};
