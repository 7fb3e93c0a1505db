import type { InferKyselyDB } from '@mikro-orm/sql';
import { sql as builderSql, type InferResult, type Selectable } from 'kysely';
import { newId } from '../../kernel/ids';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { camelRow, snakeRow, type CamelCased } from '../../kernel/rows';
import { containsPattern } from '../../kernel/search';
import { builderFragment, prepared, sql, tables, type Queries, type Sql } from '../../kernel/sql';
import { arrivingContact, audienceContacts, type CapturedPerson, type ConsentProof, type ContactSchema } from '../audience';
import { territoryAndDescendants, territoryDirectory } from '../territories';
import { QrCampaignSchema, QrCodeSchema, QrLeadSchema, type CampaignStatus, type QrScanSchema } from './qr.entities';
import type { TerritoryReferenceHolder } from '../../kernel/module';

/** The tables this module owns, as the typed query builder sees them. */
type QrTables = InferKyselyDB<typeof QrCampaignSchema | typeof QrCodeSchema | typeof QrScanSchema | typeof QrLeadSchema>;
const db = tables<QrTables>();

// ---------------------------------------------------------------------------------------------
// Campaigns

type CampaignRow = Selectable<QrTables['qr_campaigns']>;

export type CampaignRecord = CamelCased<CampaignRow>;

export type NewCampaign = Omit<CampaignRecord, 'spamBlocked' | 'createdAt' | 'updatedAt'>;

export async function insertCampaign(q: Queries, campaign: NewCampaign): Promise<CampaignRecord> {
  const now = new Date();
  const row = await q.first(
    db
      .insertInto('qr_campaigns')
      .values(snakeRow({ ...campaign, spamBlocked: 0, createdAt: now, updatedAt: now }))
      .returningAll(),
  );
  return camelRow(row!);
}

/** One campaign; `lock` holds its row until the transaction ends, so changes apply one after the other. */
export async function findCampaign(q: Queries, id: string, options: { lock?: boolean } = {}): Promise<CampaignRecord | undefined> {
  const query = db.selectFrom('qr_campaigns').selectAll().where('id', '=', id);
  const row = await q.first(options.lock ? query.forUpdate() : query);
  return row && camelRow(row);
}

/** Campaigns newest first (ids are UUID v7). */
export async function campaignPage(q: Queries, status: CampaignStatus | undefined, page: PageRequest): Promise<Page<CampaignRecord>> {
  let query = db.selectFrom('qr_campaigns').selectAll();
  if (status) query = query.where('status', '=', status);
  const found = await queryPage(q, query, ['id'], 'desc', page);
  return mapPage(found, (row) => camelRow(row));
}

export type CampaignChanges = Partial<Pick<CampaignRecord, 'name' | 'description' | 'status' | 'startsAt' | 'endsAt' | 'landing' | 'consentTextId'>>;

/** Changes the fields given (the builder leaves out those undefined). */
export async function updateCampaignRow(q: Queries, id: string, changes: CampaignChanges): Promise<CampaignRecord> {
  const row = await q.first(
    db
      .updateTable('qr_campaigns')
      .set(snakeRow({ ...changes, updatedAt: new Date() }))
      .where('id', '=', id)
      .returningAll(),
  );
  return camelRow(row!);
}

/** A honeypot hit: counted on the campaign, nothing else stored. */
export async function countSpam(q: Queries, campaignId: string): Promise<void> {
  await q.write(
    db
      .updateTable('qr_campaigns')
      .set((row) => ({ spam_blocked: row('spam_blocked', '+', 1) }))
      .where('id', '=', campaignId),
  );
}

// ---------------------------------------------------------------------------------------------
// Poster codes

const codeOf = (row: Selectable<QrTables['qr_codes']>) => camelRow(row, ['lat', 'lng']);

export type CodeRecord = ReturnType<typeof codeOf>;

export async function countCodes(q: Queries, campaignId: string): Promise<number> {
  const row = await q.first(
    db
      .selectFrom('qr_codes')
      .select((row) => row.fn.countAll<string>().as('n'))
      .where('campaign_id', '=', campaignId),
  );
  return Number(row?.n ?? 0);
}

/** Many codes in one insert: all of them or none (a code collision fails the whole batch). */
export async function insertCodes(q: Queries, codes: readonly CodeRecord[]): Promise<void> {
  if (!codes.length) return;
  await q.write(db.insertInto('qr_codes').values(codes.map((code) => snakeRow(code))));
}

/** A campaign's codes in print order. Overdue: past its removal deadline and not yet reported as taken down. */
export async function codePage(q: Queries, campaignId: string, filter: { overdue?: boolean | undefined }, page: PageRequest): Promise<Page<CodeRecord>> {
  let query = db.selectFrom('qr_codes').selectAll().where('campaign_id', '=', campaignId);
  if (filter.overdue === true) query = query.where('removal_deadline', '<', new Date()).where('removed_at', 'is', null);
  const found = await queryPage(q, query, ['created_at', 'id'], 'asc', page);
  return mapPage(found, codeOf);
}

export async function findCode(q: Queries, id: string): Promise<CodeRecord | undefined> {
  const row = await q.first(db.selectFrom('qr_codes').selectAll().where('id', '=', id));
  return row && codeOf(row);
}

export type CodeChanges = Partial<Pick<CodeRecord, 'label' | 'address' | 'lat' | 'lng' | 'territoryId' | 'placedAt' | 'authorisedSite' | 'removalDeadline' | 'removedAt'>>;

/** Changes the fields given; undefined when there is no such code. */
export async function updateCodeRow(q: Queries, id: string, changes: CodeChanges): Promise<CodeRecord | undefined> {
  const set = snakeRow(Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as CodeChanges);
  // Codes have no updated_at: with nothing to change, the row is only read.
  const row = Object.keys(set).length
    ? await q.first(db.updateTable('qr_codes').set(set).where('id', '=', id).returningAll())
    : await q.first(db.selectFrom('qr_codes').selectAll().where('id', '=', id));
  return row && codeOf(row);
}

/** Every code of a campaign in print order, up to `limit`. */
export async function campaignCodes(q: Queries, campaignId: string, limit: number, offset = 0): Promise<CodeRecord[]> {
  const rows = await q.rows(
    db.selectFrom('qr_codes').selectAll().where('campaign_id', '=', campaignId).orderBy('created_at', 'asc').orderBy('id', 'asc').limit(limit).offset(offset),
  );
  return rows.map(codeOf);
}

// ---------------------------------------------------------------------------------------------
// The public paths: code look-up, scans, capture

/** A poster code's id and campaign, by the code printed on it: on every scan (cached). */
export async function findCodeByPrintedCode(q: Queries, code: string): Promise<Pick<CodeRecord, 'id' | 'code' | 'campaignId'> | undefined> {
  const row = await q.first(prepared('qr_code_by_printed_code', db.selectFrom('qr_codes').select(['id', 'code', 'campaign_id']).where('code', '=', code)));
  return row && camelRow(row);
}

/** Barrios inside a territory, by name, offered as choices on a landing page. */
export function neighbourhoodsInside(q: Queries, territoryId: string, limit: number): Promise<{ id: string; name: string }[]> {
  return q.rows(
    sql<{ id: string; name: string }>`select t.id, t.name from ${territoryDirectory()} t
      where t.type = 'neighbourhood' and t.id in (${territoryAndDescendants([territoryId])}) order by t.name limit ${limit}`,
  );
}

export type NewScan = Omit<CamelCased<Selectable<QrTables['qr_scans']>>, 'id'>;

/** One row per scan, prepared once per connection: it runs on every poster scan. */
export async function insertScan(q: Queries, scan: NewScan): Promise<void> {
  await q.write(prepared('qr_scan_insert', db.insertInto('qr_scans').values(snakeRow({ id: newId(), ...scan }))));
}

export interface CapturedLead {
  campaignId: string;
  codeId: string;
  person: CapturedPerson;
  proof: ConsentProof;
}

/** Where the poster was put up (its own territory, else its campaign's): a lead who names no barrio is counted there. */
function posterPlace(lead: CapturedLead): Sql<never> {
  return sql`(select coalesce(q.territory_id, c.territory_id) from qr_codes q join qr_campaigns c on c.id = q.campaign_id where q.id = ${lead.codeId}::uuid)`;
}

/**
 * The lead this capture adds to or updates: one per campaign and contact. A repeat submission
 * keeps the first poster, takes the newest interests, keeps opt-ins once given, and counts. A
 * barrio the person names is the lead's territory; without one, the poster's.
 */
function leadCte(lead: CapturedLead) {
  const { person } = lead;
  return sql`lead as (
      insert into qr_leads as l (id, campaign_id, code_id, contact_id, territory_id, neighbourhood, interests,
        whatsapp_opt_in, email_opt_in, submissions, created_at, updated_at)
      select ${newId()}, ${lead.campaignId}, ${lead.codeId}, contact.id, coalesce(${person.territoryId}::uuid, ${posterPlace(lead)}), ${person.neighbourhood}, ${person.interests}::text[],
        ${person.whatsappOptIn}, ${person.emailOptIn}, 1, now(), now() from contact
      on conflict (campaign_id, contact_id) do update set
        territory_id = coalesce(${person.territoryId}::uuid, l.territory_id, excluded.territory_id),
        neighbourhood = coalesce(excluded.neighbourhood, l.neighbourhood),
        interests = excluded.interests,
        whatsapp_opt_in = l.whatsapp_opt_in or excluded.whatsapp_opt_in,
        email_opt_in = l.email_opt_in or excluded.email_opt_in,
        submissions = l.submissions + 1,
        updated_at = excluded.updated_at
      returning id, (xmax = 0) as created, territory_id
    )`;
}

/**
 * The whole capture as one prepared statement: the contact, where they came from, the lead and
 * the consent proof, atomic and in one round trip. The unique keys (contact identity; campaign +
 * contact) make a resubmission, or two racing ones, update one lead instead of creating two.
 * `created` is false when the lead existed.
 */
export async function recordCapturedLead(q: Queries, lead: CapturedLead): Promise<{ id: string; created: boolean; contactId: string; territoryId: string | null }> {
  const statement = arrivingContact(
    { person: lead.person, origin: { kind: 'qr_campaign', refId: lead.campaignId }, proof: lead.proof, placeIfNone: posterPlace(lead) },
    {
      ctes: leadCte(lead),
      select: sql<{ id: string; created: boolean; contactId: string; territoryId: string | null }>`
        select lead.id, lead.created, contact.id as "contactId", lead.territory_id as "territoryId" from lead, contact`,
    },
  ).prepared('qr_capture_lead');
  return (await q.first(statement))!;
}

// ---------------------------------------------------------------------------------------------
// Leads: lists and exports (with the person, through audience's published contacts)

/** The person's columns a lead list shows, as audience's `audienceContacts()` gives them. */
type LeadContactRow = Pick<Selectable<InferKyselyDB<typeof ContactSchema>['contacts']>, 'id' | 'name' | 'phone' | 'email' | 'document_id'>;

export interface LeadFilter {
  campaignId?: string | undefined;
  codeId?: string | undefined;
  territoryId?: string | undefined;
  interest?: string | undefined;
  /** A fragment of the person's name or email, or at least three digits of their phone. */
  q?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  optIn?: 'whatsapp' | 'email' | undefined;
}

/** Leads with their person, filtered; unordered (the list and the export order them). */
function leadQuery(filter: LeadFilter) {
  let query = db
    .selectFrom('qr_leads as l')
    .innerJoin(builderFragment<LeadContactRow>(audienceContacts()).as('c'), 'c.id', 'l.contact_id')
    .select([
      'l.id',
      'l.campaign_id',
      'l.code_id',
      'l.territory_id',
      'l.neighbourhood',
      'l.interests',
      'l.whatsapp_opt_in',
      'l.email_opt_in',
      'l.submissions',
      'l.created_at',
      'l.updated_at',
      'c.id as contact_id',
      'c.name as contact_name',
      'c.phone as contact_phone',
      'c.email as contact_email',
      'c.document_id as contact_document_id',
    ]);
  if (filter.campaignId) query = query.where('l.campaign_id', '=', filter.campaignId);
  if (filter.codeId) query = query.where('l.code_id', '=', filter.codeId);
  if (filter.territoryId) query = query.where('l.territory_id', '=', filter.territoryId);
  // The array as one parameter: the builder would spread it into a list of values.
  if (filter.interest) query = query.where('l.interests', '@>', builderSql<string[]>`${[filter.interest]}::text[]`);
  if (filter.optIn === 'whatsapp') query = query.where('l.whatsapp_opt_in', '=', true);
  if (filter.optIn === 'email') query = query.where('l.email_opt_in', '=', true);
  if (filter.from) query = query.where('l.created_at', '>=', filter.from);
  if (filter.to) query = query.where('l.created_at', '<=', filter.to);
  if (filter.q) {
    const pattern = containsPattern(filter.q);
    const digits = filter.q.replace(/\D/g, '');
    query = query.where((row) =>
      row.or([row('c.name', 'ilike', pattern), row('c.email', 'ilike', pattern), ...(digits.length >= 3 ? [row('c.phone', 'like', containsPattern(digits))] : [])]),
    );
  }
  return query;
}

type LeadRow = InferResult<ReturnType<typeof leadQuery>>[number];

function leadOf(row: LeadRow) {
  const { contact_id: id, contact_name: name, contact_phone: phone, contact_email: email, contact_document_id: documentId, ...lead } = row;
  return { ...camelRow(lead), contact: { id, name, phone, email, documentId } };
}

export type LeadRecord = ReturnType<typeof leadOf>;

/** Newest first: ids are UUID v7, so id order is creation order. */
export async function leadPage(q: Queries, filter: LeadFilter, page: PageRequest): Promise<Page<LeadRecord>> {
  const found = await queryPage(q, leadQuery(filter), ['l.id'], 'desc', page);
  return mapPage(found, leadOf);
}

/** Up to `limit` leads older than `before` (all, without it), newest first. */
export async function leadBatch(q: Queries, filter: LeadFilter, before: string | undefined, limit: number): Promise<LeadRecord[]> {
  let query = leadQuery(filter);
  if (before) query = query.where('l.id', '<', before);
  const rows = await q.rows(query.orderBy('l.id', 'desc').limit(limit));
  return rows.map(leadOf);
}

/** What an export writes instead of ids: each campaign's name, each poster's code and label, each territory's name. */
export interface LeadPlaceNames {
  campaigns: Map<string, string>;
  posters: Map<string, string>;
  territories: Map<string, string>;
}

export async function leadPlaceNames(q: Queries, leads: readonly LeadRecord[]): Promise<LeadPlaceNames> {
  const ids = (pick: (lead: LeadRecord) => string | null) => [...new Set(leads.map(pick).filter((id): id is string => id !== null))];
  const rows = await q.rows(sql<{ kind: keyof LeadPlaceNames; id: string; name: string }>`
    select 'campaigns' as kind, id, name from qr_campaigns where id = any(${ids((lead) => lead.campaignId)}::uuid[])
    union all select 'posters', id, code || ' · ' || label from qr_codes where id = any(${ids((lead) => lead.codeId)}::uuid[])
    union all select 'territories', t.id, t.name from ${territoryDirectory()} t where t.id = any(${ids((lead) => lead.territoryId)}::uuid[])`);
  const names: LeadPlaceNames = { campaigns: new Map(), posters: new Map(), territories: new Map() };
  for (const row of rows) names[row.kind].set(row.id, row.name);
  return names;
}

// ---------------------------------------------------------------------------------------------
// Analysis: indexed aggregates in PostgreSQL, no lead loaded into memory

export interface CampaignFigures {
  scans: { scans: number; unique_scans: number; bot_scans: number };
  leads: { leads: number; whatsapp: number; email: number; merged: number };
  byCode: { code_id: string; code: string; label: string; scans: number; unique_scans: number; leads: number }[];
  byDay: { date: string; scans: number; leads: number }[];
  byHour: { hour: number; scans: number; leads: number }[];
  byInterest: { interest: string; leads: number }[];
  byTerritory: { territory_id: string | null; name: string | null; leads: number }[];
}

/**
 * A campaign's scans and leads, seven aggregates run side by side. Scans count people, not
 * crawlers: bot scans are reported apart. Days and hours are in `timeZone`.
 */
export async function campaignFigures(q: Queries, id: string, timeZone: string): Promise<CampaignFigures> {
  const [scans, leads, byCode, byDay, byHour, byInterest, byTerritory] = await Promise.all([
    q.first(
      db
        .selectFrom('qr_scans')
        .select((scan) => [
          scan.cast<number>(scan.fn.countAll().filterWhere('is_bot', '=', false), 'integer').as('scans'),
          scan.cast<number>(scan.fn.count('ip_hash').distinct().filterWhere('is_bot', '=', false), 'integer').as('unique_scans'),
          scan.cast<number>(scan.fn.countAll().filterWhere('is_bot', '=', true), 'integer').as('bot_scans'),
        ])
        .where('campaign_id', '=', id),
    ),
    q.first(
      db
        .selectFrom('qr_leads')
        .select((lead) => [
          lead.cast<number>(lead.fn.countAll(), 'integer').as('leads'),
          lead.cast<number>(lead.fn.countAll().filterWhere('whatsapp_opt_in', '=', true), 'integer').as('whatsapp'),
          lead.cast<number>(lead.fn.countAll().filterWhere('email_opt_in', '=', true), 'integer').as('email'),
          lead.cast<number>(lead.fn.coalesce(lead.fn.sum(lead('submissions', '-', 1)), lead.lit(0)), 'integer').as('merged'),
        ])
        .where('campaign_id', '=', id),
    ),
    q.rows(
      sql<CampaignFigures['byCode'][number]>`select c.id as code_id, c.code, c.label,
          coalesce(s.scans, 0)::int as scans, coalesce(s.unique_scans, 0)::int as unique_scans, coalesce(l.leads, 0)::int as leads
        from qr_codes c
        left join (select code_id, count(*) as scans, count(distinct ip_hash) as unique_scans
                   from qr_scans where campaign_id = ${id} and not is_bot group by code_id) s on s.code_id = c.id
        left join (select code_id, count(*) as leads from qr_leads where campaign_id = ${id} group by code_id) l on l.code_id = c.id
        where c.campaign_id = ${id}
        order by leads desc, scans desc, c.created_at`,
    ),
    q.rows(
      sql<CampaignFigures['byDay'][number]>`select to_char(day, 'YYYY-MM-DD') as date, sum(scans)::int as scans, sum(leads)::int as leads from (
          select (scanned_at at time zone ${timeZone}::text)::date as day, 1 as scans, 0 as leads from qr_scans where campaign_id = ${id} and not is_bot
          union all
          select (created_at at time zone ${timeZone}::text)::date, 0, 1 from qr_leads where campaign_id = ${id}
        ) events group by day order by day`,
    ),
    q.rows(
      sql<CampaignFigures['byHour'][number]>`select hour::int, sum(scans)::int as scans, sum(leads)::int as leads from (
          select extract(hour from scanned_at at time zone ${timeZone}::text) as hour, 1 as scans, 0 as leads from qr_scans where campaign_id = ${id} and not is_bot
          union all
          select extract(hour from created_at at time zone ${timeZone}::text), 0, 1 from qr_leads where campaign_id = ${id}
        ) events group by hour order by hour`,
    ),
    q.rows(
      sql<CampaignFigures['byInterest'][number]>`select interest, count(*)::int as leads from qr_leads, unnest(interests) as interest
        where campaign_id = ${id} group by interest order by leads desc, interest`,
    ),
    q.rows(
      sql<CampaignFigures['byTerritory'][number]>`select l.territory_id, t.name, count(*)::int as leads
        from qr_leads l left join ${territoryDirectory()} t on t.id = l.territory_id
        where l.campaign_id = ${id} group by l.territory_id, t.name order by leads desc, t.name`,
    ),
  ]);
  return { scans: scans!, leads: leads!, byCode, byDay, byHour, byInterest, byTerritory };
}

/** Leads captured in [since, until), for other modules' daily figures (popularity's `leads` metric). */
export async function leadsCapturedBetween(q: Queries, since: Date, until: Date): Promise<number> {
  const row = await q.first(
    db
      .selectFrom('qr_leads')
      .select((lead) => lead.fn.countAll<string>().as('count'))
      .where('created_at', '>=', since)
      .where('created_at', '<', until),
  );
  return Number(row?.count ?? 0);
}

/** Poster campaigns, codes and leads placed in a territory. */
export const qrTerritoryReferences: TerritoryReferenceHolder = async (q, territoryId) => {
  const placedIn = (table: 'qr_campaigns' | 'qr_codes' | 'qr_leads') =>
    db
      .selectFrom(table)
      .select((row) => row.fn.countAll<string>().as('count'))
      .where('territory_id', '=', territoryId);
  const row = await q.first(db.selectNoFrom([placedIn('qr_campaigns').as('campaigns'), placedIn('qr_codes').as('codes'), placedIn('qr_leads').as('leads')]));
  return [
    { count: Number(row?.campaigns ?? 0), one: 'campaña QR', many: 'campañas QR' },
    { count: Number(row?.codes ?? 0), one: 'código QR', many: 'códigos QR' },
    { count: Number(row?.leads ?? 0), one: 'lead', many: 'leads' },
  ];
};
