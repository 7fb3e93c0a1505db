import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { findPage, pageQueryShape } from '../../kernel/pagination';
import { containsPattern } from '../../kernel/search';
import { QrLeadSchema, type QrLead } from './qr.entities';

export const listLeadsQuery = z
  .object({
    ...pageQueryShape,
    campaignId: z.uuid().optional(),
    codeId: z.uuid().optional(),
    territoryId: z.uuid().optional(),
    interest: z.string().trim().toLowerCase().min(1).max(60).optional(),
    q: z.string().trim().min(1).max(100).optional(),
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    optIn: z.enum(['whatsapp', 'email']).optional(),
    format: z.enum(['json', 'csv']).default('json'),
  })
  .refine((query) => !query.from || !query.to || Date.parse(query.from) <= Date.parse(query.to), { message: 'from must not be after to', path: ['to'] });

export type ListLeadsInput = z.infer<typeof listLeadsQuery>;

export const leadView = z
  .object({
    id: z.uuid(),
    campaignId: z.uuid(),
    codeId: z.uuid(),
    contact: z.object({ id: z.uuid(), name: z.string(), phone: z.string().nullable(), email: z.string().nullable(), documentId: z.string().nullable() }),
    territoryId: z.uuid().nullable(),
    neighbourhood: z.string().nullable(),
    interests: z.array(z.string()),
    whatsappOptIn: z.boolean(),
    emailOptIn: z.boolean(),
    submissions: z.number().int(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'QrLead' });

export function presentLead(lead: QrLead): z.input<typeof leadView> {
  const { contact } = lead;
  return {
    id: lead.id,
    campaignId: lead.campaign.id,
    codeId: lead.code.id,
    contact: { id: contact.id, name: contact.name, phone: contact.phone ?? null, email: contact.email ?? null, documentId: contact.documentId ?? null },
    territoryId: lead.territory ? lead.territory.id : null,
    neighbourhood: lead.neighbourhood ?? null,
    interests: lead.interests,
    whatsappOptIn: lead.whatsappOptIn,
    emailOptIn: lead.emailOptIn,
    submissions: lead.submissions,
    createdAt: lead.createdAt.toISOString(),
    updatedAt: lead.updatedAt.toISOString(),
  };
}

function leadFilter(query: ListLeadsInput): Record<string, unknown> {
  const where: Record<string, unknown> = {};
  if (query.campaignId) where.campaign = query.campaignId;
  if (query.codeId) where.code = query.codeId;
  if (query.territoryId) where.territory = query.territoryId;
  if (query.interest) where.interests = { $contains: [query.interest] };
  if (query.optIn === 'whatsapp') where.whatsappOptIn = true;
  if (query.optIn === 'email') where.emailOptIn = true;
  if (query.from || query.to) {
    where.createdAt = { ...(query.from ? { $gte: new Date(query.from) } : {}), ...(query.to ? { $lte: new Date(query.to) } : {}) };
  }
  if (query.q) {
    const pattern = containsPattern(query.q);
    const digits = query.q.replace(/\D/g, '');
    where.contact = {
      $or: [
        { name: { $ilike: pattern } },
        { email: { $ilike: pattern } },
        ...(digits.length >= 3 ? [{ phone: { $like: containsPattern(digits) } }] : []),
      ],
    };
  }
  return where;
}

/** Newest first: ids are UUID v7, so id order is creation order. */
export function listLeads(em: EntityManager, query: ListLeadsInput) {
  return findPage(em, QrLeadSchema, leadFilter(query), query, { id: 'desc' }, presentLead, { populate: ['contact'] });
}

/**
 * A spreadsheet cell that starts with = + - @ (or a tab/CR) can run as a formula when the CSV
 * is opened in Excel or Sheets (OWASP "CSV injection"): such cells get a leading apostrophe.
 */
export function safeCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  const text = String(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

const CSV_COLUMNS = ['id', 'createdAt', 'campaignId', 'codeId', 'name', 'phone', 'email', 'documentId', 'territoryId', 'neighbourhood', 'interests', 'whatsappOptIn', 'emailOptIn', 'submissions'];

/** Streams the filtered leads as CSV, a thousand rows at a time (never the whole list in memory). */
export function leadsCsv(em: EntityManager, query: ListLeadsInput): Readable {
  const where = leadFilter(query);
  async function* rows() {
    yield CSV_COLUMNS;
    let before: string | undefined;
    for (;;) {
      const batch = await em.fork().find(QrLeadSchema, before ? { $and: [where, { id: { $lt: before } }] } : where, {
        orderBy: { id: 'desc' },
        limit: 1000,
        populate: ['contact'],
      });
      for (const lead of batch) {
        const view = presentLead(lead);
        yield [
          view.id, view.createdAt, view.campaignId, view.codeId, view.contact.name, view.contact.phone, view.contact.email,
          view.contact.documentId, view.territoryId, view.neighbourhood, view.interests.join(';'), view.whatsappOptIn, view.emailOptIn, view.submissions,
        ].map(safeCell);
      }
      if (batch.length < 1000) return;
      before = batch[batch.length - 1]!.id;
    }
  }
  return Readable.from(rows()).pipe(stringify({ bom: true }));
}
