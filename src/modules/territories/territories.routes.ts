import { ApiRouter } from '../../kernel/http/router';
import { pageSchema } from '../../kernel/pagination';
import { territoriesPolicy } from './territories.policy';
import { presentTerritoryDetail } from './territories.presenter';
import { createTerritoryBody, listTerritoriesQuery, territoryDetailView, territoryIdParams, territoryView } from './territories.schemas';
import * as service from './territories.service';

export const territoriesRouter = new ApiRouter('territories', 'Departments, municipalities, comunas and barrios the campaign works in')
  .get(
    '/api/territories',
    {
      summary: 'List territories',
      description: 'Filter by `type`, `parentId` or a name fragment `q`; sorted by name.',
      access: territoriesPolicy.roles('read'),
      query: listTerritoriesQuery,
      response: pageSchema(territoryView),
    },
    async ({ input, em }) => service.listTerritories(em, input.query),
  )
  .post(
    '/api/territories',
    {
      summary: 'Create a territory',
      description: 'Levels nest departamento → municipio → comuna → barrio; zones group any level. ' + 'Without a centroid, one is computed from the geometry.',
      access: territoriesPolicy.roles('create'),
      body: createTerritoryBody,
      status: 201,
      response: territoryDetailView,
      errors: { 409: 'The code is already used by a territory of this type' },
    },
    async ({ ctx, input }) => service.createTerritory(ctx.deps, input.body),
  )
  .get(
    '/api/territories/:id',
    {
      summary: 'One territory, with its geometry',
      access: territoriesPolicy.roles('read'),
      params: territoryIdParams,
      response: territoryDetailView,
      errors: { 404: 'No such territory' },
    },
    async ({ ctx, input }) => presentTerritoryDetail(await service.getTerritory(ctx.deps.db, input.params.id)),
  );
