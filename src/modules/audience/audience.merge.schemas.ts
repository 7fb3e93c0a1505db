import { z } from 'zod';
import { instant } from '../../kernel/schemas';
import { pageQueryShape } from '../../kernel/page-schemas';

const counts = z.record(z.string(), z.record(z.string(), z.number().int().min(0)));

export const mergeIdParams = z.object({ mergeId: z.uuid() });

export const mergeBody = z
  .object({
    /** The other record of the same person: merged into the contact in the path, then left as a tombstone. */
    from: z.uuid(),
  })
  .meta({ id: 'ContactMergeRequest' });

export const MERGE_STATUSES = ['undoable', 'expired', 'undone', 'erased'] as const;

export const mergeView = z
  .object({
    id: z.uuid(),
    /** The survivor: it holds both records' links and consent records now. */
    intoContactId: z.uuid(),
    intoName: z.string(),
    /** The record merged away (a tombstone, no longer anyone). */
    fromContactId: z.uuid(),
    /** Its name before the merge, while the undo window keeps it; null after. */
    fromName: z.string().nullable(),
    mergedAt: instant,
    mergedBy: z.uuid(),
    undoUntil: instant,
    /** `undoable` until `undoUntil`; `expired` after; `undone`; `erased` when the person's data was erased (nothing kept to undo with). */
    status: z.enum(MERGE_STATUSES),
    undoneAt: instant.nullable(),
    undoneBy: z.uuid().nullable(),
    /** Rows moved to the survivor and combined, by module and kind (`audience.consents`, `qr.qr_leads`, `qr.leadsCombined`…). */
    counts,
  })
  .meta({ id: 'ContactMerge' });

export const listMergesQuery = z.object({
  ...pageQueryShape,
  /** Merges where this contact was the survivor or the record merged away. */
  contactId: z.uuid().optional(),
});
export type ListMergesInput = z.infer<typeof listMergesQuery>;
