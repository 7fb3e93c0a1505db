import { createHash } from 'node:crypto';
import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { newId } from '../../kernel/ids';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { ERASED_NAME } from '../../kernel/privacy';
import { camelRow, snakeRow, type CamelCased } from '../../kernel/rows';
import { sql, tables, type Queries, type Sql } from '../../kernel/sql';
import { territoryAndDescendants } from '../territories';
import { identityKey, type CapturedPerson, type ConsentProof, type Origin } from './audience.contacts';
import type { AudienceAuditSchema, AuditAction, ConsentSchema, ConsentTextSchema, ContactOriginSchema, ContactSchema } from './audience.entities';
import type { Channel, Segment } from './audience.segments';
import type { TerritoryReferenceHolder } from '../../kernel/module';

/** The tables this module owns: nothing else writes them. */
type AudienceTables = InferKyselyDB<typeof ContactSchema | typeof ContactOriginSchema | typeof ConsentTextSchema | typeof ConsentSchema | typeof AudienceAuditSchema>;
const db = tables<AudienceTables>();

/** A contact's row as the database holds it, derived from the entity (the type every contact-shaped row picks from). */
export type ContactRow = Selectable<AudienceTables['contacts']>;

/** A contact's fields in camelCase: what people-shaped inputs and answers pick from. */
export type ContactRecord = CamelCased<ContactRow>;

/** A consent record's fields in camelCase. */
export type ConsentFields = CamelCased<Selectable<AudienceTables['consents']>>;

/** Where a contact came from, in camelCase. */
export type OriginRecord = CamelCased<Selectable<AudienceTables['contact_origins']>>;

/**
 * People as other modules may read them in their own statements: a read-only projection of the
 * contacts, each channel's reachability decided here (opted in and not opted out since), so no
 * other module names the table or re-states the consent rule. Use as
 * `join ${audienceContacts()} c on c.id = m.contact_id`; PostgreSQL inlines it.
 */
export function audienceContacts(): Sql<never> {
  return sql`(select id, name, phone, email, document_id, territory_id, neighbourhood, interests, created_at,
      whatsapp_opt_in, whatsapp_opted_out_at, phone is not null and whatsapp_opt_in and whatsapp_opted_out_at is null as whatsapp_reachable,
      email_opt_in, email_opted_out_at, email is not null and email_opt_in and email_opted_out_at is null as email_reachable
    from contacts)`;
}

/**
 * A statement that records a person arriving from somewhere and what the caller does with them,
 * in one round trip: the CTE `contact` upserts them by identity (returning `id`), `origin` notes
 * where they came from, the caller's own CTEs (`then.ctes`, which read `contact`) follow, and
 * `consent` keeps the proof of what they agreed to. The caller's `then.select` ends it. One
 * statement is atomic, and concurrent submissions of the same person meet at the unique identity
 * key instead of creating twins.
 *
 * On a repeat: fields given replace old ones, interests accumulate, and a channel opt-in given
 * now re-opens that channel (an unticked box is not an opt-out; opting out is explicit).
 * Every row is stamped with the statement's `now()`: one clock (the database's) for the contact,
 * its origin and the consent proof.
 *
 * `placeIfNone` is where the person is taken to be when they named no territory (the poster they
 * scanned): a contact gets it only when it has none, so a barrio named before is never replaced.
 */
export function arrivingContact<Row>(
  arrival: { person: CapturedPerson; origin: Origin; proof: ConsentProof; placeIfNone?: Sql<never> },
  then: { ctes: Sql<unknown>; select: Sql<Row> },
): Sql<Row> {
  const { person, origin, proof } = arrival;
  const territory = arrival.placeIfNone ? sql`coalesce(${person.territoryId}::uuid, ${arrival.placeIfNone})` : sql`${person.territoryId}::uuid`;
  return sql<Row>`with contact as (
      insert into contacts as k (id, identity_key, name, phone, email, document_id, territory_id, neighbourhood, interests,
        whatsapp_opt_in, email_opt_in, created_at, updated_at)
      values (${newId()}, ${identityKey(person)}, ${person.name}, ${person.phone}, ${person.email}, ${person.documentId}, ${territory},
        ${person.neighbourhood}, ${person.interests}::text[], ${person.whatsappOptIn}, ${person.emailOptIn}, now(), now())
      on conflict (identity_key) do update set
        name = excluded.name,
        phone = coalesce(excluded.phone, k.phone),
        email = coalesce(excluded.email, k.email),
        document_id = coalesce(excluded.document_id, k.document_id),
        territory_id = coalesce(${person.territoryId}::uuid, k.territory_id, excluded.territory_id),
        neighbourhood = coalesce(excluded.neighbourhood, k.neighbourhood),
        interests = array(select distinct unnest(k.interests || excluded.interests)),
        whatsapp_opt_in = k.whatsapp_opt_in or excluded.whatsapp_opt_in,
        whatsapp_opted_out_at = case when excluded.whatsapp_opt_in then null else k.whatsapp_opted_out_at end,
        email_opt_in = k.email_opt_in or excluded.email_opt_in,
        email_opted_out_at = case when excluded.email_opt_in then null else k.email_opted_out_at end,
        updated_at = excluded.updated_at
      returning id
    ),
    origin as (
      insert into contact_origins (contact_id, kind, ref_id, first_seen_at)
      select id, ${origin.kind}, ${origin.refId}, now() from contact on conflict do nothing
    ),
    ${then.ctes},
    consent as (
      insert into consents (id, contact_id, text_id, action, source, source_ref, whatsapp_opt_in, email_opt_in, ip_hash, user_agent, given_at)
      select ${newId()}, id, ${proof.textId}, 'given', ${proof.source}, ${proof.sourceRef}, ${person.whatsappOptIn}, ${person.emailOptIn},
        ${proof.ipHash}, ${proof.userAgent}, now() from contact
    )
    ${then.select}`;
}

/** Stores a consent (or withdrawal) text once, by content, and returns its id. */
export async function ensureConsentText(q: Queries, text: string, privacyPolicyUrl: string | null): Promise<string> {
  const sha256 = createHash('sha256')
    .update(`${text}\n${privacyPolicyUrl ?? ''}`)
    .digest('hex');
  const row = await q.first(
    db
      .insertInto('consent_texts')
      .values({ id: newId(), sha256, text, privacy_policy_url: privacyPolicyUrl, created_at: new Date() })
      // A no-op update so the existing row's id comes back (texts are append-only; an unchanged row passes).
      .onConflict((conflict) => conflict.column('sha256').doUpdateSet((row) => ({ sha256: row.ref('excluded.sha256') })))
      .returning('id'),
  );
  return row!.id;
}

/**
 * The contact holding this phone, created without any consent when new (a person who writes to
 * the campaign first). An existing contact is left as it is.
 */
export async function ensureContactByPhone(q: Queries, phone: string, name: string): Promise<string> {
  const now = new Date();
  const row = await q.first(
    db
      .insertInto('contacts')
      .values({
        id: newId(),
        identity_key: identityKey({ phone }),
        name,
        phone,
        interests: [],
        whatsapp_opt_in: false,
        email_opt_in: false,
        created_at: now,
        updated_at: now,
      })
      .onConflict((conflict) => conflict.column('identity_key').doUpdateSet((row) => ({ identity_key: row.ref('excluded.identity_key') })))
      .returning('id'),
  );
  return row!.id;
}

/** Whether a contact with this id is held (a person whose data was erased is not, nor a record merged into another). */
export async function contactExists(q: Queries, id: string): Promise<boolean> {
  return (await q.first(db.selectFrom('contacts').select('id').where('id', '=', id).where('erased_at', 'is', null).where('merged_into_id', 'is', null))) !== undefined;
}

/** A contact's name and email, for showing a message as they would get it; nothing for an erased, merged or unknown id. */
export function contactGreeting(q: Queries, id: string): Promise<Pick<ContactRow, 'name' | 'email'> | undefined> {
  return q.first(db.selectFrom('contacts').select(['name', 'email']).where('id', '=', id).where('erased_at', 'is', null).where('merged_into_id', 'is', null));
}

/** How one contact can be reached on each channel right now: consent (given and not withdrawn) and an address are separate, so a caller can say which is missing. */
export type ContactReach = Pick<ContactRecord, 'phone' | 'email'> & { erased: boolean; whatsappConsent: boolean; emailConsent: boolean };

/** One contact's reachability, for a message to that person alone (a notice); undefined for an unknown id. */
export async function contactReach(q: Queries, id: string): Promise<ContactReach | undefined> {
  const row = await q.first(
    db.selectFrom('contacts').select(['erased_at', 'phone', 'email', 'whatsapp_opt_in', 'whatsapp_opted_out_at', 'email_opt_in', 'email_opted_out_at']).where('id', '=', id),
  );
  if (!row) return undefined;
  return {
    erased: row.erased_at !== null,
    phone: row.phone,
    email: row.email,
    whatsappConsent: row.whatsapp_opt_in && row.whatsapp_opted_out_at === null,
    emailConsent: row.email_opt_in && row.email_opted_out_at === null,
  };
}

/** Which contacts a withdrawal applies to: one by id, or everyone holding a phone or an email. */
export type ContactSelector = { contactId: string } | { phone: string } | { email: string };

/**
 * Marks the selected contacts opted out of `channel` (those not already opted out) and returns
 * them, with whether each can still be reached on the other channel.
 */
export async function optOut(q: Queries, selector: ContactSelector, channel: Channel, at: Date) {
  let update = db.updateTable('contacts').set(channel === 'whatsapp' ? { whatsapp_opted_out_at: at, updated_at: at } : { email_opted_out_at: at, updated_at: at });
  update =
    'contactId' in selector
      ? update.where('id', '=', selector.contactId)
      : 'phone' in selector
        ? update.where('phone', '=', selector.phone)
        : // Contacts' emails are stored lower-cased (capture normalises them), so the email index serves this.
          update.where('email', '=', selector.email.toLowerCase());
  update = update.where(channel === 'whatsapp' ? 'whatsapp_opted_out_at' : 'email_opted_out_at', 'is', null);
  return q.rows(
    update.returning((row) => [
      'id',
      row.and([row('whatsapp_opt_in', '=', true), row('whatsapp_opted_out_at', 'is', null)]).as('whatsapp'),
      row.and([row('email_opt_in', '=', true), row('email_opted_out_at', 'is', null)]).as('email'),
    ]),
  );
}

/** A consent or withdrawal to record: the row's fields but its id, `at` being when it was given (`given_at`). */
export type ConsentRecord = Omit<ConsentFields, 'id' | 'givenAt'> & { at: ConsentFields['givenAt'] };

export async function insertConsentRecords(q: Queries, records: ConsentRecord[]): Promise<void> {
  if (!records.length) return;
  await q.write(db.insertInto('consents').values(records.map(({ at, ...record }) => ({ id: newId(), ...snakeRow(record), given_at: at }))));
}

/** The WHERE clause of a segment over `contacts c`: consent on the channel, then every condition given. */
function segmentWhere(segment: Segment, channel: Channel): Sql<never> {
  const clauses: Sql<never>[] = [channel === 'whatsapp' ? sql`c.whatsapp_reachable` : sql`c.email_reachable`];
  if (segment.interestsAny) clauses.push(sql`c.interests && ${segment.interestsAny}::text[]`);
  if (segment.interestsAll) clauses.push(sql`c.interests @> ${segment.interestsAll}::text[]`);
  if (segment.territoryIds) clauses.push(sql`c.territory_id in (${territoryAndDescendants(segment.territoryIds)})`);
  if (segment.qrCampaignIds) {
    clauses.push(sql`exists (select 1 from contact_origins o where o.contact_id = c.id and o.kind = 'qr_campaign' and o.ref_id = any(${segment.qrCampaignIds}::uuid[]))`);
  }
  if (segment.createdFrom) clauses.push(sql`c.created_at >= ${new Date(segment.createdFrom)}`);
  if (segment.createdTo) clauses.push(sql`c.created_at <= ${new Date(segment.createdTo)}`);
  return sql.join(clauses, ' and ');
}

export type SegmentMember = Pick<ContactRow, 'id' | 'name' | 'phone' | 'email'>;

/**
 * The segment's members on a channel (consent and opt-outs applied) as a subquery. Email has no
 * identity constraint (two contacts may share an inbox), so each address counts once: the oldest
 * contact holding it represents it.
 */
export function segmentMembers(segment: Segment, channel: Channel): Sql<SegmentMember> {
  const where = segmentWhere(segment, channel);
  if (channel === 'whatsapp') return sql<SegmentMember>`select c.id, c.name, c.phone, c.email from ${audienceContacts()} c where ${where}`;
  return sql<SegmentMember>`select distinct on (lower(c.email)) c.id, c.name, c.phone, c.email from ${audienceContacts()} c where ${where}
    order by lower(c.email), c.id`;
}

export async function countSegmentMembers(q: Queries, segment: Segment, channel: Channel): Promise<number> {
  const row = await q.first(sql<{ n: number }>`select count(*)::int as n from (${segmentMembers(segment, channel)}) m`);
  return row?.n ?? 0;
}

export function segmentMembersAfter(q: Queries, segment: Segment, channel: Channel, after: string, limit: number): Promise<SegmentMember[]> {
  return q.rows(sql<SegmentMember>`select * from (${segmentMembers(segment, channel)}) m where m.id > ${after} order by m.id limit ${limit}`);
}

/** How many contacts have opted out of a channel (since a time, when given). */
export async function countOptedOut(q: Queries, channel: Channel, since?: Date): Promise<number> {
  const column = channel === 'whatsapp' ? 'whatsapp_opted_out_at' : 'email_opted_out_at';
  let query = db
    .selectFrom('contacts')
    .select((row) => row.fn.countAll<number>().as('n'))
    .where(column, 'is not', null);
  if (since) query = query.where(column, '>=', since);
  const row = await q.first(query);
  return Number(row?.n ?? 0);
}

/**
 * A held (not erased, not merged into another) contact, locked for the rest of the transaction so
 * that nothing else changes the person while their data is erased or their consent withdrawn;
 * undefined when none.
 */
export async function lockHeldContact(q: Queries, id: string) {
  const row = await q.first(
    db
      .selectFrom('contacts')
      .select(['id', 'name', 'whatsapp_opted_out_at', 'email_opted_out_at'])
      .where('id', '=', id)
      .where('erased_at', 'is', null)
      .where('merged_into_id', 'is', null)
      .forUpdate(),
  );
  return row && camelRow(row);
}

/** Everything a contact's row holds, for the person's own copy. */
export async function heldContact(q: Queries, id: string) {
  const row = await q.first(
    db
      .selectFrom('contacts')
      .select([
        'id',
        'name',
        'phone',
        'email',
        'document_id',
        'territory_id',
        'neighbourhood',
        'interests',
        'tags',
        'whatsapp_opt_in',
        'whatsapp_opted_out_at',
        'email_opt_in',
        'email_opted_out_at',
        'created_at',
        'updated_at',
      ])
      .where('id', '=', id)
      .where('erased_at', 'is', null)
      .where('merged_into_id', 'is', null),
  );
  return row && camelRow(row);
}

export async function originsOf(q: Queries, contactId: string) {
  const rows = await q.rows(db.selectFrom('contact_origins').select(['kind', 'ref_id', 'first_seen_at']).where('contact_id', '=', contactId).orderBy('first_seen_at'));
  return rows.map((row) => camelRow(row));
}

/** Every consent and withdrawal record of a contact, with the exact text each one points at. */
export async function consentsOf(q: Queries, contactId: string) {
  const rows = await q.rows(
    db
      .selectFrom('consents as c')
      .innerJoin('consent_texts as t', 't.id', 'c.text_id')
      .select([
        'c.id',
        'c.action',
        'c.source',
        'c.source_ref',
        'c.whatsapp_opt_in',
        'c.email_opt_in',
        'c.ip_hash',
        'c.user_agent',
        'c.evidence',
        'c.given_at',
        't.id as text_id',
        't.text',
        't.privacy_policy_url',
        't.sha256',
      ])
      .where('c.contact_id', '=', contactId)
      .orderBy('c.given_at')
      .orderBy('c.id'),
  );
  return rows.map((row) => camelRow(row));
}

export { ERASED_NAME } from '../../kernel/privacy';

/**
 * Empties a contact of everything that identified them (name, phone, email, cédula, where they
 * live, what they said they care about) and marks it erased; the row stays with its channel
 * consent flags so opt-out figures hold and the records pointing at it keep a referent.
 */
export async function eraseContact(q: Queries, contactId: string, at: Date): Promise<number> {
  const result = await q.write(
    db
      .updateTable('contacts')
      .set({
        identity_key: `erased:${contactId}`,
        name: ERASED_NAME,
        phone: null,
        email: null,
        document_id: null,
        territory_id: null,
        neighbourhood: null,
        interests: [],
        tags: [],
        erased_at: at,
        updated_at: at,
      })
      .where('id', '=', contactId)
      .where('erased_at', 'is', null),
  );
  return result.count;
}

/**
 * Keeps a contact's consent records as proof of what was agreed and withdrawn, when, how and to
 * which text, minus what could point back at the person: the IP's hash, the browser, their words.
 */
export async function anonymiseConsents(q: Queries, contactId: string): Promise<number> {
  const result = await q.write(db.updateTable('consents').set({ ip_hash: null, user_agent: null, evidence: null }).where('contact_id', '=', contactId));
  return result.count;
}

export type AuditRecord = CamelCased<Selectable<AudienceTables['audience_audit']>>;

/** An audit entry to write: the record but its id. */
export type AuditEntry = Omit<AuditRecord, 'id'>;

export async function insertAudit(q: Queries, entry: AuditEntry): Promise<void> {
  await q.write(db.insertInto('audience_audit').values({ id: newId(), ...snakeRow(entry) }));
}

export interface AuditFilter {
  contactId?: string | undefined;
  action?: AuditAction | undefined;
}

/** The audit, newest first, a page at a time. */
export async function auditPage(q: Queries, filter: AuditFilter, page: PageRequest): Promise<Page<AuditRecord>> {
  let query = db.selectFrom('audience_audit').selectAll();
  if (filter.contactId) query = query.where('contact_id', '=', filter.contactId);
  if (filter.action) query = query.where('action', '=', filter.action);
  const found = await queryPage(q, query, ['at', 'id'], 'desc', page);
  return mapPage(found, (row) => camelRow(row));
}

/** Contacts placed in a territory (erased and merged-away ones too: their rows still point at it). */
export const audienceTerritoryReferences: TerritoryReferenceHolder = async (q, territoryId) => {
  const row = await q.first(
    db
      .selectFrom('contacts')
      .select((row) => row.cast<number>(row.fn.countAll(), 'integer').as('contacts'))
      .where('territory_id', '=', territoryId),
  );
  return [{ count: row?.contacts ?? 0, one: 'contacto', many: 'contactos' }];
};
