import { ApiRouter } from '../../kernel/http/router';
import { pageSchema } from '../../kernel/pagination';
import { presentStation } from './gotv.presenter';
import { createStationBody, listStationsQuery, stationIdParams, stationView, updateStationBody } from './gotv.schemas';
import * as stations from './gotv.stations.service';

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
  );
