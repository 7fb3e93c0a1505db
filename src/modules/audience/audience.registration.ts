import { newId } from '../../kernel/ids';
import { sql, type Queries } from '../../kernel/sql';
import { identityKey, type ConsentProof, type Origin } from './audience.contacts';
import type { ContactRecord } from './audience.repository';

/** A person the campaign's staff register (a volunteer, say): who they are, nothing they agreed to. */
export type RegisteredPerson = Pick<ContactRecord, 'name' | 'phone' | 'email' | 'documentId' | 'territoryId'>;

/** Channel consent given with the registration, with its proof; without it no channel opens. */
export type ChannelConsent = Pick<ContactRecord, 'whatsappOptIn' | 'emailOptIn'> & { proof: ConsentProof };

/**
 * Finds the contact holding this person's identity (phone, else email) or creates it, noting
 * where they came from, in one statement. Fields given fill or replace the contact's; channels
 * open only with `consent` (then a consent record keeps its proof), so registering someone never
 * re-opens a channel they closed. `created` says whether the contact is new.
 */
export async function registerContact(q: Queries, person: RegisteredPerson, origin: Origin, consent: ChannelConsent | null): Promise<{ id: string; created: boolean }> {
  const whatsapp = Boolean(consent?.whatsappOptIn && person.phone);
  const email = Boolean(consent?.emailOptIn && person.email);
  const row = await q.first(sql<{ id: string; created: boolean }>`
    with contact as (
      insert into contacts as k (id, identity_key, name, phone, email, document_id, territory_id, interests, whatsapp_opt_in, email_opt_in, created_at, updated_at)
      values (${newId()}, ${identityKey(person)}, ${person.name}, ${person.phone}, ${person.email}, ${person.documentId}, ${person.territoryId},
        '{}'::text[], ${whatsapp}, ${email}, now(), now())
      on conflict (identity_key) do update set
        name = excluded.name,
        phone = coalesce(excluded.phone, k.phone),
        email = coalesce(excluded.email, k.email),
        document_id = coalesce(excluded.document_id, k.document_id),
        territory_id = coalesce(excluded.territory_id, k.territory_id),
        whatsapp_opt_in = k.whatsapp_opt_in or excluded.whatsapp_opt_in,
        whatsapp_opted_out_at = case when excluded.whatsapp_opt_in then null else k.whatsapp_opted_out_at end,
        email_opt_in = k.email_opt_in or excluded.email_opt_in,
        email_opted_out_at = case when excluded.email_opt_in then null else k.email_opted_out_at end,
        updated_at = excluded.updated_at
      returning id, (xmax = 0) as created
    ),
    origin as (
      insert into contact_origins (contact_id, kind, ref_id, first_seen_at)
      select id, ${origin.kind}, ${origin.refId}, now() from contact on conflict do nothing
    ),
    consent as (
      insert into consents (id, contact_id, text_id, action, source, source_ref, whatsapp_opt_in, email_opt_in, ip_hash, user_agent, given_at)
      select ${newId()}, id, ${consent?.proof.textId ?? null}::uuid, 'given', ${consent?.proof.source ?? ''}, ${consent?.proof.sourceRef ?? null}::uuid,
        ${whatsapp}, ${email}, ${consent?.proof.ipHash ?? null}, ${consent?.proof.userAgent ?? null}, now()
      from contact where ${consent !== null}
    )
    select id, created from contact`);
  return row!;
}
