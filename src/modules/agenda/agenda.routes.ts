import { ApiRouter } from '../../kernel/http/router';
import { calendarFeed, revokeFeedToken, rotateFeedToken } from './agenda.calendar';
import { agendaPolicy } from './agenda.policy';
import { getSettings, replaceSettings } from './agenda.reminders';
import {
  attendeePageView,
  attendeesQuery,
  checkInBody,
  checkInListView,
  checkInView,
  contactParams,
  feedQuery,
  feedTokenView,
  createEventBody,
  createShiftBody,
  eventPageView,
  eventView,
  idParams,
  listEventsQuery,
  organiserPageView,
  organisersQuery,
  rsvpBody,
  rsvpListQuery,
  rsvpListView,
  rsvpResultView,
  settingsBody,
  settingsView,
  shiftListView,
  shiftParams,
  shiftView,
  signupBody,
  signupParams,
  updateEventBody,
  updateShiftBody,
  userContactBody,
  userContactView,
  userParams,
} from './agenda.schemas';
import * as agenda from './agenda.service';

const base = '/api/agenda';
const notOpen = 'The event is cancelled (`event_cancelled`), a draft (`event_draft`) or over (`event_over`)';

export const agendaRouter = new ApiRouter('agenda', 'Events with RSVP, waitlist, shifts and check-in; reminders, logistics and the iCalendar feed')
  // Declared before `/events/:id` so that the feed's path is not read as an id.
  .get(
    `${base}/events.ics`,
    {
      summary: 'The agenda as an iCalendar feed',
      description:
        'For calendar apps. With a bearer token, or `?token=` (a personal calendar address from POST /api/agenda/feed-token, since calendar apps cannot send headers): ' +
        'public and internal events. Without either: public events only. Drafts never; cancelled events appear as CANCELLED. Times are UTC.',
      access: 'optional',
      query: feedQuery,
      produces: { 'text/calendar': 'RFC 5545 calendar' },
      errors: { 401: 'The token in the address matches no active account' },
    },
    async ({ ctx, input, maybeActor }) => {
      const body = await calendarFeed(ctx.deps, maybeActor, input.query.token);
      ctx.type = 'text/calendar; charset=utf-8';
      ctx.set('Content-Disposition', 'inline; filename="agenda.ics"');
      // A feed read with a token lists internal events: no shared cache may keep it.
      ctx.set('Cache-Control', 'private, no-store');
      ctx.body = body;
      return undefined;
    },
  )
  .post(
    `${base}/feed-token`,
    {
      summary: 'Make (or remake) my calendar address',
      description: 'A long random secret in a URL to paste into a calendar app; shown once. Making a new one ends the old one.',
      access: agendaPolicy.roles('subscribe'),
      status: 201,
      response: feedTokenView,
    },
    async ({ ctx, actor }) => rotateFeedToken(ctx.deps, actor),
  )
  .delete(`${base}/feed-token`, { summary: 'End my calendar address', access: agendaPolicy.roles('subscribe'), status: 204 }, async ({ ctx, actor }) => {
    await revokeFeedToken(ctx.deps, actor);
    return undefined;
  })
  .post(
    `${base}/events`,
    {
      summary: 'Create an event',
      description:
        'Times are ISO 8601 instants with their offset (`2026-12-01T19:00:00-05:00`); `timeZone` (IANA, the campaign’s by default) is how the event is shown. ' +
        '`capacity` limits who may say going (the rest wait); `budget` is the planned spend in whole pesos.',
      access: agendaPolicy.roles('create'),
      body: createEventBody,
      status: 201,
      response: eventView,
    },
    async ({ ctx, input, actor }) => agenda.createEvent(ctx.deps, input.body, actor),
  )
  .get(
    `${base}/events`,
    {
      summary: 'List events',
      description:
        'Soonest first. Filters: from/to (instants, or days in the campaign’s zone; an event is in the range when any part of it is), territoryId (with the territories inside it), ' +
        'type, status, visibility, upcoming=true (scheduled and not over: the dashboard’s list). Drafts are listed to their organiser and managers only.',
      access: agendaPolicy.roles('read'),
      query: listEventsQuery,
      response: eventPageView,
    },
    async ({ ctx, input, actor }) => agenda.listEvents(ctx.deps, actor, input.query),
  )
  .get(
    `${base}/events/:id`,
    { summary: 'One event, with its answer and check-in counts', access: agendaPolicy.roles('read'), params: idParams, response: eventView },
    async ({ ctx, input, actor }) => agenda.getEvent(ctx.deps, actor, input.params.id),
  )
  .patch(
    `${base}/events/:id`,
    {
      summary: 'Change, publish, finish or cancel an event',
      description:
        'Its organiser or a manager. `status: cancelled` (with an optional `cancellationReason`) is final and tells everyone going; more `capacity` lets the waitlist in; ' +
        'moving the start re-arms the reminders.',
      access: agendaPolicy.roles('edit'),
      params: idParams,
      body: updateEventBody,
      response: eventView,
      errors: { 409: 'Cancelled (`event_cancelled`); `done` before its end (`event_not_over`); back to draft with answers (`event_has_rsvps`)' },
    },
    async ({ ctx, input, actor }) => agenda.changeEvent(ctx.deps, input.params.id, input.body, actor),
  )
  .post(
    `${base}/events/:id/rsvp`,
    {
      summary: 'Answer an event: going, maybe or declined',
      description:
        'Volunteers and brigade members answer for their own contact (their account’s link); managers name `contactId`. Going to a full event joins the waitlist; ' +
        'when someone going declines, the first on the waitlist goes instead (`promoted`).',
      access: agendaPolicy.roles('rsvp'),
      params: idParams,
      body: rsvpBody,
      response: rsvpResultView,
      errors: { 409: notOpen },
    },
    async ({ ctx, input, actor }) => agenda.answer(ctx.deps, input.params.id, input.body, actor),
  )
  .get(
    `${base}/events/:id/rsvps`,
    {
      summary: 'Who answered (contact ids), going first, then the waitlist in order',
      access: agendaPolicy.roles('edit'),
      params: idParams,
      query: rsvpListQuery,
      response: rsvpListView,
    },
    async ({ ctx, input, actor }) => agenda.listRsvps(ctx.deps, input.params.id, input.query.status, actor),
  )
  .get(
    `${base}/events/:id/attendees`,
    {
      summary: 'The door list: who answered or was checked in, by name',
      description:
        'For the organiser and managers (the door volunteer runs it as the event’s organiser). Going first, then the waitlist in order (`waitlistPosition`), maybe, declined, ' +
        'and people checked in without an answer (walk-ins). `q` finds names (each word anywhere, accents and case ignored) or, given a contact id (a scanned code), that person. ' +
        'Keyset pages (`cursor`).',
      access: agendaPolicy.roles('edit'),
      params: idParams,
      query: attendeesQuery,
      response: attendeePageView,
    },
    async ({ ctx, input, actor }) => agenda.listAttendees(ctx.deps, input.params.id, input.query, actor),
  )
  .post(
    `${base}/events/:id/shifts`,
    {
      summary: 'Add a shift to an event',
      access: agendaPolicy.roles('edit'),
      params: idParams,
      body: createShiftBody,
      status: 201,
      response: shiftView,
      errors: { 409: 'Cancelled event' },
    },
    async ({ ctx, input, actor }) => agenda.createShift(ctx.deps, input.params.id, input.body, actor),
  )
  .get(
    `${base}/events/:id/shifts`,
    { summary: 'The shifts of an event with who signed up', access: agendaPolicy.roles('read'), params: idParams, response: shiftListView },
    async ({ ctx, input, actor }) => agenda.listShifts(ctx.deps, input.params.id, actor),
  )
  .patch(
    `${base}/events/:id/shifts/:shiftId`,
    {
      summary: 'Change a shift',
      access: agendaPolicy.roles('edit'),
      params: shiftParams,
      body: updateShiftBody,
      response: shiftView,
      errors: { 409: 'Fewer slots than people signed up (`shift_taken`)' },
    },
    async ({ ctx, input, actor }) => agenda.changeShift(ctx.deps, input.params.id, input.params.shiftId, input.body, actor),
  )
  .delete(
    `${base}/events/:id/shifts/:shiftId`,
    { summary: 'Remove a shift nobody signed up for', access: agendaPolicy.roles('edit'), params: shiftParams, status: 204, errors: { 409: 'People signed up (`shift_taken`)' } },
    async ({ ctx, input, actor }) => {
      await agenda.removeShift(ctx.deps, input.params.id, input.params.shiftId, actor);
      return undefined;
    },
  )
  .post(
    `${base}/events/:id/shifts/:shiftId/signups`,
    {
      summary: 'Sign up for a shift',
      description: 'For one’s own contact; managers and the organiser may name `contactId`. Signing up again changes nothing.',
      access: agendaPolicy.roles('rsvp'),
      params: shiftParams,
      body: signupBody,
      response: shiftView,
      errors: { 409: `${notOpen}; the shift is full (\`shift_full\`)` },
    },
    async ({ ctx, input, actor }) => agenda.signUp(ctx.deps, input.params.id, input.params.shiftId, input.body.contactId, actor),
  )
  .delete(
    `${base}/events/:id/shifts/:shiftId/signups/:contactId`,
    { summary: 'Take someone off a shift', access: agendaPolicy.roles('rsvp'), params: signupParams, status: 204 },
    async ({ ctx, input, actor }) => {
      await agenda.withdrawSignup(ctx.deps, input.params.id, input.params.shiftId, input.params.contactId, actor);
      return undefined;
    },
  )
  .post(
    `${base}/events/:id/check-in`,
    {
      summary: 'Check someone in',
      description:
        'The organiser or a manager, from six hours before the start to a day after the end. A known person by `contactId` (`method` scan or mark); a walk-in by ' +
        '`walkIn` (name, phone or email, opt-ins and the consent text they accepted), who becomes a contact with that proof. Checking in twice keeps the first.',
      access: agendaPolicy.roles('edit'),
      params: idParams,
      body: checkInBody,
      response: checkInView,
      errors: { 409: 'Cancelled (`event_cancelled`), draft (`event_draft`), or outside the check-in window (`check_in_closed`)' },
    },
    async ({ ctx, input, actor }) => agenda.checkIn(ctx.deps, input.params.id, input.body, actor),
  )
  .get(
    `${base}/events/:id/check-ins`,
    { summary: 'Who was checked in', access: agendaPolicy.roles('edit'), params: idParams, response: checkInListView },
    async ({ ctx, input, actor }) => agenda.listCheckIns(ctx.deps, input.params.id, actor),
  )
  .delete(
    `${base}/events/:id/check-ins/:contactId`,
    { summary: 'Undo a check-in recorded by mistake', access: agendaPolicy.roles('edit'), params: contactParams, status: 204 },
    async ({ ctx, input, actor }) => {
      await agenda.undoCheckIn(ctx.deps, input.params.id, input.params.contactId, actor);
      return undefined;
    },
  )
  .get(
    `${base}/organisers`,
    {
      summary: 'Who may organise an event',
      description:
        'Active accounts whose role may run an event they organise (edit it, take its answers, check people in at its door): what `organiserId` is for. By name; `q` in the name or email.',
      access: agendaPolicy.roles('create'),
      query: organisersQuery,
      response: organiserPageView,
    },
    async ({ ctx, input }) => agenda.listOrganisers(ctx.deps.db, input.query),
  )
  .get(
    `${base}/users/:userId/contact`,
    { summary: 'The contact a user account is', access: agendaPolicy.roles('linkAccounts'), params: userParams, response: userContactView },
    async ({ ctx, input }) => agenda.userContact(ctx.deps, input.params.userId),
  )
  .put(
    `${base}/users/:userId/contact`,
    {
      summary: 'Link a user account to its contact',
      description: 'How a volunteer’s login answers events for themself; `null` unlinks. The volunteers module sets it when it links a volunteer to an account.',
      access: agendaPolicy.roles('linkAccounts'),
      params: userParams,
      body: userContactBody,
      response: userContactView,
    },
    async ({ ctx, input }) => agenda.linkUserContact(ctx.deps, input.params.userId, input.body.contactId),
  )
  .get(`${base}/settings`, { summary: 'Reminder and cancellation message settings', access: agendaPolicy.roles('configure'), response: settingsView }, async ({ ctx }) =>
    getSettings(ctx.deps),
  )
  .put(
    `${base}/settings`,
    {
      summary: 'Choose the WhatsApp templates of reminders and cancellations',
      description:
        'Reminders go a day and two hours before an event to everyone going, on WhatsApp (this template, when set and approved, to people who consented) or else by email ' +
        '(to people who consented); cancellations the same way. The templates take three placeholders: title, when (in the event’s zone), where.',
      access: agendaPolicy.roles('configure'),
      body: settingsBody,
      response: settingsView,
    },
    async ({ ctx, input, actor }) => replaceSettings(ctx.deps, input.body, actor),
  );
