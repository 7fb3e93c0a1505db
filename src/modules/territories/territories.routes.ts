import { ApiRouter } from '../../kernel/http/router';
import { pageSchema } from '../../kernel/pagination';
import { territoriesPolicy } from './territories.policy';
import { presentTerritoryDetail } from './territories.presenter';
import { z } from 'zod';
import { importTerritories, TERRITORY_IMPORT_COLUMNS, TERRITORY_IMPORT_MAX_ROWS, territoryImportAnswer } from './territories.import';
import { createTerritoryBody, listTerritoriesQuery, territoryDetailView, territoryIdParams, territoryImportQuery, territoryView, updateTerritoryBody } from './territories.schemas';
import * as service from './territories.service';

const importColumns = Object.values(TERRITORY_IMPORT_COLUMNS)
  .map((names) => names.map((name) => `\`${name}\``).join(' / '))
  .join(', ');
const types = 'Levels are named in English or Spanish (`municipio`, `comuna`, `localidad`, `barrio`, `vereda`…); answers use the English name.';

export const territoriesRouter = new ApiRouter('territories', 'Departments, municipalities, comunas and barrios the campaign works in')
  .get(
    '/api/territories',
    {
      summary: 'List territories',
      description: `Filter by \`type\`, \`parentId\` or a name fragment \`q\`; sorted by name. ${types}`,
      access: territoriesPolicy.roles('read'),
      query: listTerritoriesQuery,
      response: pageSchema(territoryView),
    },
    async ({ ctx, input }) => service.listTerritories(ctx.deps.db, input.query),
  )
  .post(
    '/api/territories',
    {
      summary: 'Create a territory',
      description: `Levels nest departamento → municipio → comuna → barrio; zones group any level. Without a centroid, one is computed from the geometry. ${types}`,
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
  )
  .post(
    '/api/territories/import',
    {
      summary: `Build departamento → municipio → comuna from CSV (up to ${TERRITORY_IMPORT_MAX_ROWS.toLocaleString('en')} rows), or check a file with dryRun`,
      description:
        `Send \`text/csv\` (\`,\` or \`;\` separated) with a header naming, in any case and with or without accents: ${importColumns}. ` +
        'departamento and municipio are required; other columns (a puestos file’s PUESTO, DIRECCIÓN, LATITUD…) are ignored, so the Registraduría’s ' +
        'puestos files load as they come. A place is matched by its level and code, else by its name (without case, accents or punctuation) under the same parent; ' +
        'a comuna cell such as `01COMUNA 1 POPULAR` becomes `Comuna 1 Popular`, its code the municipio’s and the number (`13001-01`) when the municipio has a code. ' +
        'Answers how many territories the file created, updated (gave a code or a name) and found unchanged, and every rejected row by line with all its errors.',
      access: territoriesPolicy.roles('create'),
      query: territoryImportQuery,
      body: z.string().describe('CSV text'),
      bodyTypes: ['csv'],
      handlerParsesBody: true,
      response: territoryImportAnswer,
      errors: {
        400: 'CSV that cannot be parsed (`malformed_csv`) or a header without departamento or municipio (`missing_columns`); nothing imported',
        409: 'A code in the file was given to another territory while it was read (`territory_code_taken`); nothing imported',
        413: `More than ${TERRITORY_IMPORT_MAX_ROWS.toLocaleString('en')} data rows (\`too_many_rows\`); nothing imported`,
      },
    },
    async ({ ctx, input }) => importTerritories(ctx.deps, ctx.req, input.query.dryRun === 'true'),
  )
  .patch(
    '/api/territories/:id',
    {
      summary: 'Change a territory',
      description: `Any field of the creation body; \`null\` clears an optional one (\`parentId: null\` makes it stand alone). The level and the parent are checked as on creation; a move under itself or one of its own sub-territories, or a level its sub-territories could not sit in, is refused. ${types}`,
      access: territoriesPolicy.roles('create'),
      params: territoryIdParams,
      body: updateTerritoryBody,
      response: territoryDetailView,
      errors: { 404: 'No such territory', 409: 'The code is already used by a territory of this type' },
    },
    async ({ ctx, input }) => service.updateTerritory(ctx.deps, input.params.id, input.body),
  )
  .delete(
    '/api/territories/:id',
    {
      summary: 'Delete a territory nothing points at',
      description:
        'Refused with 409 `territory_in_use` while stations, voters, contacts, leads, volunteers, PQRS, events, polls or sub-territories point at it: ' +
        'the detail names each with its count, and `references` lists them `{ module, count, one, many }`.',
      access: territoriesPolicy.roles('create'),
      params: territoryIdParams,
      status: 204,
      errors: { 404: 'No such territory', 409: 'Something still points at the territory (`territory_in_use`)' },
    },
    async ({ ctx, input }) => service.removeTerritory(ctx.deps, input.params.id),
  );
