import { ApiRouter } from '../../kernel/http/router';
import { correctPersonBody } from './audience.correction.schemas';
import { addNote, correctPerson, listPeople, peopleCsv, personDetail, personTimelinePage, removeNote } from './audience.people';
import {
  listPeopleQuery,
  noteBody,
  noteParams,
  noteView,
  personDetailView,
  personIdParams,
  personPageView,
  personView,
  timelinePageView,
  timelineQuery,
} from './audience.people.schemas';
import { audiencePolicy } from './audience.policy';

const NOT_FOUND = 'No such contact, or their data was erased';

/** The people database staff work with: search, the person's page across modules, corrections and notes. */
export const peopleRouter = new ApiRouter(
  'people',
  'The people database: search by name, phone, email or cédula, the person’s page with a timeline across modules, corrections, tags and notes (managers)',
)
  .get(
    '/api/audience/contacts',
    {
      summary: 'Search and list people',
      description:
        '`q` finds people by name (accents and case ignored, each word anywhere in the name: `jose per` finds José Pérez), by phone typed in any format ' +
        '(`300 123 4567`, `+57 300-123-4567`; 4 digits or more also match the end of a phone), by email (with `@`: the whole address or its beginning, any case) ' +
        'or by cédula (dots and spaces ignored; whole or its beginning). Filters combine. Consent is recorded per channel (WhatsApp, email), not per purpose: ' +
        '`whatsapp` and `email` filter on that channel’s state. Erased people never appear. Keyset pages (`cursor`); `format=csv` streams the whole ' +
        'selection as CSV (UTF-8 with BOM, formula-safe cells, territory and origin names rather than ids).',
      access: audiencePolicy.roles('listPeople'),
      query: listPeopleQuery,
      response: personPageView,
      produces: { 'text/csv': 'The selection as CSV when format=csv' },
    },
    async ({ ctx, input }) => {
      if (input.query.format === 'csv') {
        // The search is read (and a bad one refused with a 400) before the first byte goes out.
        const csv = peopleCsv(ctx.deps, input.query);
        ctx.type = 'text/csv; charset=utf-8';
        ctx.set('Content-Disposition', `attachment; filename="personas-${new Date().toISOString().slice(0, 10)}.csv"`);
        ctx.body = csv;
        return undefined;
      }
      return listPeople(ctx.deps, input.query);
    },
  )
  .get(
    '/api/audience/contacts/:id',
    {
      summary: 'A person’s page: their data, consents, notes and timeline across modules',
      description:
        'The person as the list shows them, plus neighbourhood, interests, every origin named by its module, each consent and withdrawal with its text, ' +
        'staff notes, and the newest 200 facts of their timeline from every module (QR leads, WhatsApp messages, emails, volunteering, events, PQRS, ' +
        'GOTV, donations for roles that may read finance, notes, corrections and tag changes), newest first. `timeline.nextCursor` pages further back. ' +
        'A record merged into another answers 404 `contact_merged` with `mergedIntoId`, the person it lives in now.',
      access: audiencePolicy.roles('readPerson'),
      params: personIdParams,
      response: personDetailView,
      errors: { 404: `${NOT_FOUND}; \`contact_merged\` (with \`mergedIntoId\`) for a record merged into another` },
    },
    async ({ ctx, input, actor }) => personDetail(ctx.deps, actor, input.params.id),
  )
  .get(
    '/api/audience/contacts/:id/timeline',
    {
      summary: 'A person’s timeline across modules, further back',
      description: 'Newest first, `limit` facts (default and most 200) before `before` (the `nextCursor` of the page before).',
      access: audiencePolicy.roles('readPerson'),
      params: personIdParams,
      query: timelineQuery,
      response: timelinePageView,
      errors: { 404: NOT_FOUND },
    },
    async ({ ctx, input, actor }) => personTimelinePage(ctx.deps, actor, input.params.id, input.query),
  )
  .patch(
    '/api/audience/contacts/:id',
    {
      summary: 'Correct a person’s name, phone, email or cédula, or replace their tags',
      description:
        'Fields left out stay; `null` clears phone, email or cédula (a person keeps a phone or an email: else 400 `identity_required`). A phone is read in any ' +
        'format and kept in E.164. A phone or email another person already has is a 409 (`phone_held` / `email_held`) whose `contactId` names that ' +
        'person, so the screen can offer to merge them. Consent is not changed. Every correction is audited (the fields, never the values) and shows in ' +
        'the timeline.',
      access: audiencePolicy.roles('correctPerson'),
      params: personIdParams,
      body: correctPersonBody,
      response: personView,
      errors: { 404: NOT_FOUND, 409: 'Another person has this phone or email (`contactId` says who)' },
    },
    async ({ ctx, input, actor }) => correctPerson(ctx.deps, actor, input.params.id, input.body),
  )
  .post(
    '/api/audience/contacts/:id/notes',
    {
      summary: 'Write a note about a person',
      description: 'Shown on the person’s page with its author and time; part of the person’s data export, deleted with their erasure.',
      access: audiencePolicy.roles('writeNote'),
      params: personIdParams,
      body: noteBody,
      status: 201,
      response: noteView,
      errors: { 404: NOT_FOUND },
    },
    async ({ ctx, input, actor }) => addNote(ctx.deps, actor, input.params.id, input.body.text),
  )
  .delete(
    '/api/audience/contacts/:id/notes/:noteId',
    {
      summary: 'Delete a note',
      description: 'By its author or an admin.',
      access: audiencePolicy.roles('writeNote'),
      params: noteParams,
      status: 204,
      errors: { 404: 'No such contact, or no such note of theirs' },
    },
    async ({ ctx, input, actor }) => {
      await removeNote(ctx.deps, actor, input.params.id, input.params.noteId);
      return undefined;
    },
  );
