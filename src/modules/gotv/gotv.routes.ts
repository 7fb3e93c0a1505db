import { ApiRouter } from '../../kernel/http/router';
import { pageSchema } from '../../kernel/pagination';
import { presentStation, presentVoter } from './gotv.presenter';
import {
  assignVotersBody,
  brigadeIdParams,
  brigadeView,
  createBrigadeBody,
  createStationBody,
  createVoterBody,
  listStationsQuery,
  listVotersQuery,
  stationIdParams,
  stationView,
  updateStationBody,
  voterIdParams,
  voterView,
} from './gotv.schemas';
import * as stations from './gotv.stations.service';
import * as voters from './gotv.voters.service';
import * as brigades from './gotv.brigades.service';
import { z } from 'zod';

const noStation = { 404: 'No such polling station' };

/** Election day: polling stations (voters, brigades, turnout, live map and projection follow). */
export const gotvRouter = new ApiRouter('gotv')
  .post(
    '/api/gotv/polling-stations',
    {
      summary: 'Register a polling station (puesto de votación)',
      access: ['manager'],
      body: createStationBody,
      status: 201,
      response: stationView,
      errors: { 409: 'The code is already registered' },
    },
    async ({ ctx, input, em }) => stations.createStation(em, ctx.deps, input.body),
  )
  .get(
    '/api/gotv/polling-stations',
    {
      summary: 'List polling stations',
      description: 'Filter by `territoryId`, `status` or a name/code fragment `q`; sorted by name.',
      access: ['manager', 'viewer', 'brigade'],
      query: listStationsQuery,
      response: pageSchema(stationView),
    },
    async ({ input, em }) => stations.listStations(em, input.query),
  )
  .get(
    '/api/gotv/polling-stations/:id',
    { summary: 'One polling station', access: ['manager', 'viewer', 'brigade'], params: stationIdParams, response: stationView, errors: noStation },
    async ({ input, em }) => presentStation(await stations.getStation(em, input.params.id)),
  )
  .patch(
    '/api/gotv/polling-stations/:id',
    {
      summary: 'Change a polling station (status, numbers, place)',
      description: 'Publishes `gotv:station` to the `gotv` room and to `gotv:station:<id>`.',
      access: ['manager'],
      params: stationIdParams,
      body: updateStationBody,
      response: stationView,
      errors: noStation,
    },
    async ({ ctx, input, em }) => stations.updateStation(em, ctx.deps, input.params.id, input.body),
  )
  .post(
    '/api/gotv/voters',
    {
      summary: 'Register a confirmed voter',
      description: 'The document number (cédula) is unique; the phone is normalised to E.164.',
      access: ['manager'],
      body: createVoterBody,
      status: 201,
      response: voterView,
      errors: { 409: 'The document number is already registered' },
    },
    async ({ input, em }) => voters.createVoter(em, input.body),
  )
  .get(
    '/api/gotv/voters',
    {
      summary: 'List confirmed voters',
      description: 'Filters `pollingStationId`, `territoryId`, `status`, `priority`, `q` (name, or the start of the document number). `status=pending` is the call list.',
      access: ['manager'],
      query: listVotersQuery,
      response: pageSchema(voterView),
    },
    async ({ input, em }) => voters.listVoters(em, input.query),
  )
  .get(
    '/api/gotv/voters/:id',
    { summary: 'One confirmed voter', access: ['manager'], params: voterIdParams, response: voterView, errors: { 404: 'No such voter' } },
    async ({ input, em }) => presentVoter(await voters.getVoter(em, input.params.id)),
  )
  .post(
    '/api/gotv/brigades',
    {
      summary: 'Create a brigade with its members and stations',
      description: 'Members must be active users with the `brigade` role; they may report turnout only for these stations and the brigade\'s voters.',
      access: ['manager'],
      body: createBrigadeBody,
      status: 201,
      response: brigadeView,
      errors: { 409: 'The name is taken' },
    },
    async ({ input, em }) => brigades.createBrigade(em, input.body),
  )
  .get(
    '/api/gotv/brigades',
    { summary: 'List brigades with members, stations and voter counts', access: ['manager', 'viewer'], response: z.object({ data: z.array(brigadeView) }) },
    async ({ em }) => ({ data: await brigades.describeBrigades(em) }),
  )
  .post(
    '/api/gotv/brigades/:id/voters',
    {
      summary: 'Assign confirmed voters to a brigade',
      access: ['manager'],
      params: brigadeIdParams,
      body: assignVotersBody,
      response: brigadeView,
      errors: { 404: 'No such brigade' },
    },
    async ({ input, em }) => brigades.assignVoters(em, input.params.id, input.body.voterIds),
  );
