import type { Context } from 'koa';
import { z } from 'zod';
import { ApiRouter } from '../../kernel/http/router';
import { clickTargetUrl, eventWriter, isMachineAgent, trackingTokens, unsubscribe, unsubscribeFromNotice } from './email.tracking';
import { renderUnsubscribeDone, renderUnsubscribeNotFound, renderUnsubscribePage } from './email.pages';

/** The smallest transparent GIF (43 bytes). */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
/**
 * The same bytes as a latin1 string: Node writes a latin1 string body together with the
 * headers in one write, where a Buffer body costs a second chunk (writev) on every hit.
 */
const PIXEL_LATIN1 = PIXEL.toString('latin1');
const tokenParams = z.object({ token: z.string() });

function html(ctx: Context, status: number, body: string): undefined {
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Robots-Tag', 'noindex');
  ctx.body = body;
  return undefined;
}

/**
 * Someone trying tokens (enumeration, a broken link checker): valid tokens never touch Redis,
 * but each unknown one counts against the client's address, and past the limit it gets 429s.
 */
async function unknownToken(ctx: Context, page: string): Promise<undefined> {
  await ctx.deps.rateLimits.named('email-tracking-unknown-token', { points: 100, windowSeconds: 600 }).consume(ctx.ip);
  return html(ctx, 404, page);
}

/**
 * Public links inside messages. Tokens are checked without touching the database; a forged,
 * truncated or edited one is a 404 and counts nothing.
 */
export const trackingRouter = new ApiRouter('email-tracking')
  .get(
    '/e/o/:token',
    {
      summary: 'Open pixel (1×1 GIF, never cached)',
      access: 'public',
      params: tokenParams,
      produces: { 'image/gif': '1×1 transparent GIF' },
      errors: { 404: 'Unknown token', 429: 'Too many unknown tokens from this client' },
    },
    async ({ ctx, input }) => {
      const payload = trackingTokens(ctx.deps).verify('open', input.params.token);
      if (!payload) return unknownToken(ctx, 'Not found');
      // Not awaited: the image never waits for the database.
      eventWriter(ctx.deps).enqueue(payload.recipientId.toString(), 'open', null, isMachineAgent(ctx.get('User-Agent')));
      ctx.status = 200;
      ctx.body = PIXEL;
      ctx.type = 'image/gif';
      ctx.set('Cache-Control', 'no-store, no-cache, must-revalidate, max-age=0');
      ctx.set('Pragma', 'no-cache');
      ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
      ctx.respond = false;
      ctx.res.end(PIXEL_LATIN1, 'latin1');
      return undefined;
    },
  )
  .get(
    '/e/c/:token',
    {
      summary: 'Click redirect (302 to a link that was in the message)',
      access: 'public',
      params: tokenParams,
      produces: { 'text/plain': 'redirect' },
      errors: { 404: 'Unknown token or link', 429: 'Too many unknown tokens from this client' },
    },
    async ({ ctx, input }) => {
      const payload = trackingTokens(ctx.deps).verify('click', input.params.token);
      const url = payload && (await clickTargetUrl(ctx.deps, payload.recipientId.toString(), payload.linkIndex));
      if (!payload || !url) return unknownToken(ctx, renderUnsubscribeNotFound());
      const agent = ctx.get('User-Agent');
      await eventWriter(ctx.deps).record(payload.recipientId.toString(), 'click', payload.linkIndex, agent !== '' && isMachineAgent(agent));
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.redirect(url);
      return undefined;
    },
  )
  .get(
    '/e/u/:token',
    {
      summary: 'Unsubscribe confirmation page (GET never unsubscribes: link scanners fetch URLs)',
      access: 'public',
      params: tokenParams,
      produces: { 'text/html': 'Spanish confirmation page' },
      errors: { 404: 'Unknown token', 429: 'Too many unknown tokens from this client' },
    },
    async ({ ctx, input }) => {
      const tokens = trackingTokens(ctx.deps);
      if (!tokens.verify('unsubscribe', input.params.token) && !tokens.verify('notice_unsubscribe', input.params.token)) return unknownToken(ctx, renderUnsubscribeNotFound());
      return html(ctx, 200, renderUnsubscribePage(`/e/u/${input.params.token}`));
    },
  )
  .post(
    '/e/u/:token',
    {
      summary: 'Unsubscribe (RFC 8058 one-click POST, or the confirmation form)',
      description: 'Answers 200 with a page, never a redirect. Recorded as an email opt-out with proof in the audience consent records.',
      access: 'public',
      params: tokenParams,
      produces: { 'text/html': 'Spanish confirmation' },
      errors: { 404: 'Unknown token', 429: 'Too many unknown tokens from this client' },
    },
    async ({ ctx, input }) => {
      const tokens = trackingTokens(ctx.deps);
      const payload = tokens.verify('unsubscribe', input.params.token);
      const notice = payload ? undefined : tokens.verify('notice_unsubscribe', input.params.token);
      if (!payload && !notice) return unknownToken(ctx, renderUnsubscribeNotFound());
      const body = (ctx.request.body ?? {}) as Record<string, unknown>;
      const method = body['List-Unsubscribe'] === 'One-Click' ? 'one-click' : 'page';
      const proof = { ip: ctx.ip, userAgent: ctx.get('User-Agent') || undefined, method } as const;
      const done = payload ? await unsubscribe(ctx.deps, payload.recipientId.toString(), proof) : await unsubscribeFromNotice(ctx.deps, notice!.recipientId.toString(), proof);
      if (!done) return html(ctx, 404, renderUnsubscribeNotFound());
      return html(ctx, 200, renderUnsubscribeDone());
    },
  );
