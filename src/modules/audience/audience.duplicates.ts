import { z } from 'zod';
import { instant } from '../../kernel/schemas';
import type { Actor } from '../../kernel/auth/roles';
import { invalidField, NotFoundError } from '../../kernel/errors';
import { pageQueryShape } from '../../kernel/pagination';
import type { AppDeps } from '../../kernel/context';
import { repeatEvery, type BackgroundTask } from '../../kernel/module';
import type { Database, Queries } from '../../kernel/sql';
import { catchUpDuplicates, DUPLICATE_REASONS, duplicatePairs, heldContactIds, insertDismissal, type DuplicatePairRow } from './audience.duplicates.repository';

export const listDuplicatesQuery = z.object({
  ...pageQueryShape,
  /** Only the pairs this contact is in (a contact's page: "possible duplicates"). */
  contactId: z.uuid().optional(),
});
export type ListDuplicatesInput = z.infer<typeof listDuplicatesQuery>;

const candidate = z.object({
  id: z.uuid(),
  name: z.string(),
  /** `+57•••••4567`: the country code and last four digits. */
  phone: z.string().nullable(),
  /** `a•••@example.org`: the first character and the domain. */
  email: z.string().nullable(),
  territoryId: z.uuid().nullable(),
  createdAt: instant,
});

export const duplicatePairView = z
  .object({
    /** The two contacts, the older id first. */
    contacts: z.tuple([candidate, candidate]),
    /** Every reason that holds, strongest first. */
    reasons: z.array(z.enum(DUPLICATE_REASONS)).min(1),
    /** 0–1: 1 − ∏(1 − wᵢ) over the reasons (same_document .9, same_phone_digits .8, same_name_territory .7, same_email .6, similar_name .5 × similarity). */
    score: z.number().min(0).max(1),
    /** pg_trgm similarity of the two names, lower-cased and without accents (0–1). */
    nameSimilarity: z.number().min(0).max(1),
  })
  .meta({ id: 'DuplicatePair' });

export const dismissalBody = z
  .object({
    /** The two contacts that are different people, in any order. */
    contactIds: z.tuple([z.uuid(), z.uuid()]),
  })
  .refine((body) => body.contactIds[0] !== body.contactIds[1], { message: 'Give two different contacts.', path: ['contactIds'] })
  .meta({ id: 'DuplicateDismissalRequest' });

export const dismissalView = z
  .object({
    /** The smaller id first. */
    contactIds: z.tuple([z.uuid(), z.uuid()]),
    dismissedBy: z.uuid(),
    dismissedAt: instant,
  })
  .meta({ id: 'DuplicateDismissal' });

/** `+573001234567` → `+57•••••4567`: enough to tell two numbers apart on a screen, not to call. */
export function maskPhone(phone: string | null): string | null {
  if (!phone) return null;
  const digits = phone.replace(/\D/g, '');
  const country = phone.startsWith('+') && digits.length > 10 ? `+${digits.slice(0, digits.length - 10)}` : '';
  return `${country}•••••${digits.slice(-4)}`;
}

/** `ana.rojas@example.org` → `a•••@example.org`. */
export function maskEmail(email: string | null): string | null {
  if (!email) return null;
  const at = email.lastIndexOf('@');
  return at > 0 ? `${email[0]}•••${email.slice(at)}` : '•••';
}

function presentPair(row: DuplicatePairRow): z.input<typeof duplicatePairView> {
  const side = (prefix: 'a' | 'b') => ({
    id: row[`contact_${prefix}_id`],
    name: row[`${prefix}_name`],
    phone: maskPhone(row[`${prefix}_phone`]),
    email: maskEmail(row[`${prefix}_email`]),
    territoryId: row[`${prefix}_territory_id`],
    createdAt: row[`${prefix}_created_at`].toISOString(),
  });
  return { contacts: [side('a'), side('b')], reasons: row.reasons, score: Number(row.score), nameSimilarity: Math.round(row.name_similarity * 1000) / 1000 };
}

function decodeCursor(cursor: string): { score: string; a: string; b: string } {
  try {
    const [score, a, b] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    if (typeof score !== 'string' || !/^[01]\.\d{3}$/.test(score) || typeof a !== 'string' || typeof b !== 'string' || !uuid.test(a) || !uuid.test(b)) throw new Error('shape');
    return { score, a, b };
  } catch {
    throw invalidField('query.cursor', 'The cursor is not one this list gave out.');
  }
}

/**
 * Pairs of contacts that may be one person, best first, a page at a time (dismissed pairs and
 * erased or merged-away contacts never appear). The pairs are kept as contacts change: what was
 * written before this call is taken in first (usually nothing, the workers keep up; after a large
 * import, the contacts it wrote), so the list reflects every committed write.
 */
export async function listDuplicates(database: Database, query: ListDuplicatesInput) {
  await catchUpDuplicates(database, { wait: true });
  const rows = await duplicatePairs(database, { contactId: query.contactId }, query.limit + 1, query.cursor ? decodeCursor(query.cursor) : undefined);
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    data: page.map(presentPair),
    nextCursor: rows.length > query.limit && last ? Buffer.from(JSON.stringify([last.score, last.contact_a_id, last.contact_b_id])).toString('base64url') : null,
  };
}

/** How often each worker takes in the contacts written since the duplicate finder last looked. */
export const DUPLICATES_CATCH_UP_MS = 2_000;

/**
 * The beat each worker runs: the finder's pairs follow the contacts within seconds of a write,
 * so a list request seldom has anything to take in first. A worker finding another process at
 * it skips the beat.
 */
export function startDuplicatesCatchUp(deps: Pick<AppDeps, 'db' | 'logger'>): BackgroundTask {
  return repeatEvery(deps.logger, 'audience.duplicates', DUPLICATES_CATCH_UP_MS, async () => {
    const started = performance.now();
    const done = await catchUpDuplicates(deps.db, { wait: false });
    if (done && (done.everything || done.contacts >= 1000)) {
      deps.logger.info({ ...done, ms: Math.round(performance.now() - started) }, 'duplicate pairs caught up');
    }
  });
}

/** Staff say two contacts are different people: the pair stops appearing among the duplicates. Saying it again changes nothing. */
export async function dismissDuplicate(q: Queries, actor: Actor, ids: readonly [string, string]): Promise<z.input<typeof dismissalView>> {
  // Lower case, as PostgreSQL writes a uuid: the pair is kept smaller id first, and that order is the text's.
  const pair = ids.map((id) => id.toLowerCase());
  const held = await heldContactIds(q, pair);
  const missing = pair.filter((id) => !held.has(id));
  if (missing.length) throw new NotFoundError(`No contact has id ${missing.join(' or ')}, or their data was erased, or it was merged into another.`);
  const [a, b] = pair.sort() as [string, string];
  const row = await insertDismissal(q, a, b, actor.id, new Date());
  return { contactIds: [row.contactAId, row.contactBId], dismissedBy: row.dismissedBy, dismissedAt: row.dismissedAt.toISOString() };
}
