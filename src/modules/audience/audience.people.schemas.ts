import { z } from 'zod';
import { instant } from '../../kernel/schemas';
import { pageQueryShape } from '../../kernel/page-schemas';
import { CONSENT_ACTIONS } from './audience.codes';

/** A channel's state for one person: may be messaged now, asked not to be, or never said yes. */
export const CONSENT_STATES = ['reachable', 'opted_out', 'no_consent'] as const;
export type ConsentState = (typeof CONSENT_STATES)[number];

/** `name` / `createdAt` ascending, `-name` / `-createdAt` descending. */
export const PEOPLE_SORTS = ['-createdAt', 'createdAt', 'name', '-name'] as const;
export type PeopleSort = (typeof PEOPLE_SORTS)[number];

/** Instants a search may bound creation by (a typo such as year 0202 is a 400, not an empty list). */
const createdBound = instant.optional();

/** A staff label: trimmed, spaces collapsed, lower-cased, 1–40 characters. */
export const tagSchema = z
  .string()
  .transform((value) => value.trim().replace(/\s+/g, ' ').toLowerCase())
  .pipe(z.string().min(1, 'a tag has at least 1 character').max(40, 'a tag has at most 40 characters'));

export const listPeopleQuery = z
  .object({
    ...pageQueryShape,
    q: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .describe(
        'What staff typed: with `@`, an email (the whole address, or its beginning); only digits and phone punctuation (`+57 300-123 4567`, `1.020.304.050`), ' +
          'a phone in any format, the end of one (4 digits or more) or a cédula (whole, or its beginning); otherwise words of a name, each found anywhere in it, ' +
          'whatever the accents or case (`jose per` finds José Pérez). A name search needs a word of 3 letters or more.',
      ),
    territoryId: z.uuid().optional().describe('That territory and everything inside it (a comuna with its barrios)'),
    originKind: z
      .string()
      .regex(/^[a-z][a-z_]{0,39}$/, 'is an origin kind such as qr_campaign, pqrs, agenda_event or volunteers')
      .optional()
      .describe('Where people arrived from: `qr_campaign`, `pqrs`, `agenda_event`, `volunteers`…'),
    originRef: z.uuid().optional().describe('With `originKind`: that one source (a QR campaign’s id)'),
    whatsapp: z.enum(CONSENT_STATES).optional().describe('WhatsApp consent: `reachable` (a phone, opted in, not opted out), `opted_out`, `no_consent` (neither)'),
    email: z.enum(CONSENT_STATES).optional().describe('Email consent, as `whatsapp` (bounced addresses are the email module’s and are not considered)'),
    tag: tagSchema.optional().describe('People carrying this tag (compared lower-cased)'),
    createdFrom: createdBound.describe('Created at or after this instant'),
    createdTo: createdBound.describe('Created at or before this instant'),
    sort: z.enum(PEOPLE_SORTS).default('-createdAt').describe('`-createdAt` (default, newest first), `createdAt`, `name` (accents and case ignored), `-name`'),
    format: z.enum(['json', 'csv']).default('json'),
  })
  .refine((query) => !query.createdFrom || !query.createdTo || Date.parse(query.createdFrom) <= Date.parse(query.createdTo), {
    message: 'createdFrom must not be after createdTo',
    path: ['createdTo'],
  })
  .refine((query) => !query.originRef || query.originKind, { message: 'originRef needs originKind', path: ['originRef'] });

export type ListPeopleInput = z.infer<typeof listPeopleQuery>;

const consentState = z.enum(CONSENT_STATES);

const territoryRef = z.object({ id: z.uuid(), name: z.string() });

export const personOriginView = z
  .object({
    kind: z.string(),
    refId: z.uuid(),
    /** What the owning module calls it (a QR campaign's name, a PQRS request's number); null when it cannot say. */
    name: z.string().nullable(),
    firstSeenAt: instant,
  })
  .meta({ id: 'PersonOrigin' });

export const personView = z
  .object({
    id: z.uuid(),
    name: z.string(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    documentId: z.string().nullable(),
    territory: territoryRef.nullable(),
    tags: z.array(z.string()),
    consent: z.object({ whatsapp: consentState, email: consentState }),
    /** The first five origins, oldest first; `originCount` says how many there are. */
    origins: z.array(personOriginView),
    originCount: z.number().int().min(0),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'Person' });

export const personPageView = z.object({ data: z.array(personView), nextCursor: z.string().nullable() }).meta({ id: 'PersonPage' });

export const timelineItemView = z
  .object({
    at: instant,
    /** The module that holds the fact: `qr`, `whatsapp`, `email`, `volunteers`, `agenda`, `pqrs`, `gotv`, `finance`, `audience`. */
    module: z.string(),
    kind: z.string(),
    /** Spanish, short. */
    title: z.string(),
    /** The module's record (a message, a request, a note), when there is one. */
    refId: z.string().nullable(),
    detail: z.record(z.string(), z.unknown()).nullable(),
  })
  .meta({ id: 'PersonTimelineItem' });

export const timelinePageView = z
  .object({
    data: z.array(timelineItemView),
    /** Pass as `before` to `GET /api/audience/contacts/{id}/timeline` for the facts before these; null when there are none. */
    nextCursor: z.string().nullable(),
  })
  .meta({ id: 'PersonTimelinePage' });

export const noteView = z
  .object({
    id: z.uuid(),
    text: z.string(),
    /** Null once the author's account is gone. */
    author: z.object({ id: z.uuid(), name: z.string() }).nullable(),
    createdAt: instant,
  })
  .meta({ id: 'PersonNote' });

export const personDetailView = personView
  .extend({
    neighbourhood: z.string().nullable(),
    interests: z.array(z.string()),
    whatsappOptedOutAt: instant.nullable(),
    emailOptedOutAt: instant.nullable(),
    /** Every origin, oldest first. */
    origins: z.array(personOriginView),
    /** Each consent and withdrawal, oldest first, with the exact text and where it came from. */
    consents: z.array(
      z.object({
        id: z.uuid(),
        action: z.enum(CONSENT_ACTIONS),
        /** `qr` (a poster form), `pqrs`, `volunteers`, `whatsapp_stop`, `email_unsubscribe`, `staff`… */
        source: z.string(),
        sourceRef: z.uuid().nullable(),
        whatsappOptIn: z.boolean(),
        emailOptIn: z.boolean(),
        /** A withdrawal's own words or act. */
        evidence: z.string().nullable(),
        at: instant,
        text: z.object({ id: z.uuid(), text: z.string(), privacyPolicyUrl: z.string().nullable() }),
      }),
    ),
    /** Staff notes, newest first (at most 100; the timeline has them all). */
    notes: z.array(noteView),
    /** The newest facts from every module, newest first. */
    timeline: timelinePageView,
  })
  .meta({ id: 'PersonDetail' });

export const personIdParams = z.object({ id: z.uuid() });
export const noteParams = z.object({ id: z.uuid(), noteId: z.uuid() });

export const timelineQuery = z.object({
  before: z
    .string()
    .max(512)
    .regex(/^[A-Za-z0-9_-]+$/, 'is not a cursor this timeline gave out')
    .optional()
    .describe('The `nextCursor` of the previous page of the timeline, unchanged'),
  limit: z.coerce.number().int().min(1).max(200).default(200),
});

export const noteBody = z.object({ text: z.string().trim().min(1).max(2000) }).strict();
