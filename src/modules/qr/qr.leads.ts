import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { z } from 'zod';
import { instant } from '../../kernel/schemas';
import { pageQueryShape, mapPage } from '../../kernel/pagination';
import { safeCell } from '../../kernel/spreadsheet';
import type { Queries } from '../../kernel/sql';
import { leadBatch, leadPage, leadPlaceNames, type LeadFilter, type LeadPlaceNames, type LeadRecord } from './qr.repository';

export const listLeadsQuery = z
  .object({
    ...pageQueryShape,
    campaignId: z.uuid().optional(),
    codeId: z.uuid().optional(),
    territoryId: z.uuid().optional(),
    interest: z.string().trim().toLowerCase().min(1).max(60).optional(),
    q: z.string().trim().min(1).max(100).optional(),
    from: instant.optional(),
    to: instant.optional(),
    optIn: z.enum(['whatsapp', 'email']).optional(),
    format: z.enum(['json', 'csv']).default('json'),
  })
  .refine((query) => !query.from || !query.to || Date.parse(query.from) <= Date.parse(query.to), { message: 'from must not be after to', path: ['to'] });

export type ListLeadsInput = z.infer<typeof listLeadsQuery>;

export const leadView = z
  .object({
    id: z.uuid(),
    campaignId: z.uuid(),
    campaignName: z.string().describe("The campaign's name"),
    codeId: z.uuid(),
    poster: z.string().describe('The poster: its code and label'),
    contact: z.object({ id: z.uuid(), name: z.string(), phone: z.string().nullable(), email: z.string().nullable(), documentId: z.string().nullable() }),
    territoryId: z.uuid().nullable(),
    territoryName: z.string().nullable(),
    neighbourhood: z.string().nullable(),
    interests: z.array(z.string()),
    whatsappOptIn: z.boolean(),
    emailOptIn: z.boolean(),
    submissions: z.number().int(),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'QrLead' });

export function presentLead(lead: LeadRecord, names: LeadPlaceNames): z.input<typeof leadView> {
  return {
    id: lead.id,
    campaignId: lead.campaignId,
    campaignName: names.campaigns.get(lead.campaignId) ?? '',
    codeId: lead.codeId,
    poster: names.posters.get(lead.codeId) ?? '',
    contact: lead.contact,
    territoryId: lead.territoryId,
    territoryName: lead.territoryId ? (names.territories.get(lead.territoryId) ?? null) : null,
    neighbourhood: lead.neighbourhood,
    interests: lead.interests,
    whatsappOptIn: lead.whatsappOptIn,
    emailOptIn: lead.emailOptIn,
    submissions: lead.submissions,
    createdAt: lead.createdAt.toISOString(),
    updatedAt: lead.updatedAt.toISOString(),
  };
}

function leadFilter(query: ListLeadsInput): LeadFilter {
  return {
    campaignId: query.campaignId,
    codeId: query.codeId,
    territoryId: query.territoryId,
    interest: query.interest,
    q: query.q,
    from: query.from ? new Date(query.from) : undefined,
    to: query.to ? new Date(query.to) : undefined,
    optIn: query.optIn,
  };
}

/** Newest first: ids are UUID v7, so id order is creation order. Campaign, poster and territory by name, as people read them. */
export async function listLeads(q: Queries, query: ListLeadsInput) {
  const page = await leadPage(q, leadFilter(query), query);
  const names = await leadPlaceNames(q, page.data);
  return mapPage(page, (lead) => presentLead(lead, names));
}

/** Names where a person reads the file (campaign, poster, territory); the ids last, for joining with other exports. */
const CSV_COLUMNS = [
  'id',
  'createdAt',
  'campaign',
  'poster',
  'name',
  'phone',
  'email',
  'documentId',
  'territory',
  'neighbourhood',
  'interests',
  'whatsappOptIn',
  'emailOptIn',
  'submissions',
  'campaignId',
  'codeId',
  'territoryId',
];

/** Streams the filtered leads as CSV, a thousand rows at a time (never the whole list in memory). */
export function leadsCsv(q: Queries, query: ListLeadsInput): Readable {
  const filter = leadFilter(query);
  async function* rows() {
    yield CSV_COLUMNS;
    let before: string | undefined;
    for (;;) {
      const batch = await leadBatch(q, filter, before, 1000);
      const names = await leadPlaceNames(q, batch);
      for (const lead of batch) {
        const view = presentLead(lead, names);
        yield [
          view.id,
          view.createdAt,
          view.campaignName,
          view.poster,
          view.contact.name,
          view.contact.phone,
          view.contact.email,
          view.contact.documentId,
          view.territoryId ? (view.territoryName ?? '') : null,
          view.neighbourhood,
          view.interests.join(';'),
          view.whatsappOptIn,
          view.emailOptIn,
          view.submissions,
          view.campaignId,
          view.codeId,
          view.territoryId,
        ].map(safeCell);
      }
      if (batch.length < 1000) return;
      before = batch[batch.length - 1]!.id;
    }
  }
  return Readable.from(rows()).pipe(stringify({ bom: true }));
}
