import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { snakeRow, type CamelCased } from '../../kernel/rows';
import { sql, type Queries, tables } from '../../kernel/sql';
import type { ContactSchema } from './audience.entities';
import type { ContactImportSchema } from './audience.merge.entities';
import { CONTACT_FIELDS } from './audience.merge.repository';
import type { ContactRow } from './audience.repository';

type ImportTables = InferKyselyDB<typeof ContactImportSchema | typeof ContactSchema>;
const db = tables<ImportTables>();

/** A held contact as an import compares a row with it. */
export type KnownContact = Pick<ContactRow, 'id' | Exclude<(typeof CONTACT_FIELDS)[number], 'updated_at'>>;

const KNOWN = sql`${sql.raw(['id', ...CONTACT_FIELDS.filter((field) => field !== 'updated_at')].join(', '))}`;

/** How many keys one look-up statement binds. */
const LOOKUP_CHUNK = 5000;

async function chunked<T, R>(values: readonly T[], each: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  const found: R[] = [];
  for (let from = 0; from < values.length; from += LOOKUP_CHUNK) found.push(...(await each(values.slice(from, from + LOOKUP_CHUNK))));
  return found;
}

/**
 * The held contacts with these identity keys (`tel:+57…`, `mail:…`; erased and merged-away records
 * have other keys), locked for the rest of the transaction when `lock` (an import that writes).
 */
export function contactsByIdentity(q: Queries, keys: readonly string[], lock: boolean): Promise<KnownContact[]> {
  return chunked(keys, (chunk) =>
    q.rows(sql<KnownContact>`select ${KNOWN} from contacts where identity_key = any(${chunk}::text[]) order by id ${lock ? sql`for update` : sql``}`),
  );
}

/** Held contacts holding these (lower-cased) emails, whatever their identity; locked when `lock`. */
export function contactsByEmail(q: Queries, emails: readonly string[], lock: boolean): Promise<KnownContact[]> {
  return chunked(emails, (chunk) =>
    q.rows(sql<KnownContact>`
      select ${KNOWN} from contacts where email = any(${chunk}::text[]) and erased_at is null and merged_into_id is null order by id ${lock ? sql`for update` : sql``}`),
  );
}

/** Which held contacts carry each of these cédulas. */
export async function documentOwners(q: Queries, documentIds: readonly string[]): Promise<Map<string, string[]>> {
  const rows = await chunked(documentIds, (chunk) =>
    q.rows(
      db
        .selectFrom('contacts')
        .select(['id', 'document_id'])
        .where('document_id', '=', (contact) => contact.fn.any(contact.val(chunk)))
        .where('erased_at', 'is', null)
        .where('merged_into_id', 'is', null)
        .orderBy('id')
        .$narrowType<{ document_id: string }>(),
    ),
  );
  const owners = new Map<string, string[]>();
  for (const row of rows) owners.set(row.document_id, [...(owners.get(row.document_id) ?? []), row.id]);
  return owners;
}

/** A contact as an import writes it: the values it will hold. */
export type ImportedContact = Pick<
  ContactRow,
  'id' | 'identity_key' | 'name' | 'phone' | 'email' | 'document_id' | 'territory_id' | 'neighbourhood' | 'interests' | 'tags' | 'whatsapp_opt_in' | 'email_opt_in'
>;

const IMPORTED_COLUMNS = sql`x(id uuid, identity_key text, name text, phone text, email text, document_id text, territory_id uuid, neighbourhood text,
  interests text[], tags text[], whatsapp_opt_in boolean, email_opt_in boolean)`;

/** How many contacts one write statement carries (as one JSON parameter). */
export const WRITE_CHUNK = 1000;

/** New contacts; the ids written (an identity another request created since the file was read is not written again). */
export async function insertContacts(q: Queries, contacts: readonly ImportedContact[], at: Date): Promise<string[]> {
  const written: string[] = [];
  for (let from = 0; from < contacts.length; from += WRITE_CHUNK) {
    const result = await q.write(sql<{ id: string }>`
      insert into contacts (id, identity_key, name, phone, email, document_id, territory_id, neighbourhood, interests, tags, whatsapp_opt_in, email_opt_in, created_at, updated_at)
      select x.id, x.identity_key, x.name, x.phone, x.email, x.document_id, x.territory_id, x.neighbourhood, x.interests, x.tags, x.whatsapp_opt_in, x.email_opt_in,
        ${at}::timestamptz, ${at}::timestamptz
      from jsonb_to_recordset(${JSON.stringify(contacts.slice(from, from + WRITE_CHUNK))}::jsonb) as ${IMPORTED_COLUMNS}
      on conflict (identity_key) do nothing returning id`);
    written.push(...result.rows.map((row) => row.id));
  }
  return written;
}

/** Matched contacts get the values the import computed for them (their rows are locked since they were read). */
export async function updateContacts(q: Queries, contacts: readonly ImportedContact[], at: Date): Promise<void> {
  for (let from = 0; from < contacts.length; from += WRITE_CHUNK) {
    await q.write(sql`
      update contacts c set identity_key = x.identity_key, name = x.name, phone = x.phone, email = x.email, document_id = x.document_id,
        territory_id = x.territory_id, neighbourhood = x.neighbourhood, interests = x.interests, tags = x.tags,
        whatsapp_opt_in = x.whatsapp_opt_in, email_opt_in = x.email_opt_in, updated_at = ${at}::timestamptz
      from jsonb_to_recordset(${JSON.stringify(contacts.slice(from, from + WRITE_CHUNK))}::jsonb) as ${IMPORTED_COLUMNS}
      where c.id = x.id`);
  }
}

/** Every person of the file came from the import (`contact_origins` kind `import`). */
export async function insertImportOrigins(q: Queries, contactIds: readonly string[], importId: string, at: Date): Promise<void> {
  for (let from = 0; from < contactIds.length; from += WRITE_CHUNK) {
    await q.write(sql`
      insert into contact_origins (contact_id, kind, ref_id, first_seen_at)
      select id, 'import', ${importId}::uuid, ${at}::timestamptz from unnest(${contactIds.slice(from, from + WRITE_CHUNK)}::uuid[]) as id
      on conflict do nothing`);
  }
}

/** An import as kept. */
export type ImportRecord = CamelCased<Selectable<ImportTables['contact_imports']>>;

export async function insertImport(q: Queries, record: ImportRecord): Promise<void> {
  await q.write(db.insertInto('contact_imports').values(snakeRow(record)));
}
