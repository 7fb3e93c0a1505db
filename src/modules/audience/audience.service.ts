import type { z } from 'zod';
import type { Actor } from '../../kernel/auth/roles';
import type { AppDeps } from '../../kernel/context';
import { NotFoundError } from '../../kernel/errors';
import { clearFreeText, searchableName, type FreeTextMention } from '../../kernel/free-text';
import { safeErrorFields } from '../../kernel/http/problem';
import { NO_PERSON_KEYS, type Erasure, type JsonValue, type PersonKeys } from '../../kernel/module';
import type { Page } from '../../kernel/pagination';
import type { Database, Queries } from '../../kernel/sql';
import type { AuditCounts } from './audience.entities';
import { gatherPersonKeys, recordErasedIdentifiers } from './audience.erased';
import { eraseMergedRecords, mergedRecordsOf } from './audience.merge';
import {
  anonymiseConsents,
  auditPage,
  consentsOf,
  ensureConsentText,
  eraseContact,
  heldContact,
  insertAudit,
  insertConsentRecords,
  lockHeldContact,
  optOut,
  originsOf,
  type AuditRecord,
  type ContactSelector,
} from './audience.repository';
import type { auditEntryView, erasureView, ListAuditInput, PersonExport, withdrawalView } from './audience.schemas';
import type { Channel } from './audience.segments';
import { mapPage } from '../../kernel/pagination';

/** What each way of withdrawing says it is, stored once like every consent text. */
export const WITHDRAWAL_TEXTS = {
  whatsapp_stop: 'Solicitud de baja por WhatsApp: la persona respondió con una palabra de baja (BAJA, STOP…) y no recibirá más mensajes de WhatsApp de la campaña.',
  email_unsubscribe: 'Solicitud de baja: la persona pidió no recibir más correos de la campaña (enlace de cancelación de suscripción, RFC 8058).',
  staff: 'Baja registrada por el equipo de la campaña a pedido de la persona (Ley 1581 de 2012, art. 8: derecho a revocar la autorización).',
} as const;

export type WithdrawalSource = keyof typeof WITHDRAWAL_TEXTS;

/** How a withdrawal came, kept as its proof. */
export interface WithdrawalProof {
  source: WithdrawalSource;
  /** The message, campaign or user it came through. */
  sourceRef: string | null;
  /** What the person wrote or did: the reply's text, the link they used, a staff member's note. */
  evidence: string;
  ipHash?: string | null;
  userAgent?: string | null;
  at?: Date;
}

/**
 * Withdraws consent for one channel (Ley 1581 de 2012, art. 8 e and art. 9: revocation must be
 * as provable as the consent): every selected contact still reachable there is opted out, and a
 * `withdrawn` consent record keeps when, how, through what and the person's own words, with the
 * other channel's consent as it stands. A contact already opted out gets no second record.
 * Returns the ids of the contacts opted out now. Runs on the caller's transaction when given one.
 */
export async function withdrawConsent(q: Queries, selector: ContactSelector, channel: Channel, proof: WithdrawalProof): Promise<string[]> {
  const at = proof.at ?? new Date();
  const contacts = await optOut(q, selector, channel, at);
  if (!contacts.length) return [];
  const textId = await ensureConsentText(q, WITHDRAWAL_TEXTS[proof.source], null);
  await insertConsentRecords(
    q,
    contacts.map((contact) => ({
      contactId: contact.id,
      textId,
      action: 'withdrawn' as const,
      source: proof.source,
      sourceRef: proof.sourceRef,
      whatsappOptIn: channel === 'whatsapp' ? false : Boolean(contact.whatsapp),
      emailOptIn: channel === 'email' ? false : Boolean(contact.email),
      ipHash: proof.ipHash ?? null,
      userAgent: proof.userAgent ?? null,
      evidence: proof.evidence.slice(0, 500),
      at,
    })),
  );
  return contacts.map((contact) => contact.id);
}

const NO_SUCH_CONTACT = 'No contact has this id, or their data was erased.';

const iso = (at: Date | null): string | null => (at ? at.toISOString() : null);

/** How many items a module's section holds of each kind: a list counts its entries, anything else one. */
function countItems(section: Record<string, JsonValue>): Record<string, number> {
  return Object.fromEntries(Object.entries(section).map(([kind, value]) => [kind, Array.isArray(value) ? value.length : value === null ? 0 : 1]));
}

/**
 * Everything held about one person across every module (Ley 1581 de 2012, art. 8 a: the right to
 * know it): the contact, where they came from, each consent and withdrawal with the exact text,
 * and each module's section. Read in one transaction, which also records the audit entry.
 */
export async function exportPerson(deps: Pick<AppDeps, 'db' | 'personalData'>, actor: Actor, contactId: string): Promise<PersonExport> {
  return deps.db.transaction(async (tx) => {
    const contact = await heldContact(tx, contactId);
    if (!contact) throw new NotFoundError(NO_SUCH_CONTACT);
    const origins = await originsOf(tx, contactId);
    const consents = await consentsOf(tx, contactId);
    const keys = await gatherPersonKeys(tx, deps.personalData, contactId);
    const modules: Record<string, Record<string, JsonValue>> = {};
    for (const section of deps.personalData) modules[section.module] = await section.export(tx, contactId, keys);
    const merges = await mergedRecordsOf(tx, deps.personalData, contactId);
    const at = new Date();
    const counts: AuditCounts = { audience: { contacts: 1, origins: origins.length, consents: consents.length, mergedRecords: merges.length } };
    // The audience's own section (staff notes) adds to the contact's counts.
    for (const [module, section] of Object.entries(modules)) counts[module] = { ...counts[module], ...countItems(section) };
    await insertAudit(tx, { actorId: actor.id, action: 'export', contactId, detail: null, counts, at });
    return {
      exportedAt: at.toISOString(),
      contact: {
        ...contact,
        whatsappOptedOutAt: iso(contact.whatsappOptedOutAt),
        emailOptedOutAt: iso(contact.emailOptedOutAt),
        createdAt: contact.createdAt.toISOString(),
        updatedAt: contact.updatedAt.toISOString(),
      },
      origins: origins.map((origin) => ({ ...origin, firstSeenAt: origin.firstSeenAt.toISOString() })),
      consents: consents.map((consent) => ({
        id: consent.id,
        action: consent.action,
        source: consent.source,
        sourceRef: consent.sourceRef,
        whatsappOptIn: consent.whatsappOptIn,
        emailOptIn: consent.emailOptIn,
        ipHash: consent.ipHash,
        userAgent: consent.userAgent,
        evidence: consent.evidence,
        at: consent.givenAt.toISOString(),
        text: { id: consent.textId, sha256: consent.sha256, text: consent.text, privacyPolicyUrl: consent.privacyPolicyUrl },
      })),
      modules,
      merges,
    };
  });
}

type Retained = z.input<typeof erasureView>['retained'][number];

/** What each module's `erase` is handed: the person's keys, and where its after-commit work and retained rows go. */
function erasureFor(module: string, keys: PersonKeys, tasks: ((deps: AppDeps) => Promise<void>)[], retained: Retained[]): Erasure {
  return {
    keys,
    afterCommit: (task) => void tasks.push(task),
    retain: (kind, count, basis) => {
      if (count > 0) retained.push({ module, kind, count, basis });
    },
  };
}

/**
 * Suppresses one person's data in every module in one transaction (Ley 1581 de 2012, art. 8 e):
 * afterwards no table holds their name, phone, email or cédula, while every campaign figure
 * stays true, since each module keeps its rows' facts and drops only what identified them. Rows
 * are found by the contact they point at and by the person's identifiers (`PersonKeys`: a voter
 * imported by cédula, a login under their email), and the identifiers are kept as keyed hashes so
 * a list imported later cannot bring them back. What a law obliges a module to keep (the campaign's
 * books) stays and is listed in `retained` with its basis. Their consent records stay as proof,
 * minus what pointed back at them; the contact row stays, emptied and marked erased, so the
 * records that refer to it keep a referent. Records merged into the person are erased with them,
 * and their merges' snapshots cleared. Work outside the database (files, sessions) runs after commit.
 */
export async function erasePerson(deps: AppDeps, actor: Actor, contactId: string): Promise<z.input<typeof erasureView>> {
  const tasks: ((deps: AppDeps) => Promise<void>)[] = [];
  const result = await deps.db.transaction(async (tx) => {
    const retained: Retained[] = [];
    const contact = await lockHeldContact(tx, contactId);
    if (!contact) throw new NotFoundError(NO_SUCH_CONTACT);
    const keys = await gatherPersonKeys(tx, deps.personalData, contactId);
    const counts: AuditCounts = {};
    // Modules first: they may still read the person's addresses through the audience.
    for (const section of deps.personalData) counts[section.module] = await section.erase(tx, contactId, erasureFor(section.module, keys, tasks, retained));
    // Then what others wrote about them, with their own rows already cleared.
    const mentions: FreeTextMention[] = [];
    const name = searchableName(contact.name);
    for (const section of deps.personalData) {
      if (!section.freeText) continue;
      const cleared = await clearFreeText(tx, section.module, section.freeText, keys, name);
      counts[section.module] = { ...counts[section.module], ...cleared.redacted };
      mentions.push(...cleared.mentions);
    }
    const at = new Date();
    // Records merged into the person, and what their merges kept, go with them.
    const merged = await eraseMergedRecords(tx, deps.personalData, contactId, counts, at, (module) => erasureFor(module, NO_PERSON_KEYS, tasks, retained));
    counts.audience = {
      ...counts.audience,
      contacts: await eraseContact(tx, contactId, at),
      consentsAnonymised: await anonymiseConsents(tx, contactId),
      ...merged,
      identifiersHashed: await recordErasedIdentifiers(tx, deps.secrets.erasureKey, keys, at),
    };
    await insertAudit(tx, { actorId: actor.id, action: 'erasure', contactId, detail: null, counts, at });
    return { contactId, erasedAt: at.toISOString(), counts, retained, mentions };
  });
  for (const task of tasks) {
    await task(deps).catch((error: unknown) => deps.logger.warn({ contactId, ...safeErrorFields(error) }, 'erasure: work after commit failed'));
  }
  deps.logger.info({ contactId, actorId: actor.id, counts: result.counts }, 'personal data erased');
  return result;
}

/**
 * A withdrawal the person asked the campaign's staff to record: through `withdrawConsent`, with
 * the staff member as its source and their note as the evidence. Asking again changes nothing.
 */
export async function recordStaffWithdrawal(db: Database, actor: Actor, contactId: string, channel: Channel, note: string): Promise<z.input<typeof withdrawalView>> {
  return db.transaction(async (tx) => {
    const contact = await lockHeldContact(tx, contactId);
    if (!contact) throw new NotFoundError(NO_SUCH_CONTACT);
    const at = new Date();
    const withdrawn = await withdrawConsent(tx, { contactId }, channel, { source: 'staff', sourceRef: actor.id, evidence: note, at });
    const earlier = channel === 'whatsapp' ? contact.whatsappOptedOutAt : contact.emailOptedOutAt;
    await insertAudit(tx, { actorId: actor.id, action: 'withdrawal', contactId, detail: channel, counts: { audience: { consentRecords: withdrawn.length } }, at });
    // Without a change the contact was opted out already, at `earlier`.
    return { contactId, channel, changed: withdrawn.length > 0, optedOutAt: (withdrawn.length ? at : (earlier ?? at)).toISOString() };
  });
}

function presentAudit(row: AuditRecord): z.input<typeof auditEntryView> {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actorId: row.actorId,
    action: row.action,
    contactId: row.contactId,
    detail: row.detail,
    counts: row.counts,
  };
}

export async function listAudit(q: Queries, query: ListAuditInput): Promise<Page<z.input<typeof auditEntryView>>> {
  const found = await auditPage(q, { contactId: query.contactId, action: query.action }, query);
  return mapPage(found, presentAudit);
}
