import type { PersonalDataHolder } from '../../kernel/module';
import { userNames } from '../auth';
import { allNotesOf, deleteNotesOf, moveNotes, returnNotes } from './audience.people.repository';
import { heldContact } from './audience.repository';

/**
 * What staff wrote about the person (their notes): in the person's export with who wrote each and
 * when, deleted with their erasure (a note is about them, and may quote them), and moved with a
 * merge to the surviving record. The contact, its origins and consents are exported, erased and
 * merged by the audience service itself, which also keeps the erased person's identifiers as keyed
 * hashes (`audience.erased.ts`).
 */
export const audiencePersonalData: PersonalDataHolder = {
  freeText: [{ table: 'contact_notes', column: 'text', kind: 'staffNotes', record: 'contact_id' }],
  /** The contact's own phone, email and cédula: what other modules' rows may carry without pointing at the contact. */
  async keys(q, personId) {
    const contact = await heldContact(q, personId);
    if (!contact) return {};
    return { phones: contact.phone ? [contact.phone] : [], emails: contact.email ? [contact.email] : [], documentIds: contact.documentId ? [contact.documentId] : [] };
  },

  async export(q, personId) {
    const notes = await allNotesOf(q, personId);
    const names = await userNames(
      q,
      notes.flatMap((note) => (note.authorId ? [note.authorId] : [])),
    );
    return {
      notes: notes.map((note) => ({
        id: note.id,
        text: note.text,
        authorName: note.authorId ? (names.get(note.authorId) ?? null) : null,
        createdAt: note.createdAt,
      })),
    };
  },

  async erase(q, personId) {
    return { notes: await deleteNotesOf(q, personId) };
  },

  async merge(q, fromId, intoId) {
    return { moved: { contact_notes: await moveNotes(q, fromId, intoId) } };
  },

  async unmerge(q, moves, fromId, intoId) {
    await returnNotes(q, moves.moved.contact_notes ?? [], fromId, intoId);
  },
};
