import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { newId } from '../../kernel/ids';

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

export interface CteParts {
  /** Constant SQL text (so a statement built from it can be prepared once), `?` placeholders. */
  sql: string;
  params: (person: CapturedPerson, now: Date) => unknown[];
}

/**
 * CTEs `contact` (upsert by identity, returning id) and `origin`, to open a single statement
 * that records a person arriving from somewhere. The caller adds its own CTEs (a lead, say)
 * and then `CONSENT_CTE`. One statement is one round trip and atomic, and concurrent
 * submissions of the same person meet at the unique identity key instead of creating twins.
 *
 * On a repeat: fields given replace old ones, interests accumulate, and a channel opt-in given
 * now re-opens that channel (an unticked box is not an opt-out; opting out is explicit).
 * Every row is stamped with the statement's `now()`: one clock (the database's) for the contact,
 * its origin and the consent proof, and no timestamps to serialise and parse per capture.
 * Parameters: `contactUpsertParams(person, origin)`.
 */
export const CONTACT_UPSERT_CTES = `contact as (
      insert into contacts as k (id, identity_key, name, phone, email, document_id, territory_id, neighbourhood, interests,
        whatsapp_opt_in, email_opt_in, created_at, updated_at)
      values (?, ?, ?, ?, ?, ?, ?, ?, ?::text[], ?, ?, now(), now())
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
      select id, ?, ?, now() from contact on conflict do nothing
    )`;

export function contactUpsertParams(person: CapturedPerson, origin: { kind: string; refId: string }): unknown[] {
  return [
    newId(),
    identityKey(person),
    person.name,
    person.phone,
    person.email,
    person.documentId,
    person.territoryId,
    person.neighbourhood,
    person.interests,
    person.whatsappOptIn,
    person.emailOptIn,
    origin.kind,
    origin.refId,
  ];
}

/** The CTE recording consent for the `contact` of `CONTACT_UPSERT_CTES`, in the same statement. */
export const CONSENT_CTE = `consent as (
      insert into consents (id, contact_id, text_id, source, source_ref, whatsapp_opt_in, email_opt_in, ip_hash, user_agent, given_at)
      select ?, id, ?, ?, ?, ?, ?, ?, ?, now() from contact
    )`;

export function consentParams(person: CapturedPerson, proof: ConsentProof): unknown[] {
  return [newId(), proof.textId, proof.source, proof.sourceRef, person.whatsappOptIn, person.emailOptIn, proof.ipHash, proof.userAgent];
}
