import { z } from 'zod';
import { instant } from '../../kernel/schemas';
import { pageQueryShape } from '../../kernel/page-schemas';
import { AUDIT_ACTIONS, CHANNELS } from './audience.codes';

export const contactIdParams = z.object({ id: z.uuid() });

export const withdrawalBody = z.object({
  channel: z.enum(CHANNELS),
  /** How the person asked, in staff's words: kept as the withdrawal's evidence. */
  note: z.string().trim().min(1).max(500),
});

export const withdrawalView = z
  .object({
    contactId: z.uuid(),
    channel: z.enum(CHANNELS),
    /** False when the person was already opted out of the channel: nothing was recorded again. */
    changed: z.boolean(),
    optedOutAt: instant,
  })
  .meta({ id: 'ConsentWithdrawal' });

const counts = z.record(z.string(), z.record(z.string(), z.number().int().min(0)));

export const erasureView = z
  .object({
    contactId: z.uuid(),
    erasedAt: instant,
    /** Rows deleted or anonymised, by module and kind. */
    counts,
    /** Rows kept with the person's data because a law obliges the campaign to keep them (its books), each with that law: what staff tell the person was not erased, and why. */
    retained: z.array(z.object({ module: z.string(), kind: z.string(), count: z.number().int().min(1), basis: z.string() })),
    /**
     * Rows of other people's free text (a note on another contact, an incident, another petition)
     * that still write the person's full name once their phones, emails and cédulas were cut out:
     * the name may be someone else's too, so staff read each and decide.
     */
    mentions: z.array(z.object({ module: z.string(), kind: z.string(), id: z.string(), recordId: z.string().nullable() })),
  })
  .meta({ id: 'PersonalDataErasure' });

export const personExportView = z
  .object({
    exportedAt: instant,
    contact: z.object({
      id: z.uuid(),
      name: z.string(),
      phone: z.string().nullable(),
      email: z.string().nullable(),
      documentId: z.string().nullable(),
      territoryId: z.uuid().nullable(),
      neighbourhood: z.string().nullable(),
      interests: z.array(z.string()),
      tags: z.array(z.string()),
      whatsappOptIn: z.boolean(),
      whatsappOptedOutAt: instant.nullable(),
      emailOptIn: z.boolean(),
      emailOptedOutAt: instant.nullable(),
      createdAt: instant,
      updatedAt: instant,
    }),
    origins: z.array(z.object({ kind: z.string(), refId: z.uuid(), firstSeenAt: instant })),
    consents: z.array(
      z.object({
        id: z.uuid(),
        action: z.enum(['given', 'withdrawn']),
        source: z.string(),
        sourceRef: z.uuid().nullable(),
        whatsappOptIn: z.boolean(),
        emailOptIn: z.boolean(),
        ipHash: z.string().nullable(),
        userAgent: z.string().nullable(),
        evidence: z.string().nullable(),
        at: instant,
        text: z.object({ id: z.uuid(), sha256: z.string(), text: z.string(), privacyPolicyUrl: z.string().nullable() }),
      }),
    ),
    /** Each module's own section: what it holds about the person, by kind. */
    modules: z.record(z.string(), z.record(z.string(), z.unknown())),
    /**
     * Other records of the person merged into this one: the record's values before the merge
     * while its undo window keeps them (else null), and what modules still hold on it.
     */
    merges: z.array(
      z.object({
        mergeId: z.uuid(),
        contactId: z.uuid(),
        mergedAt: instant,
        before: z.record(z.string(), z.unknown()).nullable(),
        modules: z.record(z.string(), z.record(z.string(), z.unknown())),
      }),
    ),
  })
  .meta({ id: 'PersonalDataExport' });

export const listAuditQuery = z.object({
  ...pageQueryShape,
  contactId: z.uuid().optional(),
  action: z.enum(AUDIT_ACTIONS).optional(),
});

export const auditEntryView = z
  .object({
    id: z.uuid(),
    at: instant,
    actorId: z.uuid(),
    action: z.enum(AUDIT_ACTIONS),
    contactId: z.uuid(),
    detail: z.string().nullable(),
    counts,
  })
  .meta({ id: 'AudienceAuditEntry' });

export type ListAuditInput = z.infer<typeof listAuditQuery>;
export type PersonExport = z.input<typeof personExportView>;
