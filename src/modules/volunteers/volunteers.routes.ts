import { ApiRouter } from '../../kernel/http/router';
import { volunteersPolicy } from './volunteers.policy';
import { leaderboard, pyramid } from './volunteers.pyramid';
import {
  activitiesAnswer,
  activitiesBody,
  activityPageView,
  createVolunteerBody,
  idParams,
  leaderboardQuery,
  leaderboardView,
  listActivitiesQuery,
  listVolunteersQuery,
  pyramidQuery,
  pyramidView,
  updateVolunteerBody,
  volunteerPageView,
  volunteerView,
  votersBody,
  votersView,
} from './volunteers.schemas';
import * as volunteers from './volunteers.service';
import { linkVoters, votersOfVolunteer } from './volunteers.voters';
import { attendanceByContacts, eventExists } from '../agenda';
import { erasureView } from '../audience';

const base = '/api/volunteers';
const notFound = { 404: 'No such volunteer, or their data was erased' };

/** The campaign's team: volunteers, their activities, the leader pyramid and the leaderboard (docs/volunteers.md). */
export const volunteersRouter = new ApiRouter('volunteers', 'Team members, their activities, the leader pyramid and the leaderboard')
  .post(
    `${base}/activities`,
    {
      summary: 'Log activities (a batch of up to 500)',
      description:
        '`{ activities: [...] }`. A volunteer logs for themself, a leader for the people under them, managers for anyone. An item resent with ' +
        'a stored `clientId` is a duplicate and answers with the stored id. Anything wrong with an item (unknown volunteer, territory or event, ' +
        'an absurd quantity, GPS outside the world, a future time) is a 400 naming it and nothing is written. GPS points are kept only for ' +
        'volunteers who consented (`locationStored`).',
      access: volunteersPolicy.roles('logActivity'),
      body: activitiesBody,
      status: 201,
      response: activitiesAnswer,
      errors: { 403: 'An item is outside your team (nothing written)' },
    },
    async ({ ctx, input, actor }) => {
      const answer = await volunteers.logActivities(ctx.deps, actor, input.body, eventExists);
      if (!answer.created) ctx.status = 200;
      return answer;
    },
  )
  .get(
    `${base}/activities`,
    {
      summary: 'List activities',
      description: 'Latest first. Filters: volunteerId, type, territoryId (and inside it), from/to. `totals` by type cover every matching activity. Volunteers see their own team.',
      access: volunteersPolicy.roles('readActivities'),
      query: listActivitiesQuery,
      response: activityPageView,
    },
    async ({ ctx, input, actor }) => volunteers.listActivities(ctx.deps, actor, input.query),
  )
  .get(
    `${base}/pyramid`,
    {
      summary: 'The leader pyramid with its figures',
      description:
        'Every volunteer as a node (leaderId, level) with the people under them, their active share, own promised votes, the estimated votes ' +
        '(confirmed GOTV voters linked to them or anyone under them, and how many voted), goal progress and pace. `rootId` keeps one branch.',
      access: volunteersPolicy.roles('readPyramid'),
      query: pyramidQuery,
      response: pyramidView,
      errors: notFound,
    },
    async ({ ctx, input }) => pyramid(ctx.deps, input.query),
  )
  .get(
    `${base}/leaderboard`,
    {
      summary: 'Leaderboard by points or quantity',
      description: 'Volunteers (or territories, `groupBy=territory`) ranked in a window (the last 30 days unless from/to), optionally of one territory or activity type.',
      access: volunteersPolicy.roles('readLeaderboard'),
      query: leaderboardQuery,
      response: leaderboardView,
    },
    async ({ ctx, input }) => leaderboard(ctx.deps, input.query),
  )
  .post(
    base,
    {
      summary: 'Register a volunteer',
      description:
        'The person by name with a phone or an email (cédula optional), or an existing contact by `contactId` (a QR lead). One volunteer per ' +
        'person: 409 `volunteer_exists` with `existingId`. `leaderId` must not be themself or close a cycle (400 naming it).',
      access: volunteersPolicy.roles('manage'),
      body: createVolunteerBody,
      status: 201,
      response: volunteerView,
      errors: { 409: 'Already a volunteer (`volunteer_exists`, with `existingId`), or the user account is linked to another (`user_linked`)' },
    },
    async ({ ctx, input, actor }) => volunteers.createVolunteer(ctx.deps, input.body, actor),
  )
  .get(
    base,
    {
      summary: 'List volunteers',
      description:
        'Newest first. Filters: status, territoryId (and inside it), skill, leaderId, active, q. Each row has its activities in the active window ' +
        'and, with the agenda, its event reliability. `format=csv` downloads every matching row.',
      access: volunteersPolicy.roles('read'),
      query: listVolunteersQuery,
      response: volunteerPageView,
      produces: { 'text/csv': 'format=csv' },
    },
    async ({ ctx, input }) => {
      if (input.query.format === 'csv') {
        ctx.type = 'text/csv; charset=utf-8';
        ctx.set('Content-Disposition', `attachment; filename="voluntarios-${new Date().toISOString().slice(0, 10)}.csv"`);
        ctx.body = volunteers.volunteersCsv(ctx.deps, input.query, attendanceByContacts);
        return undefined;
      }
      return volunteers.listVolunteers(ctx.deps, input.query, attendanceByContacts);
    },
  )
  .get(`${base}/:id`, { summary: 'One volunteer', access: volunteersPolicy.roles('read'), params: idParams, response: volunteerView, errors: notFound }, async ({ ctx, input }) =>
    volunteers.getVolunteer(ctx.deps.db, input.params.id),
  )
  .patch(
    `${base}/:id`,
    {
      summary: 'Change a volunteer',
      description: 'Territory, skills, availability, status, leader, goals, user account, joining day, location consent. The person’s name and contact details are the audience’s.',
      access: volunteersPolicy.roles('manage'),
      params: idParams,
      body: updateVolunteerBody,
      response: volunteerView,
      errors: { ...notFound, 409: 'The user account is linked to another volunteer (`user_linked`)' },
    },
    async ({ ctx, input, actor }) => volunteers.changeVolunteer(ctx.deps, input.params.id, input.body, actor),
  )
  .delete(
    `${base}/:id`,
    {
      summary: 'Remove a volunteer: erase the person’s data',
      description: 'The same as DELETE /api/audience/contacts/{contactId}: every module drops what identifies them, figures stay; audited.',
      access: volunteersPolicy.roles('manage'),
      params: idParams,
      response: erasureView,
      errors: { ...notFound, 409: 'The person’s login is the last active admin (`last_admin`): make another admin first' },
    },
    async ({ ctx, input, actor }) => volunteers.eraseVolunteer(ctx.deps, actor, input.params.id),
  )
  .get(
    `${base}/:id/voters`,
    { summary: 'The GOTV voters a volunteer brings', access: volunteersPolicy.roles('read'), params: idParams, response: votersView, errors: notFound },
    async ({ ctx, input }) => votersOfVolunteer(ctx.deps, input.params.id),
  )
  .put(
    `${base}/:id/voters`,
    {
      summary: 'Set the voters a volunteer brings ("votos amarrados")',
      description: 'Replaces the list, by GOTV voter id or cédula. A voter counts for one volunteer: 409 `voter_linked` when another brings them.',
      access: volunteersPolicy.roles('manage'),
      params: idParams,
      body: votersBody,
      response: votersView,
      errors: { ...notFound, 409: 'A voter already counts for another volunteer (`voter_linked`)' },
    },
    async ({ ctx, input }) => linkVoters(ctx.deps, input.params.id, input.body, true),
  )
  .post(
    `${base}/:id/voters`,
    {
      summary: 'Add voters a volunteer brings',
      access: volunteersPolicy.roles('manage'),
      params: idParams,
      body: votersBody,
      response: votersView,
      errors: { ...notFound, 409: 'A voter already counts for another volunteer (`voter_linked`)' },
    },
    async ({ ctx, input }) => linkVoters(ctx.deps, input.params.id, input.body, false),
  );
