import { ApiRouter, parsePart } from '../../kernel/http/router';
import { pageSchema } from '../../kernel/pagination';
import { presentStation } from './gotv.presenter';
import {
  claimView,
  contactOutcomeBody,
  contactOutcomeView,
  createIncidentBody,
  incidentIdParams,
  incidentView,
  listIncidentsQuery,
  turnoutAnswer,
  turnoutBody,
  turnoutEnvelope,
  updateVoterBody,
  assignVotersBody,
  brigadeIdParams,
  brigadeView,
  createBrigadeBody,
  updateBrigadeBody,
  createStationBody,
  createVoterBody,
  listStationsQuery,
  listVotersQuery,
  stationIdParams,
  stationView,
  updateStationBody,
  voterIdParams,
  voterView,
  gotvImportQuery,
  brigadePeopleView,
} from './gotv.schemas';
import * as stations from './gotv.stations.service';
import * as voters from './gotv.voters.service';
import * as brigades from './gotv.brigades.service';
import { gotvPolicy } from './gotv.policy';
import { recordTurnout } from './gotv.turnout.service';
import { INCIDENT_PHOTO_MAX_BYTES, attachIncidentPhoto, getIncident, incidentPhotoOf, listIncidents, reportIncident } from './gotv.incidents.service';
import { INCIDENT_PHOTO_TYPES, VOTER_PRIORITIES } from './gotv.entities';
import { claimVoter, logContact, releaseClaim } from './gotv.chase.service';
import { dashboardView, gotvDashboard } from './gotv.dashboard';
import { importAnswer, importColumns, importVoters } from './gotv.import';
import { importStations, stationImportAnswer, stationImportColumns } from './gotv.stations.import';
import { dayCurve, dayCurveQuery, dayCurveView, liveMap, liveMapQuery, liveMapView, projection, projectionStations, projectionStationsQuery, projector } from './gotv.live';
import { projectionView, stationProjectionView } from './projection/projection';
import { electionDateOf, getSettings, putSettings, settingsBody, settingsView } from './gotv.settings';
import { AppError } from '../../kernel/errors';
import { z } from 'zod';

const noStation = { 404: 'No such polling station' };

/** Election day: polling stations (voters, brigades, turnout, live map and projection follow). */
export const gotvRouter = new ApiRouter('gotv', 'Election day: polling stations, confirmed voters, brigades, turnout reports, the live map and the projection')
  .post(
    '/api/gotv/polling-stations',
    {
      summary: 'Register a polling station (puesto de votación)',
      access: gotvPolicy.roles('manageStations'),
      body: createStationBody,
      status: 201,
      response: stationView,
      errors: { 409: 'The code is already registered' },
    },
    async ({ ctx, input }) => stations.createStation(ctx.deps, input.body),
  )
  .get(
    '/api/gotv/polling-stations',
    {
      summary: 'List polling stations',
      description: 'Filter by `territoryId`, `status` or a name/code fragment `q`; sorted by name.',
      access: gotvPolicy.roles('readStations'),
      query: listStationsQuery,
      response: pageSchema(stationView),
    },
    async ({ ctx, input }) => stations.listStations(ctx.deps.db, input.query),
  )
  .post(
    '/api/gotv/polling-stations/import',
    {
      summary: 'Register and update polling stations from CSV (up to 20,000 rows), or check a file with dryRun',
      description:
        `Send \`text/csv\` with a header row naming \`code\` and any of: ${stationImportColumns.filter((column) => column !== 'code').join(', ')}. ` +
        'A new code registers a station and needs name, lat, lng, tables and registeredVoters; a registered code changes the fields ' +
        "its row fills and keeps the rest (an empty cell changes nothing), so `code,previousTurnout` loads the previous election's " +
        "results per station for the projection. `territoryCode` places a station by its territory's code when that code names one " +
        'territory. previousTurnout may not exceed the registered voters the station will have. Rows with errors are reported by ' +
        'line and skipped; the other rows are written in one transaction once the whole file is read, and ' +
        'the changed stations are pushed as `gotv:station` (more than 100: one `resync` with reason `bulk_change` to `gotv` and their rooms). ' +
        'With `dryRun=true` the file is read and checked the same way and the answer counts what it would create and update; nothing is written or pushed.',
      access: gotvPolicy.roles('manageStations'),
      query: gotvImportQuery,
      body: z.string().describe('CSV text'),
      bodyTypes: ['csv'],
      handlerParsesBody: true,
      response: stationImportAnswer,
      errors: {
        400: 'CSV that cannot be parsed (`malformed_csv`) or a header without `code` (`missing_columns`); nothing imported',
        409: 'A code in the file was registered by someone else while it was read (`station_code_taken`); nothing imported',
        413: 'More than 20,000 data rows (`too_many_rows`); nothing imported',
      },
    },
    async ({ ctx, input }) => importStations(ctx.deps, ctx.req, input.query.dryRun === 'true'),
  )
  .get(
    '/api/gotv/polling-stations/:id',
    { summary: 'One polling station', access: gotvPolicy.roles('readStations'), params: stationIdParams, response: stationView, errors: noStation },
    async ({ ctx, input }) => presentStation(await stations.getStation(ctx.deps.db, input.params.id)),
  )
  .patch(
    '/api/gotv/polling-stations/:id',
    {
      summary: 'Change a polling station (status, numbers, place)',
      description: 'Publishes `gotv:station` to the `gotv` room and to `gotv:station:<id>`.',
      access: gotvPolicy.roles('manageStations'),
      params: stationIdParams,
      body: updateStationBody,
      response: stationView,
      errors: noStation,
    },
    async ({ ctx, input }) => stations.updateStation(ctx.deps, input.params.id, input.body),
  )
  .delete(
    '/api/gotv/polling-stations/:id',
    {
      summary: 'Delete a polling station nothing points at',
      description:
        'Refused with 409 `station_in_use` while voters, turnout reports, brigades or incidents point at it: the detail names each with its count, ' +
        'and `references` lists them `{ count, one, many }`. Once deleted, `gotv` and the station’s room get `resync` (reason `bulk_change`), so it leaves the live map.',
      access: gotvPolicy.roles('manageStations'),
      params: stationIdParams,
      status: 204,
      errors: { ...noStation, 409: 'Something still points at the station (`station_in_use`)' },
    },
    async ({ ctx, input }) => stations.deleteStation(ctx.deps, input.params.id),
  )
  .post(
    '/api/gotv/voters',
    {
      summary: 'Register a confirmed voter',
      description: 'The document number (cédula) is unique; the phone is normalised to E.164.',
      access: gotvPolicy.roles('manageVoters'),
      body: createVoterBody,
      status: 201,
      response: voterView,
      errors: { 409: 'The document number is already registered' },
    },
    async ({ ctx, input }) => voters.createVoter(ctx.deps.db, input.body),
  )
  .get(
    '/api/gotv/voters',
    {
      summary: 'List confirmed voters',
      description:
        'Filters `pollingStationId`, `territoryId`, `brigadeId`, `status`, `priority`, `claim` (`mine` or `free`), `q` (name, or the start of the document number). ' +
        '`status=pending&claim=free` is the call list. Brigade members see only the voters of their stations and brigades. ' +
        '`format=csv` streams the whole filtered list as CSV (UTF-8 with BOM, formula-safe cells; station, territory and brigade by name, ids last): managers only.',
      access: gotvPolicy.roles('readVoters'),
      query: listVotersQuery,
      response: pageSchema(voterView),
      produces: { 'text/csv': 'CSV export when format=csv' },
    },
    async ({ ctx, input, actor }) => {
      if (input.query.format === 'csv') {
        const file = voters.votersCsv(ctx.deps, actor, input.query);
        ctx.type = 'text/csv; charset=utf-8';
        ctx.set('Content-Disposition', `attachment; filename="votantes-${new Date().toISOString().slice(0, 10)}.csv"`);
        ctx.body = file;
        return undefined;
      }
      return voters.listVoters(ctx.deps, actor, input.query);
    },
  )
  .get(
    '/api/gotv/voters/:id',
    { summary: 'One confirmed voter', access: gotvPolicy.roles('readVoters'), params: voterIdParams, response: voterView, errors: { 404: 'No such voter' } },
    async ({ ctx, input, actor }) => voters.getVoterFor(ctx.deps, actor, input.params.id),
  )
  .patch(
    '/api/gotv/voters/:id',
    {
      summary: 'Correct a confirmed voter',
      description:
        'Any of name, document number, phone (`null` removes it), station, table (`null` removes it), contact and priority. ' +
        'A move to another station moves the voter in both stations’ figures; whether they voted stays as it is.',
      access: gotvPolicy.roles('manageVoters'),
      params: voterIdParams,
      body: updateVoterBody,
      response: voterView,
      errors: { 404: 'No such voter', 409: 'The document number is already registered' },
    },
    async ({ ctx, input }) => voters.updateVoter(ctx.deps, input.params.id, input.body),
  )
  .delete(
    '/api/gotv/voters/:id',
    {
      summary: 'Remove a confirmed voter',
      description:
        'For a voter registered by mistake or a citizen who asked to be removed. Their contact log goes with them; their turnout reports stay, without them, as facts of the day.',
      access: gotvPolicy.roles('manageVoters'),
      params: voterIdParams,
      status: 204,
      errors: { 404: 'No such voter' },
    },
    async ({ ctx, input }) => voters.deleteVoter(ctx.deps, input.params.id),
  )
  .post(
    '/api/gotv/brigades',
    {
      summary: 'Create a brigade with its members and stations',
      description: "Members must be active users with the `brigade` role; they may report turnout only for these stations and the brigade's voters.",
      access: gotvPolicy.roles('manageBrigades'),
      body: createBrigadeBody,
      status: 201,
      response: brigadeView,
      errors: { 409: 'The name is taken' },
    },
    async ({ ctx, input }) => brigades.createBrigade(ctx.deps, input.body),
  )
  .get(
    '/api/gotv/brigades',
    { summary: 'List brigades with members, stations and voter counts', access: gotvPolicy.roles('listBrigades'), response: z.object({ data: z.array(brigadeView) }) },
    async ({ ctx }) => ({ data: await brigades.listBrigades(ctx.deps.db) }),
  )
  .get(
    '/api/gotv/brigade-people',
    {
      summary: 'The people brigades are made of: brigade users to choose from, and everyone a brigade names',
      description:
        'Every active user with the `brigade` role (up to 2,000), who may be made a member, and every user a brigade now names as member or leader, ' +
        'whatever their role or state (`active: false` for a deactivated account), sorted by name. Ids and names only: for the console’s brigade screen.',
      access: gotvPolicy.roles('listBrigades'),
      response: brigadePeopleView,
    },
    async ({ ctx }) => brigades.brigadePeople(ctx.deps.db),
  )
  .get(
    '/api/gotv/brigades/:id',
    {
      summary: 'One brigade',
      description: 'Brigade members may read their own brigades.',
      access: gotvPolicy.roles('readBrigade'),
      params: brigadeIdParams,
      response: brigadeView,
      errors: { 404: 'No such brigade' },
    },
    async ({ ctx, input, actor }) => brigades.getBrigade(ctx.deps.db, actor, input.params.id),
  )
  .patch(
    '/api/gotv/brigades/:id',
    {
      summary: 'Change a brigade',
      description: 'Rename, change the leader (`null` removes it), or replace the member or station list (a list given is the new whole list).',
      access: gotvPolicy.roles('manageBrigades'),
      params: brigadeIdParams,
      body: updateBrigadeBody,
      response: brigadeView,
      errors: { 404: 'No such brigade', 409: 'The name is taken' },
    },
    async ({ ctx, input }) => brigades.updateBrigade(ctx.deps, input.params.id, input.body),
  )
  .post(
    '/api/gotv/brigades/:id/voters',
    {
      summary: 'Assign confirmed voters to a brigade',
      access: gotvPolicy.roles('manageBrigades'),
      params: brigadeIdParams,
      body: assignVotersBody,
      response: brigadeView,
      errors: { 404: 'No such brigade' },
    },
    async ({ ctx, input }) => brigades.assignVoters(ctx.deps.db, input.params.id, input.body.voterIds),
  )
  .post(
    '/api/gotv/turnout',
    {
      summary: 'Report turnout: one report or { reports: [...] } (up to 500)',
      description:
        'Voter reports (`kind: "voter"`, by voterId or documentId) and count reports (`kind: "count"`: votersSoFar at a station). ' +
        'A resent clientReportId, or a second report for a voter who already voted, is a duplicate. A brigade member may report only ' +
        "for the brigade's stations and voters. 201 if anything was accepted, 200 if all were duplicates, 400/403 if every item was rejected.",
      access: gotvPolicy.roles('reportAt'),
      body: turnoutBody,
      // Items of a batch are checked one by one (a malformed one is rejected by index, the rest recorded).
      handlerParsesBody: true,
      status: 201,
      response: turnoutAnswer,
    },
    async ({ ctx, input, actor }) => {
      const answer = await recordTurnout(ctx.deps, actor, parsePart(turnoutEnvelope, input.body, 'body'));
      if (answer.accepted === 0 && answer.duplicates === 0) {
        const forbidden = answer.rejected.every((item) => item.code === 'forbidden');
        throw new AppError(
          forbidden ? 403 : 400,
          forbidden ? 'forbidden' : 'reports_rejected',
          forbidden ? 'Forbidden' : 'Reports rejected',
          'No report was accepted.',
          answer.rejected.map((item) => ({ path: `reports.${item.index}`, message: `${item.code}: ${item.message}` })),
        );
      }
      if (answer.accepted === 0) ctx.status = 200;
      return answer;
    },
  )
  .get(
    '/api/gotv/settings',
    { summary: 'Election-day settings (date, opening hours, turnout curve)', access: gotvPolicy.roles('readSettings'), response: settingsView },
    async ({ ctx }) => getSettings(ctx.deps.db),
  )
  .put(
    '/api/gotv/settings',
    {
      summary: 'Set the election day',
      description:
        'Times are HH:MM in TIMEZONE (default 08:00–16:00). `turnoutCurve` replaces the documented default with the campaign’s own history; ' +
        '`curveHistory` keeps past days’ curves (GET /api/gotv/day-curve derives one from a past day’s counts): the prior’s mean when there is no `turnoutCurve`, and its spread.',
      access: gotvPolicy.roles('manageSettings'),
      body: settingsBody,
      response: settingsView,
    },
    async ({ ctx, input }) => putSettings(ctx.deps, input.body),
  )
  .get(
    '/api/gotv/day-curve',
    {
      summary: 'A past day’s turnout curve, learned from its count reports',
      description:
        'The cumulative share of that day’s final turnout by hour, from the count reports kept for that local date (a previous election, a rehearsal), ' +
        'on the configured hours. Store it as `curveHistory` (or `turnoutCurve`) with PUT /api/gotv/settings. Method: docs/gotv-projection.md.',
      access: gotvPolicy.roles('readSettings'),
      query: dayCurveQuery,
      response: dayCurveView,
    },
    async ({ ctx, input }) => dayCurve(ctx.deps.db, ctx.deps.config.timeZone, input.query.date),
  )
  .get(
    '/api/gotv/live-map',
    {
      summary: 'Real-time map of polling stations (GeoJSON FeatureCollection)',
      description: '`territoryId` (with everything inside it) and `bbox=minLng,minLat,maxLng,maxLat` narrow it.',
      access: gotvPolicy.roles('watch'),
      query: liveMapQuery,
      response: liveMapView,
    },
    async ({ ctx, input }) => liveMap(ctx.deps.db, ctx.deps.config.timeZone, await electionDateOf(ctx.deps), input.query),
  )
  .get(
    '/api/gotv/projection',
    {
      summary: 'Automatic projection of the day’s final turnout, overall and per territory',
      description:
        'The turnout curve is learned from the day’s counts (`curve`, with its band), intervals have nominal `coverage`, and the confirmed-supporter ' +
        'projection is corrected for the reporting delay (`lagMinutes`). Method, formulas and accuracy: docs/gotv-projection.md.',
      access: gotvPolicy.roles('watch'),
      query: liveMapQuery.pick({ territoryId: true }),
      response: projectionView,
      errors: { 409: 'The election date is not set' },
    },
    async ({ ctx, input }) => projection(ctx.deps.db, ctx.deps.config.timeZone, input.query, { projector: projector(ctx.deps) }),
  )
  .get(
    '/api/gotv/projection/stations',
    {
      summary: 'The projection of each polling station, a page at a time',
      description:
        'Each station’s projected turnout and supporters with their intervals and `basis`, in id order (`territoryId` narrows it to a territory with what is ' +
        'inside it). The overall and per-territory figures are in GET /api/gotv/projection; a national day’s stations are listed here so that neither answer grows with them.',
      access: gotvPolicy.roles('watch'),
      query: projectionStationsQuery,
      response: pageSchema(stationProjectionView),
      errors: { 409: 'The election date is not set' },
    },
    async ({ ctx, input }) => projectionStations(ctx.deps.db, ctx.deps.config.timeZone, input.query, { projector: projector(ctx.deps) }),
  )
  .post(
    '/api/gotv/incidents',
    {
      summary: 'Report an incident at a polling station',
      description:
        'Sets the station to `incident` and pushes `gotv:incident` and `gotv:station` to the war room. A resend with the same `clientId` by the same reporter ' +
        'answers the first incident with 200 and records nothing. The photo follows with PUT /api/gotv/incidents/{id}/photo.',
      access: gotvPolicy.roles('reportAt'),
      body: createIncidentBody,
      status: 201,
      response: incidentView,
      errors: { 409: 'The clientId was used for an incident at another station (`client_id_reused`)' },
    },
    async ({ ctx, input, actor }) => {
      const answer = await reportIncident(ctx.deps, actor, input.body);
      if (!answer.created) ctx.status = 200;
      return answer.incident;
    },
  )
  .get(
    '/api/gotv/incidents',
    {
      summary: 'List incidents, newest first',
      description: 'For the war room’s alerts feed after a (re)load: `since` (an instant) and `pollingStationId` narrow it.',
      access: gotvPolicy.roles('watch'),
      query: listIncidentsQuery,
      response: pageSchema(incidentView),
    },
    async ({ ctx, input }) => listIncidents(ctx.deps.db, input.query),
  )
  .get(
    '/api/gotv/incidents/:id',
    {
      summary: 'One incident, with its reporter’s name',
      description: 'The war room’s detail of an incident; its photo, when `photo` is not null, is `GET /api/gotv/incidents/{id}/photo`.',
      access: gotvPolicy.roles('watch'),
      params: incidentIdParams,
      response: incidentView,
      errors: { 404: 'No such incident' },
    },
    async ({ ctx, input }) => getIncident(ctx.deps.db, input.params.id),
  )
  .put(
    '/api/gotv/incidents/:id/photo',
    {
      summary: 'Add the photo of an incident',
      description:
        `The raw image as the body, \`Content-Type\` ${INCIDENT_PHOTO_TYPES.join(' or ')}; its first bytes must match (415 otherwise). At most ` +
        `${INCIDENT_PHOTO_MAX_BYTES / 1024 / 1024} MB (413). Its reporter (within their brigade's stations) or a manager may add it; a new photo replaces the old one.`,
      access: gotvPolicy.roles('photographIncident'),
      params: incidentIdParams,
      body: z.string().describe('The photo'),
      bodyTypes: ['jpeg', 'png'],
      handlerParsesBody: true,
      response: incidentView,
      errors: { 404: 'No such incident', 413: 'Larger than 2 MB', 415: 'Not a JPEG or PNG, or not what Content-Type says (`photo_type_mismatch`)' },
    },
    async ({ ctx, input, actor }) => {
      const declaredLength = ctx.request.length;
      return attachIncidentPhoto(ctx.deps, actor, input.params.id, ctx.request.type, ctx.req, Number.isFinite(declaredLength) ? declaredLength : undefined);
    },
  )
  .get(
    '/api/gotv/incidents/:id/photo',
    {
      summary: 'The photo of an incident',
      description: 'Staff, and the brigade member who reported the incident.',
      access: gotvPolicy.roles('seeIncidentPhoto'),
      params: incidentIdParams,
      produces: Object.fromEntries(INCIDENT_PHOTO_TYPES.map((type) => [type, 'The photo as uploaded'])),
      errors: { 404: 'No such incident, or it has no photo' },
    },
    async ({ ctx, input, actor }) => {
      const photo = await incidentPhotoOf(ctx.deps, actor, input.params.id);
      ctx.type = photo.type;
      ctx.length = photo.size;
      ctx.body = photo.file;
      return undefined;
    },
  )
  .post(
    '/api/gotv/voters/:id/claim',
    {
      summary: 'Claim a voter from the call list (expires after GOTV_CLAIM_TTL)',
      access: gotvPolicy.roles('chase'),
      params: voterIdParams,
      response: claimView,
      errors: { 404: 'No such voter', 409: 'Already voted, or claimed by someone else' },
    },
    async ({ ctx, input, actor }) => claimVoter(ctx.deps, actor, input.params.id),
  )
  .delete(
    '/api/gotv/voters/:id/claim',
    {
      summary: 'Give a claimed voter back to the call list',
      description: 'The person who claimed the voter, or a manager, may release it; releasing an unclaimed voter does nothing.',
      access: gotvPolicy.roles('chase'),
      params: voterIdParams,
      status: 204,
      errors: { 404: 'No such voter' },
    },
    async ({ ctx, input, actor }) => releaseClaim(ctx.deps, actor, input.params.id),
  )
  .post(
    '/api/gotv/voters/:id/contacts',
    {
      summary: 'Log how contacting a voter went',
      description:
        '`reached` → contacted, `on_the_way` → on the way; others keep the status. Releases the claim. ' +
        "A brigade member cannot log on a voter a colleague has claimed (409 `voter_claimed`); a manager can, and releases the colleague's claim. " +
        'A resend with the same `clientId` by the same person answers the first outcome with 200 (with the voter’s current status) and records nothing.',
      access: gotvPolicy.roles('chase'),
      params: voterIdParams,
      body: contactOutcomeBody,
      status: 201,
      response: contactOutcomeView,
      errors: { 404: 'No such voter', 409: 'A colleague holds the claim (`voter_claimed`), or the clientId was used for another voter (`client_id_reused`)' },
    },
    async ({ ctx, input, actor }) => {
      const answer = await logContact(ctx.deps, actor, input.params.id, input.body);
      if (!answer.created) ctx.status = 200;
      return answer.contact;
    },
  )
  .get(
    '/api/gotv/dashboard',
    {
      summary: 'Election-day dashboard',
      description:
        'Stations by status, confirmed voters voted/pending, reports per hour, progress per territory and brigade, the stations with most pending voters, and the projection summary.',
      access: gotvPolicy.roles('watch'),
      response: dashboardView,
    },
    async ({ ctx }) => gotvDashboard(ctx.deps.db, ctx.deps.config.timeZone, projector(ctx.deps)),
  )
  .post(
    '/api/gotv/voters/import',
    {
      summary: 'Import confirmed voters from CSV (up to 100,000 rows, streamed), or check a file with dryRun',
      description:
        `Send \`text/csv\` with a header row: ${importColumns.join(', ')} (phone, tableNumber and priority may be empty; priority is ${VOTER_PRIORITIES.join(', ')}, \`normal\` when empty). ` +
        'Rows with errors are reported by line, each with all its errors, and skipped; the whole file is read before anything is written, then valid rows ' +
        'are written 2,000 at a time, each batch in one statement. A registered document number updates that voter (name and station as given; phone, table and ' +
        'priority when filled; a move to another station without a table clears it): the answer counts created, updated and unchanged rows, so a corrected file can be sent again. ' +
        'A cédula or phone of a person whose data was erased is not imported. ' +
        'With `dryRun=true` the file is read and checked the same way and the answer counts what it would create, update and leave unchanged; nothing is written.',
      access: gotvPolicy.roles('manageVoters'),
      query: gotvImportQuery,
      body: z.string().describe('CSV text'),
      bodyTypes: ['csv'],
      handlerParsesBody: true,
      response: importAnswer,
      errors: { 400: 'CSV that cannot be parsed (`malformed_csv`); nothing imported', 413: 'More than 100,000 data rows (`too_many_rows`); nothing imported' },
    },
    async ({ ctx, input }) => importVoters(ctx.deps, ctx.req, input.query.dryRun === 'true'),
  );
