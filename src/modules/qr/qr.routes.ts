import { ApiRouter } from '../../kernel/http/router';
import { roleAllowed } from '../../kernel/auth/roles';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../../kernel/errors';
import { pageSchema } from '../../kernel/pagination';
import { analyseCampaign, analysisView } from './qr.analysis';
import * as campaigns from './qr.campaigns.service';
import { qrImages } from './qr.codes';
import { codeContexts } from './qr.context';
import { leadView, leadsCsv, listLeads, listLeadsQuery } from './qr.leads';
import { qrPolicy } from './qr.policy';
import { presentCampaign } from './qr.presenter';
import {
  campaignIdParams,
  campaignView,
  codeIdParams,
  codeImageParams,
  codeView,
  createCampaignBody,
  generateCodesBody,
  generateCodesResponse,
  listCampaignsQuery,
  listCodesQuery,
  sheetLinkView,
  sheetQuery,
  updateCampaignBody,
  updateCodeBody,
} from './qr.schemas';
import { renderSheet } from './qr.sheet';
import { actorOfSheetLink, signSheetLink } from './qr.sheet-link';

const sheetPath = (campaignId: string) => `/api/poster-qr/campaigns/${campaignId}/sheet`;

const noCampaign = { 404: 'No such campaign' };

/** Staff side of poster campaigns: set-up, codes, leads and their analysis. */
export const qrRouter = new ApiRouter('poster-qr', 'Poster QR campaigns, codes, scans and the leads they capture')
  .post(
    '/api/poster-qr/campaigns',
    {
      summary: 'Create a QR poster campaign',
      description: 'Starts as `draft` unless `status: "active"` is sent; a draft takes no submissions.',
      access: qrPolicy.roles('manage'),
      body: createCampaignBody,
      status: 201,
      response: campaignView,
    },
    async ({ ctx, input }) => campaigns.createCampaign(ctx.deps, input.body),
  )
  .get(
    '/api/poster-qr/campaigns',
    { summary: 'List QR campaigns, newest first', access: qrPolicy.roles('read'), query: listCampaignsQuery, response: pageSchema(campaignView) },
    async ({ ctx, input }) => campaigns.listCampaigns(ctx.deps.db, input.query),
  )
  .get(
    '/api/poster-qr/campaigns/:id',
    { summary: 'One QR campaign', access: qrPolicy.roles('read'), params: campaignIdParams, response: campaignView, errors: noCampaign },
    async ({ ctx, input }) => presentCampaign(await campaigns.getCampaign(ctx.deps.db, input.params.id)),
  )
  .patch(
    '/api/poster-qr/campaigns/:id',
    {
      summary: 'Change a QR campaign (status, dates, landing page)',
      description: 'Status moves draft → active ⇄ paused → ended; ended is final. A new consent text is kept as a new version.',
      access: qrPolicy.roles('manage'),
      params: campaignIdParams,
      body: updateCampaignBody,
      response: campaignView,
      errors: { ...noCampaign, 409: 'The status change is not allowed' },
    },
    async ({ ctx, input }) => campaigns.updateCampaign(ctx.deps, input.params.id, input.body),
  )
  .post(
    '/api/poster-qr/campaigns/:id/generate-codes',
    {
      summary: 'Mint poster codes',
      description:
        'Each code links its QR images (`svgUrl`, `pngUrl`), rendered on first request and kept; both encode `url` ' + '(PUBLIC_BASE_URL/q/<code>) with error correction Q.',
      access: qrPolicy.roles('manage'),
      params: campaignIdParams,
      body: generateCodesBody,
      status: 201,
      response: generateCodesResponse,
      errors: { ...noCampaign, 409: 'The campaign has ended' },
    },
    async ({ ctx, input }) => campaigns.generateCodes(ctx.deps, input.params.id, input.body),
  )
  .get(
    '/api/poster-qr/campaigns/:id/codes',
    {
      summary: "A campaign's poster codes and placements",
      description: '`overdue=true` lists posters past their removal deadline that are not marked removed.',
      access: qrPolicy.roles('read'),
      params: campaignIdParams,
      query: listCodesQuery,
      response: pageSchema(codeView),
      errors: noCampaign,
    },
    async ({ ctx, input }) => campaigns.listCodes(ctx.deps, input.params.id, input.query),
  )
  .patch(
    '/api/poster-qr/codes/:id',
    {
      summary: "Update a poster's placement (site, authorisation, removal)",
      access: qrPolicy.roles('manage'),
      params: codeIdParams,
      body: updateCodeBody,
      response: codeView,
      errors: { 404: 'No such code' },
    },
    async ({ ctx, input }) => campaigns.updateCode(ctx.deps, input.params.id, input.body),
  )
  .get(
    '/api/poster-qr/codes/:code.:format',
    {
      summary: "A poster code's QR image (.svg for print, .png)",
      description: 'Public: the code is printed on the poster anyway.',
      access: 'public',
      params: codeImageParams,
      produces: { 'image/svg+xml': 'SVG', 'image/png': 'PNG, 1024 px' },
      errors: { 404: 'No such code' },
    },
    async ({ ctx, input }) => {
      const context = await codeContexts(ctx.deps).get(input.params.code);
      if (!context) throw new NotFoundError('No poster has this code.');
      const images = qrImages(ctx.deps);
      ctx.type = input.params.format === 'svg' ? 'image/svg+xml' : 'image/png';
      ctx.body = input.params.format === 'svg' ? await images.svg(context.code) : await images.png(context.code);
      ctx.set('Cache-Control', 'public, max-age=86400');
      // Staff tools on other origins embed these images.
      ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
      return undefined;
    },
  )
  .post(
    '/api/poster-qr/campaigns/:id/sheet-link',
    {
      summary: "A short-lived link that opens a campaign's printable sheet in a browser",
      description:
        'The sheet answers a bearer header, which a browser tab cannot send: this link carries, signed, the campaign, the ' +
        'caller and their token version, for five minutes. It opens only this campaign’s sheet (every page of it), and ' +
        'stops with the caller’s tokens (sign-out everywhere, a role change, deactivation).',
      access: qrPolicy.roles('manage'),
      params: campaignIdParams,
      status: 201,
      response: sheetLinkView,
      errors: noCampaign,
    },
    async ({ ctx, input, actor }) => {
      await campaigns.getCampaign(ctx.deps.db, input.params.id);
      const { token, expiresAt } = await signSheetLink(ctx.deps, actor, input.params.id);
      return { url: `${ctx.deps.config.publicBaseUrl}${sheetPath(input.params.id)}?link=${token}`, expiresAt: expiresAt.toISOString() };
    },
  )
  .get(
    '/api/poster-qr/campaigns/:id/sheet',
    {
      summary: "Printable sheet of a campaign's poster codes, a page at a time (HTML, label under each code)",
      description:
        'Page `page` (from 1) holds 240 codes, oldest first, laid out as ten A4 sheets of 24 (4 × 6) with the label and URL ' +
        'under each QR; links to the other pages show on screen, not on paper. A campaign without codes has one empty page. ' +
        'A manager’s bearer header, or `link` from `POST …/sheet-link` (a browser tab): an expired link is a 401, one ' +
        'signed for another campaign a 403.',
      access: 'optional',
      params: campaignIdParams,
      query: sheetQuery,
      produces: { 'text/html': 'A4 print layout' },
      errors: {
        401: 'No bearer header and no link, or the link expired or is not valid',
        403: 'Not a manager, or a link for another campaign',
        404: 'No such campaign, or no such page',
      },
    },
    async ({ ctx, input, maybeActor }) => {
      const { link } = input.query;
      if (link) await actorOfSheetLink(ctx.deps, link, input.params.id);
      else if (!maybeActor) throw new UnauthorizedError();
      else if (!roleAllowed(maybeActor.role, qrPolicy.roles('manage'))) throw new ForbiddenError();
      const sheet = await campaigns.codesForSheet(ctx.deps.db, input.params.id, input.query.page);
      ctx.type = 'html';
      ctx.set('Cache-Control', 'private, no-store');
      ctx.body = await renderSheet(sheet, qrImages(ctx.deps), ctx.deps.config.publicBaseUrl, link);
      return undefined;
    },
  )
  .get(
    '/api/qr-leads',
    {
      summary: 'Captured leads, newest first',
      description: 'Filters combine. `format=csv` streams the same selection as CSV (UTF-8 with BOM, formula-safe cells).',
      access: qrPolicy.roles('readLeads'),
      query: listLeadsQuery,
      response: pageSchema(leadView),
      produces: { 'text/csv': 'CSV export when format=csv' },
    },
    async ({ ctx, input }) => {
      if (input.query.format === 'csv') {
        ctx.type = 'text/csv; charset=utf-8';
        ctx.set('Content-Disposition', `attachment; filename="leads-${new Date().toISOString().slice(0, 10)}.csv"`);
        ctx.body = leadsCsv(ctx.deps.db, input.query);
        return undefined;
      }
      return listLeads(ctx.deps.db, input.query);
    },
  )
  .get(
    '/api/qr-leads/campaign/:id/analysis',
    {
      summary: "A QR campaign's scans, leads and conversion, by code, day, hour, interest and territory",
      access: qrPolicy.roles('read'),
      params: campaignIdParams,
      response: analysisView,
      errors: noCampaign,
    },
    async ({ ctx, input }) => analyseCampaign(ctx.deps.db, input.params.id, ctx.deps.config.timeZone),
  );
