import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { createdAtStamp, uuidPrimaryKey } from '../../kernel/entity-properties';
import { UserSchema } from '../auth';
import { ContactSchema } from './audience.entities';

/**
 * What staff wrote about a person ("pidió transporte el día de la elección"). Personal data: it is
 * in the person's export and deleted with their erasure (`audience.personal-data.ts`).
 */
export const ContactNoteSchema = defineEntity({
  name: 'ContactNote',
  tableName: 'contact_notes',
  indexes: [{ properties: ['contact', 'createdAt'] }],
  properties: (p) => ({
    ...uuidPrimaryKey,
    contact: () => p.manyToOne(ContactSchema).deleteRule('cascade'),
    /** Who wrote it; null once their account is gone. */
    author: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    text: p.string().length(2000),
    ...createdAtStamp,
  }),
});
export type ContactNote = InferEntity<typeof ContactNoteSchema>;
