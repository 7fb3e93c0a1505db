import type { Context } from 'koa';
import { z } from 'zod';
import {
  LANDING_CSS_PATH,
  LANDING_JS_PATH,
  landingAsset,
  renderClosed,
  renderLanding,
  renderNotFound,
  renderProblem,
  renderThankYou,
  type LandingView,
} from '../../../landing/templates';
import type { AppError } from '../../kernel/errors';
import { ApiRouter } from '../../kernel/http/router';
import { captureBody, captureLead, fromForm, isClientError } from './qr.capture';
import { campaignContexts, codeContexts, type CampaignContext } from './qr.context';
import { CODE_PATTERN } from './qr.codes';
import { FORM_RETURN_COOKIE, formCookieHeader, loadForm, saveForm, type FormValues } from './qr.form-return';
import { isOpen } from './qr.policy';
import { offersVolunteerSignup } from './qr.presenter';
import { recordScan } from './qr.scans';

const CAPTURE_PATH = '/api/qr-leads/capture';
const thanksPath = (code: string) => `/q/${code}/gracias`;

const landingParams = z.object({ code: z.string() });
const landingQuery = z.object({
  e: z
    .string()
    .regex(/^[A-Za-z0-9_-]{22}$/, 'is not an id this page gave out')
    .optional()
    .describe('After a failed form post: the id of the saved values and errors (kept ≤ 10 min in an encrypted cookie)'),
});

/** The saved form is readable only over HTTPS when the site is served that way. */
const secureCookies = (ctx: Context) => ctx.secure || ctx.deps.config.publicBaseUrl.startsWith('https:');

function html(ctx: Context, status: number, body: string): undefined {
  ctx.status = status;
  ctx.type = 'html';
  // Personal data may be refilled into the form after an error: never cache these pages.
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
  return undefined;
}

function landingView(code: string, campaign: CampaignContext, extra: Pick<LandingView, 'values' | 'errors'> = {}): LandingView {
  const { landing } = campaign;
  return {
    code,
    actionUrl: CAPTURE_PATH,
    thanksUrl: thanksPath(code),
    title: landing.title,
    intro: landing.intro,
    interests: landing.interests,
    fields: landing.fields,
    territories: campaign.neighbourhoods,
    consentText: landing.consentText,
    privacyPolicyUrl: landing.privacyPolicyUrl,
    volunteerSignup: offersVolunteerSignup(landing),
    ...extra,
  };
}

const closedMessage = 'Esta convocatoria no está recibiendo datos en este momento. ¡Gracias por tu interés!';

/** The poster's campaign, if the code is one; unknown codes are not looked up in the database twice. */
async function lookup(ctx: Context, code: string): Promise<{ codeId: string; campaignId: string; campaign: CampaignContext } | undefined> {
  if (!CODE_PATTERN.test(code)) return undefined;
  const context = await codeContexts(ctx.deps).get(code);
  const campaign = context && (await campaignContexts(ctx.deps).get(context.campaignId));
  return context && campaign ? { codeId: context.codeId, campaignId: context.campaignId, campaign } : undefined;
}

/**
 * A failed form post: 303 back to the poster's page, which shows what the citizen typed and every
 * error (post/redirect/get, so a refresh does not resubmit). Pages that are not the form answer directly.
 */
async function answerFormError(ctx: Context, body: Record<string, unknown>, error: AppError): Promise<undefined> {
  const code = typeof body.code === 'string' ? body.code.trim() : '';
  const found = await lookup(ctx, code);
  if (error.status === 429) return html(ctx, 429, renderProblem({ title: 'Demasiados intentos', message: 'Espera unos minutos y vuelve a intentarlo.' }));
  if (!found || error.status === 404) return html(ctx, 404, renderNotFound());
  if (error.code === 'campaign_closed') return html(ctx, 409, renderClosed({ title: found.campaign.landing.title, message: closedMessage }));
  const errors = (error.errors ?? [{ path: 'form', message: error.message }]).map((fieldError) => ({
    field: fieldError.path.replace(/^body\./, '').split('.')[0]!,
    message: fieldError.message,
  }));
  const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
  const values: FormValues = {
    name: text('name'),
    phone: text('phone'),
    email: text('email'),
    documentId: text('documentId'),
    neighbourhood: text('neighbourhood'),
    territoryId: text('territoryId'),
    interests: Array.isArray(body.interests) ? body.interests.filter((value): value is string => typeof value === 'string') : [],
    whatsappOptIn: body.whatsappOptIn === true,
    emailOptIn: body.emailOptIn === true,
    consent: body.consent === true,
    volunteer: body.volunteer === true,
  };
  const saved = saveForm(ctx.deps.secrets.ipHashKey, code, values, errors);
  ctx.append('Set-Cookie', formCookieHeader(code, saved.cookie, secureCookies(ctx)));
  ctx.status = 303;
  ctx.redirect(`/q/${code}?e=${saved.id}`);
  return undefined;
}

/** What citizens reach from a poster: the landing page, the capture endpoint, the thank-you page. */
export const landingRouter = new ApiRouter('landing', 'The public pages citizens reach from a poster')
  .get(
    '/q/:code',
    {
      summary: 'Landing page of a poster code (records the scan)',
      description:
        'Unknown code → 404 page; a campaign not taking submissions → 410 page. With `e` (the redirect after a failed form post), ' +
        'the form comes back with what was typed and every error, read from a short-lived encrypted cookie; that visit is not counted as a scan.',
      access: 'public',
      params: landingParams,
      query: landingQuery,
      openQuery: true,
      produces: { 'text/html': 'The data-capture form, in Spanish' },
      errors: { 404: 'Unknown code (HTML page)', 410: 'Campaign closed (HTML page)' },
    },
    async ({ ctx, input }) => {
      const code = input.params.code.toLowerCase();
      const found = await lookup(ctx, code);
      if (!found) return html(ctx, 404, renderNotFound());
      const returnId = input.query.e;
      if (returnId) {
        if (!isOpen(found.campaign)) return html(ctx, 410, renderClosed({ title: found.campaign.landing.title, message: closedMessage }));
        const saved = loadForm(ctx.deps.secrets.ipHashKey, ctx.cookies.get(FORM_RETURN_COOKIE), code, returnId);
        return html(ctx, 200, renderLanding(landingView(code, found.campaign, saved)));
      }
      await recordScan(
        ctx.deps,
        { code, codeId: found.codeId, campaignId: found.campaignId },
        {
          ip: ctx.ip,
          userAgent: ctx.get('User-Agent') || undefined,
          referrer: ctx.get('Referer') || undefined,
        },
      );
      if (!isOpen(found.campaign)) return html(ctx, 410, renderClosed({ title: found.campaign.landing.title, message: closedMessage }));
      return html(ctx, 200, renderLanding(landingView(code, found.campaign)));
    },
  )
  .get(
    '/q/:code/gracias',
    {
      summary: 'Thank-you page after a submission',
      access: 'public',
      params: landingParams,
      openQuery: true,
      produces: { 'text/html': 'Thank-you page' },
      errors: { 404: 'Unknown code (HTML page)' },
    },
    async ({ ctx, input }) => {
      const found = await lookup(ctx, input.params.code.toLowerCase());
      if (!found) return html(ctx, 404, renderNotFound());
      return html(ctx, 200, renderThankYou({ title: found.campaign.landing.title, message: found.campaign.landing.thankYouMessage }));
    },
  )
  .get(
    '/static/:asset',
    {
      summary: 'Landing page stylesheet and script',
      access: 'public',
      params: z.object({ asset: z.enum(['landing.css', 'landing.js']) }),
      openQuery: true,
      produces: { 'text/css': LANDING_CSS_PATH, 'application/javascript': LANDING_JS_PATH },
    },
    async ({ ctx, input }) => {
      ctx.type = input.params.asset.endsWith('.css') ? 'text/css' : 'application/javascript';
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = landingAsset(input.params.asset);
      return undefined;
    },
  )
  .post(
    CAPTURE_PATH,
    {
      summary: 'Capture a lead from the landing page (public)',
      description:
        'JSON, or a plain form post (answered with a 303 to the thank-you page, or a 303 back to `/q/<code>?e=<id>`, ' +
        'which shows the form with what was typed and every error). Every field is checked at once: a 400 lists all problems. ' +
        '`consent` must be `true` (else 400 `consent_required`); a phone or an email is needed. The same person ' +
        'submitting again to the same campaign updates the lead: 200 with the same id. Rate-limited per IP and per person.',
      access: 'public',
      body: captureBody,
      bodyTypes: ['json', 'form'],
      handlerParsesBody: true,
      status: 201,
      redirects: { 303: 'Form post: captured (to the thank-you page), or not (back to the form with its errors)' },
      response: z.object({ id: z.uuid(), campaignId: z.uuid(), status: z.literal('captured') }),
      errors: { 404: 'Unknown code', 409: 'The campaign is not taking submissions', 429: 'Too many submissions; see Retry-After' },
    },
    async ({ ctx, input }) => {
      const isForm = ctx.is('urlencoded') === 'urlencoded';
      const raw = (typeof input.body === 'object' && input.body !== null && !Array.isArray(input.body) ? input.body : {}) as Record<string, unknown>;
      const body = isForm ? fromForm(raw) : raw;
      try {
        const lead = await captureLead(ctx.deps, body, { ip: ctx.ip, userAgent: ctx.get('User-Agent') || undefined });
        if (isForm) {
          const code = String(body.code).trim();
          // A form that failed before holds the citizen's data in a cookie: it has done its job.
          if (CODE_PATTERN.test(code)) ctx.append('Set-Cookie', formCookieHeader(code, '', secureCookies(ctx), 0));
          ctx.status = 303;
          ctx.redirect(thanksPath(String(body.code).trim()));
          return undefined;
        }
        ctx.status = lead.created ? 201 : 200;
        return { id: lead.id, campaignId: lead.campaignId, status: 'captured' as const };
      } catch (error) {
        if (isForm && isClientError(error)) return answerFormError(ctx, body, error);
        throw error;
      }
    },
  );
