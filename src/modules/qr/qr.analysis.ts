import { z } from 'zod';
import { calendarDate } from '../../kernel/schemas';
import type { Queries } from '../../kernel/sql';
import { getCampaign } from './qr.campaigns.service';
import { campaignFigures } from './qr.repository';

const rate = z.number().min(0).describe('leads ÷ unique human scans (0 when there are no scans)');

export const analysisView = z
  .object({
    campaignId: z.uuid(),
    totals: z.object({ scans: z.number().int(), uniqueScans: z.number().int(), botScans: z.number().int(), leads: z.number().int(), conversionRate: rate }),
    byCode: z.array(
      z.object({ codeId: z.uuid(), code: z.string(), label: z.string(), scans: z.number().int(), uniqueScans: z.number().int(), leads: z.number().int(), conversionRate: rate }),
    ),
    byDay: z.array(z.object({ date: calendarDate, scans: z.number().int(), leads: z.number().int() })),
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
export async function analyseCampaign(q: Queries, campaignId: string, timeZone: string): Promise<z.input<typeof analysisView>> {
  const campaign = await getCampaign(q, campaignId);
  const id = campaign.id;
  const { scans, leads, byCode, byDay, byHour, byInterest, byTerritory } = await campaignFigures(q, id, timeZone);

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
