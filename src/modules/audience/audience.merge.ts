import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { z } from 'zod';
import type { Actor } from '../../kernel/auth/roles';
import type { AppDeps } from '../../kernel/context';
import { ConflictError, invalidField, NotFoundError } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import { NO_PERSON_KEYS, repeatEvery, type BackgroundTask, type Erasure, type JsonValue, type MergeMoves, type PersonalDataSection } from '../../kernel/module';
import type { Queries } from '../../kernel/sql';
import { identityKey } from './audience.contacts';
import type { AuditCounts } from './audience.entities';
import type { MergeMoved } from './audience.merge.entities';
import {
  clearExpiredSnapshots,
  clearSnapshots,
  CONTACT_FIELDS,
  findMerge,
  insertMerge,
  latestConsentGiven,
  lockContacts,
  markUndone,
  mergeChain,
  mergesPage,
  moveConsents,
  moveOrigins,
  returnConsents,
  returnOrigins,
  tombstone,
  contactJson,
  writeContactFields,
  writeContactJson,
  type ContactFields,
  type ContactJson,
  type LockedContact,
  type MergeView,
  type OriginRow,
} from './audience.merge.repository';
import type { ListMergesInput, mergeView } from './audience.merge.schemas';
import { anonymiseConsents, eraseContact, insertAudit } from './audience.repository';
import { mapPage } from '../../kernel/pagination';

/** How long a merge can be undone; its snapshot (personal data) is cleared once it ends. */
export const UNDO_WINDOW_MS = 24 * 60 * 60 * 1000;
/** How often each worker clears the snapshots of merges past their undo window. */
export const SNAPSHOT_SWEEP_MS = 10 * 60 * 1000;

type MergeDeps = Pick<AppDeps, 'db' | 'personalData' | 'logger'>;

/** What a merge keeps to undo itself: both records before, the survivor after, and each module's part. Personal data. */
interface Snapshot {
  into: ContactJson;
  from: ContactJson;
  intoAfter: ContactJson;
  droppedOrigins: { kind: string; ref_id: string; first_seen_at: string }[];
  modules: Record<string, { [key: string]: JsonValue }>;
}

/** The combinable columns of a contact's JSON. */
const fieldsOf = (json: ContactJson): ContactJson => Object.fromEntries(CONTACT_FIELDS.map((field) => [field, json[field] ?? null]));

const same = (a: JsonValue | undefined, b: JsonValue | undefined): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const latest = (dates: (Date | null | undefined)[]): Date | null => dates.reduce<Date | null>((max, date) => (date && (!max || date > max) ? date : max), null);
const union = (a: readonly string[], b: readonly string[]) => [...new Set([...a, ...b])];

type ChannelColumns = { optIn: 'whatsapp_opt_in' | 'email_opt_in'; optedOut: 'whatsapp_opted_out_at' | 'email_opted_out_at' };
const CHANNEL: Record<'whatsapp' | 'email', ChannelColumns & { address: (row: ContactFields) => string | null }> = {
  whatsapp: { optIn: 'whatsapp_opt_in', optedOut: 'whatsapp_opted_out_at', address: (row) => row.phone },
  email: { optIn: 'email_opt_in', optedOut: 'email_opted_out_at', address: (row) => row.email?.toLowerCase() ?? null },
};

/**
 * A channel of the merged person. Its address is the survivor's, or the other record's when the
 * survivor had none; the records holding that address decide: the channel is open when one of
 * them opened it, and stays withdrawn when the latest withdrawal came after the latest consent
 * that opened it (the withdrawal then holds for the person, whichever record it was given on).
 */
function channelOf(
  channel: 'whatsapp' | 'email',
  merged: { phone: string | null; email: string | null },
  records: LockedContact[],
  given: Map<string, { whatsapp: Date | null; email: Date | null }>,
) {
  const { optIn, optedOut, address } = CHANNEL[channel];
  const target = channel === 'whatsapp' ? merged.phone : (merged.email?.toLowerCase() ?? null);
  const holders = target ? records.filter((record) => address(record) === target) : [];
  if (!holders.length) return { [optIn]: records[0]![optIn], [optedOut]: records[0]![optedOut] };
  const withdrawn = latest(holders.map((record) => record[optedOut]));
  const consented = latest(holders.map((record) => given.get(record.id)?.[channel]));
  return { [optIn]: holders.some((record) => record[optIn]), [optedOut]: withdrawn && (!consented || withdrawn >= consented) ? withdrawn : null };
}

/** The survivor after the merge: its own values, its empty ones filled from the other record, interests and tags joined, each channel decided by `channelOf`. */
function combine(into: LockedContact, from: LockedContact, given: Map<string, { whatsapp: Date | null; email: Date | null }>, at: Date): ContactFields {
  const phone = into.phone ?? from.phone;
  const email = into.email ?? from.email;
  return {
    // The survivor's identity stays, unless it had no phone and takes the other's: a phone is the identity when there is one.
    identity_key: into.phone || !phone ? into.identity_key : identityKey({ phone, email }),
    name: into.name,
    phone,
    email,
    document_id: into.document_id ?? from.document_id,
    territory_id: into.territory_id ?? from.territory_id,
    neighbourhood: into.neighbourhood ?? from.neighbourhood,
    interests: union(into.interests, from.interests),
    tags: union(into.tags, from.tags),
    ...(channelOf('whatsapp', { phone, email }, [into, from], given) as Pick<ContactFields, 'whatsapp_opt_in' | 'whatsapp_opted_out_at'>),
    ...(channelOf('email', { phone, email }, [into, from], given) as Pick<ContactFields, 'email_opt_in' | 'email_opted_out_at'>),
    updated_at: at,
  };
}

/** One of the pair, checked: held, or why not (404 unknown or erased, 409 merged away already). */
function held(locked: LockedContact[], id: string, which: string): LockedContact {
  const row = locked.find((contact) => contact.id === id);
  if (!row || row.erased_at) throw new NotFoundError(`No contact has the id given as ${which} (${id}), or their data was erased.`);
  if (row.merged_into_id) throw new ConflictError(`The contact given as ${which} (${id}) was merged into ${row.merged_into_id} already.`, 'contact_merged');
  return row;
}

const countMoves = (moves: MergeMoves): Record<string, number> => ({
  ...Object.fromEntries(Object.entries(moves.moved).map(([table, ids]) => [table, ids.length])),
  ...moves.combined,
});

/**
 * Makes two records of one person one (`fromId` into `intoId`), in one transaction with both
 * contacts locked in id order: every consent record of the other moves to the survivor unchanged,
 * its origins join the survivor's, every module moves its rows (`personalData.merge`: combining or
 * refusing where its unique rules say so), the survivor's empty fields are filled from the other
 * and interests and tags joined, and the other is left a tombstone pointing at the survivor.
 * Kept for `UNDO_WINDOW_MS` with everything needed to split them again; audited with counts only.
 */
export async function mergeContacts(deps: MergeDeps, actor: Actor, intoId: string, fromId: string): Promise<z.input<typeof mergeView>> {
  if (intoId === fromId) throw invalidField('body.from', 'A contact cannot be merged into itself.', 'same_contact');
  const id = newId();
  const row = await deps.db.transaction(async (tx) => {
    const locked = await lockContacts(tx, [intoId, fromId]);
    const into = held(locked, intoId, 'the survivor (path)');
    const from = held(locked, fromId, '`from`');
    const at = new Date();
    const given = await latestConsentGiven(tx, [intoId, fromId]);
    const merged = combine(into, from, given, at);

    const consents = await moveConsents(tx, fromId, intoId);
    const origins = await moveOrigins(tx, fromId, intoId);
    const moved: MergeMoved = { audience: { consents, contact_origins: origins.moved } };
    const counts: AuditCounts = { audience: { consents: consents.length, origins: origins.moved.length, originsShared: origins.dropped.length } };
    const modules: Snapshot['modules'] = {};
    for (const section of deps.personalData) {
      if (!section.merge) continue;
      const moves = await section.merge(tx, fromId, intoId);
      // Audience has a section of its own (staff notes): added to what the service moved, not over it.
      moved[section.module] = { ...moved[section.module], ...moves.moved };
      counts[section.module] = { ...counts[section.module], ...countMoves(moves) };
      if (moves.undo) modules[section.module] = moves.undo;
    }
    // The other record's identity is freed before the survivor may take its phone.
    await tombstone(tx, fromId, intoId, at);
    await writeContactFields(tx, intoId, merged);

    const snapshot: Snapshot = {
      into: fieldsOf(into.json),
      from: fieldsOf(from.json),
      intoAfter: fieldsOf(await contactJson(tx, intoId)),
      droppedOrigins: origins.dropped.map((origin) => ({ kind: origin.kind, ref_id: origin.ref_id, first_seen_at: origin.first_seen_at.toISOString() })),
      modules,
    };
    await insertMerge(tx, {
      id,
      intoContactId: intoId,
      fromContactId: fromId,
      mergedBy: actor.id,
      mergedAt: at,
      undoUntil: new Date(at.getTime() + UNDO_WINDOW_MS),
      moved,
      counts,
      snapshot: snapshot as never,
    });
    for (const contactId of [intoId, fromId]) await insertAudit(tx, { actorId: actor.id, action: 'merge', contactId, detail: id, counts, at });
    return (await findMerge(tx, id))!;
  });
  deps.logger.info({ mergeId: id, intoId, fromId, actorId: actor.id, counts: row.counts }, 'contacts merged');
  return presentMerge(row);
}

/**
 * The survivor as it was before the merge, field by field where it still holds what the merge
 * wrote; a field changed since keeps its new value (interests and tags drop only what the merge
 * added). Its identity follows its phone and email; its time of change goes back only when
 * everything did.
 */
function restoredSurvivor(current: ContactJson, before: ContactJson, after: ContactJson, now: Date): ContactJson {
  let untouched = true;
  const restored: ContactJson = fieldsOf(current);
  for (const field of CONTACT_FIELDS) {
    if (field === 'identity_key' || field === 'updated_at') continue;
    if (same(current[field], after[field])) restored[field] = before[field] ?? null;
    else if (field === 'interests' || field === 'tags') {
      const added = (after[field] as string[]).filter((item) => !(before[field] as string[]).includes(item));
      restored[field] = (current[field] as string[]).filter((item) => !added.includes(item));
      untouched = false;
    } else untouched = false;
  }
  const addresses = same(restored.phone, before.phone) && same(restored.email, before.email);
  const phone = restored.phone as string | null;
  const email = restored.email as string | null;
  restored.identity_key = addresses ? before.identity_key! : phone || email ? identityKey({ phone, email }) : current.identity_key!;
  restored.updated_at = untouched && addresses ? before.updated_at! : now.toISOString();
  return restored;
}

const UNDO_WINDOW_HOURS = UNDO_WINDOW_MS / 3_600_000;

/**
 * Splits a merge within its undo window: every module puts back exactly the rows it moved and
 * splits what it combined (`personalData.unmerge`, in reverse order), the consent records and
 * origins return, the merged-away record gets its values back and the survivor its own (where
 * nothing changed them since). One transaction, the merge row and both contacts locked; audited.
 */
export async function undoMerge(deps: MergeDeps, actor: Actor, mergeId: string): Promise<z.input<typeof mergeView>> {
  const row = await deps.db.transaction(async (tx) => {
    const merge = await findMerge(tx, mergeId, true);
    if (!merge) throw new NotFoundError('No merge has this id.');
    const now = new Date();
    if (merge.undoneAt) throw new ConflictError(`This merge was undone already, at ${merge.undoneAt.toISOString()}.`, 'merge_undone');
    if (merge.snapshotClearedReason === 'erasure') {
      throw new ConflictError('The person’s data was erased after this merge: nothing is kept to split the records again.', 'merge_erased');
    }
    if (merge.undoUntil <= now || !merge.snapshot) {
      throw new ConflictError(
        `A merge can be undone for ${UNDO_WINDOW_HOURS} hours; this one's window ended at ${merge.undoUntil.toISOString()}, and what it kept to split the records is gone.`,
        'undo_window_passed',
      );
    }
    const locked = await lockContacts(tx, [merge.intoContactId, merge.fromContactId]);
    const into = locked.find((contact) => contact.id === merge.intoContactId)!;
    const from = locked.find((contact) => contact.id === merge.fromContactId)!;
    if (into.merged_into_id) {
      throw new ConflictError(`The survivor was merged into ${into.merged_into_id} since: undo that merge first.`, 'survivor_merged');
    }
    const snapshot = merge.snapshot as unknown as Snapshot;
    const moved = merge.moved;
    for (const section of [...deps.personalData].reverse()) {
      const moves = moved[section.module];
      if (!section.unmerge || !moves) continue;
      await section.unmerge(tx, { moved: moves, undo: snapshot.modules[section.module] ?? {} }, from.id, into.id);
    }
    const audience = moved.audience ?? {};
    await returnConsents(tx, audience.consents ?? [], from.id, into.id);
    const dropped: OriginRow[] = snapshot.droppedOrigins.map((origin) => ({ kind: origin.kind, ref_id: origin.ref_id, first_seen_at: new Date(origin.first_seen_at) }));
    await returnOrigins(tx, audience.contact_origins ?? [], dropped, from.id, into.id);

    try {
      // The survivor first: it may give back the phone the other record's identity takes again.
      await writeContactJson(tx, into.id, restoredSurvivor(into.json, snapshot.into, snapshot.intoAfter, now));
      await writeContactJson(tx, from.id, snapshot.from, { held: true });
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) {
        throw new ConflictError(
          'Another contact holds the merged-away record’s phone or email now (it arrived again since the merge): merge or fix that contact first.',
          'identity_taken',
        );
      }
      throw error;
    }
    await markUndone(tx, merge.id, actor.id, now);
    for (const contactId of [into.id, from.id]) {
      await insertAudit(tx, { actorId: actor.id, action: 'merge_undo', contactId, detail: merge.id, counts: merge.counts, at: now });
    }
    return (await findMerge(tx, merge.id))!;
  });
  deps.logger.info({ mergeId, actorId: actor.id }, 'merge undone');
  return presentMerge(row);
}

function statusOf(merge: MergeView, now: Date): z.input<typeof mergeView>['status'] {
  if (merge.undoneAt) return 'undone';
  if (merge.snapshotClearedReason === 'erasure') return 'erased';
  return merge.snapshot && merge.undoUntil > now ? 'undoable' : 'expired';
}

export function presentMerge(merge: MergeView, now = new Date()): z.input<typeof mergeView> {
  // The merged-away record's name as the snapshot keeps it, gone with the snapshot; once undone, its own name again.
  const fromName = (merge.snapshot as unknown as Snapshot | null)?.from.name ?? merge.fromNameNow;
  return {
    id: merge.id,
    intoContactId: merge.intoContactId,
    intoName: merge.intoName,
    fromContactId: merge.fromContactId,
    fromName: typeof fromName === 'string' ? fromName : null,
    mergedAt: merge.mergedAt.toISOString(),
    mergedBy: merge.mergedBy,
    undoUntil: merge.undoUntil.toISOString(),
    status: statusOf(merge, now),
    undoneAt: merge.undoneAt?.toISOString() ?? null,
    undoneBy: merge.undoneBy,
    counts: merge.counts,
  };
}

/** Recent merges, newest first, a page at a time. */
export async function listMerges(q: Queries, query: ListMergesInput) {
  const page = await mergesPage(q, { contactId: query.contactId }, query);
  return mapPage(page, (merge) => presentMerge(merge));
}

/** Clears what merges past their undo window kept about people; how many. */
export async function purgeMergeSnapshots(q: Queries, now = new Date()): Promise<number> {
  let total = 0;
  for (;;) {
    const cleared = await clearExpiredSnapshots(q, now);
    total += cleared;
    if (cleared < 500) return total;
  }
}

/** The sweep each worker runs: merges' snapshots are personal data, kept no longer than their undo window. */
export function startMergeSweep(deps: Pick<AppDeps, 'db' | 'logger'>): BackgroundTask {
  return repeatEvery(deps.logger, 'audience.merge-snapshots', SNAPSHOT_SWEEP_MS, async () => {
    const cleared = await purgeMergeSnapshots(deps.db);
    if (cleared) deps.logger.info({ cleared }, 'merge snapshots past their undo window cleared');
  });
}

/**
 * A person's erasure reaches the records merged into them: each module erases what it still
 * holds on a merged-away record (a campaign message both records were sent), its consent records
 * are anonymised, the tombstone is marked erased, and the merges' snapshots are cleared, so
 * nothing kept for an undo outlives the erasure. Runs on the erasure's transaction; the counts
 * of the modules' parts are added to `counts`.
 */
export async function eraseMergedRecords(
  q: Queries,
  sections: readonly PersonalDataSection[],
  contactId: string,
  counts: AuditCounts,
  at: Date,
  erasureFor: (module: string) => Erasure,
): Promise<Record<string, number>> {
  const chain = await mergeChain(q, contactId);
  for (const merge of chain) {
    for (const section of sections) {
      const erased = await section.erase(q, merge.fromContactId, erasureFor(section.module));
      const into = (counts[section.module] ??= {});
      for (const [kind, n] of Object.entries(erased)) into[kind] = (into[kind] ?? 0) + n;
    }
    await anonymiseConsents(q, merge.fromContactId);
    await eraseContact(q, merge.fromContactId, at);
  }
  const cleared = await clearSnapshots(
    q,
    chain.map((merge) => merge.id),
    'erasure',
    at,
  );
  return { mergedRecordsErased: chain.length, mergeSnapshotsCleared: cleared };
}

/**
 * For a person's copy of their data: each record merged into them (directly or through another),
 * with what it was before the merge while the undo window keeps it, and what modules still hold
 * on it.
 */
export async function mergedRecordsOf(q: Queries, sections: readonly PersonalDataSection[], contactId: string) {
  const chain = await mergeChain(q, contactId);
  const records = [];
  for (const merge of chain) {
    const modules: Record<string, Record<string, JsonValue>> = {};
    // The person's identifiers were exported with their own record; a merged-away record adds only what points at it.
    for (const section of sections) modules[section.module] = await section.export(q, merge.fromContactId, NO_PERSON_KEYS);
    const before = (merge.snapshot as unknown as Snapshot | null)?.from ?? null;
    records.push({ mergeId: merge.id, contactId: merge.fromContactId, mergedAt: merge.mergedAt.toISOString(), before, modules });
  }
  return records;
}
