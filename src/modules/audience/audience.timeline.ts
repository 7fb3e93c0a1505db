import { z } from 'zod';
import type { Actor } from '../../kernel/auth/roles';
import type { AppDeps } from '../../kernel/context';
import { invalidField } from '../../kernel/errors';
import type { JsonValue, PersonTimelineHolder, TimelineEntry } from '../../kernel/module';
import type { Queries } from '../../kernel/sql';
import { userNames } from '../auth';
import { auditOf, consentRecordsOf, contactCreatedAt, notesOf } from './audience.people.repository';
import type { Origin } from './audience.contacts';
import type { ConsentFields } from './audience.repository';
import type { timelinePageView } from './audience.people.schemas';

/** A fact on a person's page, with the module that holds it. */
export interface TimelineItem extends TimelineEntry {
  module: string;
}

/** Each fact's place among those of the same millisecond: its module, kind and record. */
const keyOf = (item: TimelineItem): string => `${item.module}:${item.kind}:${item.refId ?? ''}`;

/** Newest first; facts of the same millisecond in one fixed order (their key, descending). */
function newerFirst(a: TimelineItem, b: TimelineItem): number {
  const byTime = b.at.getTime() - a.at.getTime();
  if (byTime !== 0) return byTime;
  const [ka, kb] = [keyOf(a), keyOf(b)];
  return ka < kb ? 1 : ka > kb ? -1 : 0;
}

const cursorShape = z.tuple([z.iso.datetime()]);

/** The millisecond the previous page ended with: this page has what is older. */
function decodeCursor(cursor: string): Date {
  try {
    const [at] = cursorShape.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    return new Date(at);
  } catch {
    throw invalidField('query.before', 'The cursor is not one this timeline gave out.');
  }
}

const encodeCursor = (at: Date): string => Buffer.from(JSON.stringify([at.toISOString()])).toString('base64url');

export interface TimelinePerson {
  contactId: string;
  origins: readonly Origin[];
}

/**
 * A person's facts from every module, newest first, a page at a time. Each module gives its newest
 * `limit` facts before the cursor (it filters in the database, on its own tables); they are merged
 * here. Pages end between two milliseconds, never inside one (a page may pass `limit` to finish
 * its last millisecond), so the cursor is that millisecond and the next page asks for what is
 * strictly older: facts stored to the microsecond are neither repeated nor skipped. A module that
 * gave a full page may hold more facts, older than its oldest: the page stops above that
 * millisecond and the next one asks again from there. (Should one module hold more than `limit`
 * facts within one millisecond, the page shows those it gave and moves on: no module writes such
 * bursts about one person.)
 */
export async function personTimeline(
  deps: Pick<AppDeps, 'db' | 'personTimeline'>,
  person: TimelinePerson,
  actor: Actor,
  page: { before?: string | undefined; limit: number },
): Promise<z.input<typeof timelinePageView>> {
  const before = page.before ? decodeCursor(page.before) : null;
  const request = { contactId: person.contactId, origins: person.origins, actor, before, limit: page.limit };
  const answers = await Promise.all(deps.personTimeline.map(async (section) => ({ module: section.module, items: await section.items(deps.db, request) })));
  // Milliseconds at or below the horizon may hold facts a module did not give yet.
  let horizon = Number.NEGATIVE_INFINITY;
  const given: TimelineItem[] = [];
  for (const { module, items } of answers) {
    if (items.length >= page.limit) horizon = Math.max(horizon, Math.min(...items.map((item) => item.at.getTime())));
    for (const item of items) given.push({ ...item, module });
  }
  given.sort(newerFirst);
  let complete = given.filter((item) => item.at.getTime() > horizon);
  if (!complete.length) complete = given.filter((item) => item.at.getTime() === horizon);
  let end = Math.min(page.limit, complete.length);
  // Finish the last millisecond.
  while (end > 0 && end < complete.length && complete[end]!.at.getTime() === complete[end - 1]!.at.getTime()) end++;
  const data = complete.slice(0, end);
  const more = given.length > data.length || horizon > Number.NEGATIVE_INFINITY;
  return {
    data: data.map((item) => ({ at: item.at.toISOString(), module: item.module, kind: item.kind, title: item.title, refId: item.refId, detail: item.detail ?? null })),
    nextCursor: more && data.length ? encodeCursor(data[data.length - 1]!.at) : null,
  };
}

const FIELD_NAMES: Record<string, string> = { name: 'nombre', phone: 'teléfono', email: 'correo', documentId: 'cédula' };

const WITHDRAWAL_TITLES: Record<string, string> = {
  whatsapp_stop: 'Pidió la baja de WhatsApp',
  email_unsubscribe: 'Canceló la suscripción al correo',
  staff: 'Baja registrada por el equipo',
};

function consentTitle(record: Pick<ConsentFields, 'action' | 'source' | 'whatsappOptIn' | 'emailOptIn'>): string {
  if (record.action === 'withdrawn') return WITHDRAWAL_TITLES[record.source] ?? 'Retiró una autorización';
  const channels = [record.whatsappOptIn ? 'WhatsApp' : null, record.emailOptIn ? 'correo' : null].filter(Boolean);
  return channels.length ? `Autorizó mensajes por ${channels.join(' y ')}` : 'Aceptó el tratamiento de sus datos';
}

/**
 * The audience's own facts about a person: when they entered the base, each consent and
 * withdrawal, staff notes, corrections of their data, tag changes and exports of their data
 * (from the audit, which names fields and counts, never values).
 */
export const audienceTimeline: PersonTimelineHolder = {
  async items(q: Queries, request) {
    const { contactId, limit, before } = request;
    const created = await contactCreatedAt(q, contactId);
    const notes = await notesOf(q, contactId, limit, before);
    const audit = await auditOf(q, contactId, ['correction', 'tags', 'export'], limit, before);
    const consents = await consentRecordsOf(q, contactId, limit, before);
    const names = await userNames(q, [...notes.flatMap((note) => (note.authorId ? [note.authorId] : [])), ...audit.map((entry) => entry.actorId)]);
    const items: TimelineEntry[] = [];
    if (created && (!before || created < before)) items.push({ at: created, kind: 'contact_created', title: 'Entró a la base de personas', refId: contactId });
    for (const note of notes) {
      const authorName = note.authorId ? (names.get(note.authorId) ?? null) : null;
      items.push({
        at: note.createdAt,
        kind: 'note',
        title: authorName ? `Nota de ${authorName}` : 'Nota del equipo',
        refId: note.id,
        detail: { text: note.text, authorId: note.authorId, authorName },
      });
    }
    for (const entry of audit) {
      const actor = { actorId: entry.actorId, actorName: names.get(entry.actorId) ?? null };
      if (entry.action === 'correction') {
        const fields = (entry.detail ?? '').split(',').filter(Boolean);
        const title = `Datos corregidos: ${fields.map((field) => FIELD_NAMES[field] ?? field).join(', ')}`;
        items.push({ at: entry.at, kind: 'correction', title, refId: entry.id, detail: { fields, ...actor } });
      } else if (entry.action === 'tags') {
        const counts = (entry.counts.audience ?? {}) as Record<string, JsonValue>;
        items.push({
          at: entry.at,
          kind: 'tags_changed',
          title: 'Etiquetas cambiadas',
          refId: entry.id,
          detail: { added: counts.added ?? 0, removed: counts.removed ?? 0, ...actor },
        });
      } else {
        items.push({ at: entry.at, kind: 'data_exported', title: 'Se exportaron sus datos personales', refId: entry.id, detail: actor });
      }
    }
    for (const record of consents) {
      items.push({
        at: record.givenAt,
        kind: record.action === 'withdrawn' ? 'consent_withdrawn' : 'consent_given',
        title: consentTitle(record),
        refId: record.id,
        detail: { source: record.source, whatsappOptIn: record.whatsappOptIn, emailOptIn: record.emailOptIn },
      });
    }
    return items.sort((a, b) => b.at.getTime() - a.at.getTime()).slice(0, limit);
  },
};
