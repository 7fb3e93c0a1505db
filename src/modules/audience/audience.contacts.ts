import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { newId } from '../../kernel/ids';
import { sql, type Sql } from '../../kernel/sql';

/** E.164 (`+573001234567`) or undefined when the number is not a valid one. */
export function normalisePhone(raw: string, defaultRegion: CountryCode = 'CO'): string | undefined {
  const parsed = parsePhoneNumberFromString(raw, defaultRegion);
  return parsed?.isValid() ? parsed.number : undefined;
}

/** A contact's identity: the phone when there is one, otherwise the email. */
export function identityKey(person: { phone?: string | null; email?: string | null }): string {
  if (person.phone) return `tel:${person.phone}`;
  if (person.email) return `mail:${person.email.toLowerCase()}`;
  throw new Error('A contact needs a phone or an email');
}

/** Stores a consent text once (by content) and returns its id, to reference from consent records. */
export async function ensureConsentText(em: EntityManager, text: string, privacyPolicyUrl: string | null): Promise<string> {
  const sha256 = createHash('sha256').update(`${text}\n${privacyPolicyUrl ?? ''}`).digest('hex');
  const rows = await em.execute<{ id: string }[]>(
    `insert into consent_texts (id, sha256, text, privacy_policy_url, created_at) values (?, ?, ?, ?, now())
     on conflict (sha256) do update set sha256 = excluded.sha256 returning id`,
    [newId(), sha256, text, privacyPolicyUrl],
  );
  return rows[0]!.id;
}

export interface CapturedPerson {
  name: string;
  phone: string | null;
  email: string | null;
  documentId: string | null;
  territoryId: string | null;
  neighbourhood: string | null;
  interests: string[];
  whatsappOptIn: boolean;
  emailOptIn: boolean;
}

export interface ConsentProof {
  textId: string;
  source: string;
  sourceRef: string | null;
  ipHash: string | null;
  userAgent: string | null;
}

/** Where a person arrived from (a QR campaign, a WhatsApp conversation…), kept once per source. */
export interface Origin {
  kind: string;
  refId: string;
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
 */
export function arrivingContact<Row>(
  arrival: { person: CapturedPerson; origin: Origin; proof: ConsentProof },
  then: { ctes: Sql<unknown>; select: Sql<Row> },
): Sql<Row> {
  const { person, origin, proof } = arrival;
  return sql<Row>`with contact as (
      insert into contacts as k (id, identity_key, name, phone, email, document_id, territory_id, neighbourhood, interests,
        whatsapp_opt_in, email_opt_in, created_at, updated_at)
      values (${newId()}, ${identityKey(person)}, ${person.name}, ${person.phone}, ${person.email}, ${person.documentId}, ${person.territoryId},
        ${person.neighbourhood}, ${person.interests}::text[], ${person.whatsappOptIn}, ${person.emailOptIn}, now(), now())
      on conflict (identity_key) do update set
        name = excluded.name,
        phone = coalesce(excluded.phone, k.phone),
        email = coalesce(excluded.email, k.email),
        document_id = coalesce(excluded.document_id, k.document_id),
        territory_id = coalesce(excluded.territory_id, k.territory_id),
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
      insert into consents (id, contact_id, text_id, source, source_ref, whatsapp_opt_in, email_opt_in, ip_hash, user_agent, given_at)
      select ${newId()}, id, ${proof.textId}, ${proof.source}, ${proof.sourceRef}, ${person.whatsappOptIn}, ${person.emailOptIn},
        ${proof.ipHash}, ${proof.userAgent}, now() from contact
    )
    ${then.select}`;
}
