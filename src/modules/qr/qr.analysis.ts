import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { getCampaign } from './qr.campaigns.service';

const rate = z.number().min(0).describe('leads ÷ unique human scans (0 when there are no scans)');

export const analysisView = z
  .object({
    campaignId: z.uuid(),
    totals: z.object({ scans: z.number().int(), uniqueScans: z.number().int(), botScans: z.number().int(), leads: z.number().int(), conversionRate: rate }),
    byCode: z.array(
      z.object({ codeId: z.uuid(), code: z.string(), label: z.string(), scans: z.number().int(), uniqueScans: z.number().int(), leads: z.number().int(), conversionRate: rate }),
    ),
    byDay: z.array(z.object({ date: z.iso.date(), scans: z.number().int(), leads: z.number().int() })),
    byHour: z.array(z.object({ hour: z.number().int().min(0).max(23), scans: z.number().int(), leads: z.number().int() })),
    byInterest: z.array(z.object({ interest: z.string(), leads: z.number().int() })),
    byTerritory: z.array(z.object({ territoryId: z.uuid().nullable(), name: z.string(), leads: z.number().int() })),
    optIns: z.object({ whatsapp: z.number().int(), email: z.number().int() }),
    duplicatesMerged: z.number().int(),
    spamBlocked: z.number().int(),
    timeZone: z.string(),
  })
  .meta({ id: 'QrCampaignAnalysis' });

const conversion = (leads: number, uniqueScans: number) => (uniqueScans > 0 ? Math.round((leads / uniqueScans) * 10_000) / 10_000 : 0);

/**
 * A campaign's performance, computed in PostgreSQL with indexed aggregates (no lead is loaded
 * into memory). Scans count people, not crawlers: bot scans are reported apart. Days and hours
 * are in the campaign's time zone.
 */
export async function analyseCampaign(em: EntityManager, campaignId: string, timeZone: string): Promise<z.input<typeof analysisView>> {
  const campaign = await getCampaign(em, campaignId);
  const id = campaign.id;

  const [scanTotals, leadTotals, byCode, byDay, byHour, byInterest, byTerritory] = await Promise.all([
    em.execute<{ scans: number; unique_scans: number; bot_scans: number }[]>(
      `select count(*) filter (where not is_bot)::int as scans,
              count(distinct ip_hash) filter (where not is_bot)::int as unique_scans,
              count(*) filter (where is_bot)::int as bot_scans
       from qr_scans where campaign_id = ?`,
      [id],
    ),
    em.execute<{ leads: number; whatsapp: number; email: number; merged: number }[]>(
      `select count(*)::int as leads,
              count(*) filter (where whatsapp_opt_in)::int as whatsapp,
              count(*) filter (where email_opt_in)::int as email,
              coalesce(sum(submissions - 1), 0)::int as merged
       from qr_leads where campaign_id = ?`,
      [id],
    ),
    em.execute<{ code_id: string; code: string; label: string; scans: number; unique_scans: number; leads: number }[]>(
      `select c.id as code_id, c.code, c.label,
              coalesce(s.scans, 0)::int as scans, coalesce(s.unique_scans, 0)::int as unique_scans, coalesce(l.leads, 0)::int as leads
       from qr_codes c
       left join (select code_id, count(*) as scans, count(distinct ip_hash) as unique_scans
                  from qr_scans where campaign_id = ? and not is_bot group by code_id) s on s.code_id = c.id
       left join (select code_id, count(*) as leads from qr_leads where campaign_id = ? group by code_id) l on l.code_id = c.id
       where c.campaign_id = ?
       order by leads desc, scans desc, c.created_at`,
      [id, id, id],
    ),
    em.execute<{ date: string; scans: number; leads: number }[]>(
      `select to_char(day, 'YYYY-MM-DD') as date, sum(scans)::int as scans, sum(leads)::int as leads from (
         select (scanned_at at time zone ?)::date as day, 1 as scans, 0 as leads from qr_scans where campaign_id = ? and not is_bot
         union all
         select (created_at at time zone ?)::date, 0, 1 from qr_leads where campaign_id = ?
       ) events group by day order by day`,
      [timeZone, id, timeZone, id],
    ),
    em.execute<{ hour: number; scans: number; leads: number }[]>(
      `select hour::int, sum(scans)::int as scans, sum(leads)::int as leads from (
         select extract(hour from scanned_at at time zone ?) as hour, 1 as scans, 0 as leads from qr_scans where campaign_id = ? and not is_bot
         union all
         select extract(hour from created_at at time zone ?), 0, 1 from qr_leads where campaign_id = ?
       ) events group by hour order by hour`,
      [timeZone, id, timeZone, id],
    ),
    em.execute<{ interest: string; leads: number }[]>(
      `select interest, count(*)::int as leads from qr_leads, unnest(interests) as interest
       where campaign_id = ? group by interest order by leads desc, interest`,
      [id],
    ),
    em.execute<{ territory_id: string | null; name: string | null; leads: number }[]>(
      `select l.territory_id, t.name, count(*)::int as leads
       from qr_leads l left join territories t on t.id = l.territory_id
       where l.campaign_id = ? group by l.territory_id, t.name order by leads desc, t.name`,
      [id],
    ),
  ]);

  const scans = scanTotals[0]!;
  const leads = leadTotals[0]!;
  // Offered interests nobody ticked still show, with zero.
  const interestCounts = new Map(byInterest.map((row) => [row.interest, row.leads]));
  for (const option of campaign.landing.interests) if (!interestCounts.has(option.value)) interestCounts.set(option.value, 0);

  return {
    campaignId: id,
    totals: { scans: scans.scans, uniqueScans: scans.unique_scans, botScans: scans.bot_scans, leads: leads.leads, conversionRate: conversion(leads.leads, scans.unique_scans) },
    byCode: byCode.map((row) => ({
      codeId: row.code_id,
      code: row.code,
      label: row.label,
      scans: row.scans,
      uniqueScans: row.unique_scans,
      leads: row.leads,
      conversionRate: conversion(row.leads, row.unique_scans),
    })),
    byDay,
    byHour,
    byInterest: [...interestCounts].map(([interest, count]) => ({ interest, leads: count })).sort((a, b) => b.leads - a.leads || a.interest.localeCompare(b.interest)),
    byTerritory: byTerritory.map((row) => ({ territoryId: row.territory_id, name: row.name ?? 'Sin territorio', leads: row.leads })),
    optIns: { whatsapp: leads.whatsapp, email: leads.email },
    duplicatesMerged: leads.merged,
    spamBlocked: campaign.spamBlocked,
    timeZone,
  };
}
