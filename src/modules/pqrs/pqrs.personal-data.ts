import type { PersonalDataHolder } from '../../kernel/module';
import { attachmentsOf, deleteAttachments, eraseHistoryNotes, eraseRequestTexts, historyOf, moveRequests, requestsOfContact, returnRequests } from './pqrs.repository';

/**
 * A person's requests. Export gives every request they filed with its texts, answer, attachments
 * (metadata) and history. Erasure keeps each request's row (number, type, channel, territory,
 * dates, deadline, status, who handled it): the desk's figures and its record of having answered
 * on time stay true, and none of it names the person once audience has erased the contact. What
 * the person wrote, what they were told (description, answer, an extension's reason) and what staff
 * noted about their requests in the history is replaced by a marker, and their attachments are deleted: a campaign's citizen desk has no archival duty that would
 * outweigh the right to suppression (Ley 1581 de 2012, art. 8 and 15). The subject stays: staff
 * write or check it as a short label of the matter. Deleted attachments' files are removed by
 * the desk's sweep (`pqrs.attachments.ts`), which runs outside this transaction. A merge moves
 * the other record's requests to the survivor; nothing about a request limits it to one per person.
 */
export const pqrsPersonalData: PersonalDataHolder = {
  freeText: [
    { table: 'pqrs_requests', column: 'description', kind: 'requestDescriptions' },
    { table: 'pqrs_requests', column: 'answer', kind: 'answers' },
    { table: 'pqrs_requests', column: 'extension_reason', kind: 'extensionReasons' },
    { table: 'pqrs_history', column: 'note', kind: 'historyNotes', record: 'request_id' },
  ],
  async export(q, personId) {
    const requests = await requestsOfContact(q, personId);
    const attachments = await attachmentsOf(
      q,
      requests.map((request) => request.id),
    );
    // One after the other: `q` is the caller's transaction, a single connection.
    const histories: Awaited<ReturnType<typeof historyOf>>[] = [];
    for (const request of requests) histories.push(await historyOf(q, request.id));
    return {
      requests: requests.map((request, index) => ({
        id: request.id,
        number: request.number,
        type: request.type,
        subject: request.subject,
        description: request.description,
        channel: request.channel,
        status: request.status,
        receivedAt: request.receivedAt,
        dueDate: request.dueDate,
        extendedAt: request.extendedAt,
        extensionReason: request.extensionReason,
        answer: request.answer,
        answeredAt: request.answeredAt,
        closedAt: request.closedAt,
        attachments: attachments
          .filter((attachment) => attachment.requestId === request.id)
          .map((attachment) => ({ id: attachment.id, fileName: attachment.fileName, type: attachment.type, size: attachment.size, uploadedAt: attachment.uploadedAt })),
        history: histories[index]!.map((row) => ({ at: row.at, action: row.action, note: row.note })),
      })),
    };
  },

  async erase(q, personId) {
    const requests = await requestsOfContact(q, personId);
    const attachments = await attachmentsOf(
      q,
      requests.map((request) => request.id),
    );
    const removed = await deleteAttachments(
      q,
      attachments.map((attachment) => attachment.id),
    );
    const notes = await eraseHistoryNotes(q, personId);
    const erased = await eraseRequestTexts(q, personId, new Date());
    return { requests: erased, attachments: removed, historyNotes: notes };
  },

  async merge(q, fromId, intoId) {
    return { moved: { pqrs_requests: await moveRequests(q, fromId, intoId) } };
  },

  async unmerge(q, moves, fromId, intoId) {
    await returnRequests(q, moves.moved.pqrs_requests ?? [], fromId, intoId);
  },
};
