import type { InferKyselyDB } from '@mikro-orm/sql';
import type { JsonValue, PersonalDataHolder } from '../../kernel/module';
import { camelRow } from '../../kernel/rows';
import { sql, tables } from '../../kernel/sql';
import type { QrCampaignSchema, QrCodeSchema, QrLeadSchema } from './qr.entities';

type QrTables = InferKyselyDB<typeof QrCampaignSchema | typeof QrCodeSchema | typeof QrLeadSchema>;
const db = tables<QrTables>();

/** A lead as one JSON value (`to_jsonb(row)`), to put back exactly as it was. */
type LeadRow = { [column: string]: JsonValue };

/**
 * A person's leads: the campaigns and posters they answered. Erasure keeps each lead (the
 * campaign's analysis counts it by code, day, interest and territory) and drops the one free
 * text the person typed, their neighbourhood; who they are lives in the audience contact.
 *
 * A merge moves the other record's leads to the survivor. A campaign both answered has one lead
 * per person, so the two leads become the survivor's one, as a repeat submission would: their
 * submissions add up, interests and opt-ins join, an empty territory or neighbourhood is filled,
 * and the lead keeps the earlier answer's poster and time ("the poster that brought the person
 * first"). The campaign's figures then count the person once, as they would have.
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
    return { leads: leads.map((lead) => camelRow(lead)) };
  },

  async erase(q, personId) {
    const leads = await q.write(db.updateTable('qr_leads').set({ neighbourhood: null }).where('contact_id', '=', personId));
    return { leads: leads.count };
  },

  async merge(q, fromId, intoId) {
    // The pairs of leads of one campaign, locked, with both rows as they are now.
    const pairs = await q.rows(sql<{ kept: LeadRow; dropped: LeadRow }>`
      select to_jsonb(s) as kept, to_jsonb(l) as dropped from qr_leads l join qr_leads s on s.campaign_id = l.campaign_id and s.contact_id = ${intoId}::uuid
      where l.contact_id = ${fromId}::uuid order by l.id for update of l, s`);
    if (pairs.length) {
      await q.write(sql`
        update qr_leads s set
          code_id = case when l.created_at < s.created_at then l.code_id else s.code_id end,
          created_at = least(s.created_at, l.created_at),
          updated_at = greatest(s.updated_at, l.updated_at),
          submissions = s.submissions + l.submissions,
          interests = array(select distinct unnest(s.interests || l.interests)),
          territory_id = coalesce(s.territory_id, l.territory_id),
          neighbourhood = coalesce(s.neighbourhood, l.neighbourhood),
          whatsapp_opt_in = s.whatsapp_opt_in or l.whatsapp_opt_in,
          email_opt_in = s.email_opt_in or l.email_opt_in
        from qr_leads l where l.contact_id = ${fromId}::uuid and s.contact_id = ${intoId}::uuid and s.campaign_id = l.campaign_id`);
      await q.write(sql`delete from qr_leads l where l.contact_id = ${fromId}::uuid
        and exists (select 1 from qr_leads s where s.contact_id = ${intoId}::uuid and s.campaign_id = l.campaign_id)`);
    }
    const moved = await q.write(sql<{ id: string }>`update qr_leads set contact_id = ${intoId}::uuid where contact_id = ${fromId}::uuid returning id`);
    return {
      moved: { qr_leads: moved.rows.map((row) => row.id) },
      combined: { leadsCombined: pairs.length },
      undo: { combinedLeads: pairs },
    };
  },

  async unmerge(q, moves, fromId, intoId) {
    const ids = moves.moved.qr_leads ?? [];
    if (ids.length) await q.write(sql`update qr_leads set contact_id = ${fromId}::uuid where id = any(${ids}::uuid[]) and contact_id = ${intoId}::uuid`);
    const pairs = (moves.undo?.combinedLeads ?? []) as { kept: LeadRow; dropped: LeadRow }[];
    if (!pairs.length) return;
    // The kept lead as it was, plus whatever it was submitted since; the other lead back as it was.
    await q.write(sql`
      update qr_leads s set code_id = b.code_id, created_at = b.created_at,
        updated_at = case when s.updated_at = greatest(b.updated_at, d.updated_at) then b.updated_at else s.updated_at end,
        submissions = s.submissions - d.submissions, interests = b.interests, territory_id = b.territory_id, neighbourhood = b.neighbourhood,
        whatsapp_opt_in = b.whatsapp_opt_in, email_opt_in = b.email_opt_in
      from jsonb_populate_recordset(null::qr_leads, ${JSON.stringify(pairs.map((pair) => pair.kept))}::jsonb) b,
        jsonb_populate_recordset(null::qr_leads, ${JSON.stringify(pairs.map((pair) => pair.dropped))}::jsonb) d
      where s.id = b.id and d.campaign_id = b.campaign_id`);
    await q.write(sql`insert into qr_leads select * from jsonb_populate_recordset(null::qr_leads, ${JSON.stringify(pairs.map((pair) => pair.dropped))}::jsonb)`);
  },
};
