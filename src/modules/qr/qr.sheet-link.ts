import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { roleAllowed, type Actor } from '../../kernel/auth/roles';
import type { AppDeps } from '../../kernel/context';
import { ForbiddenError, UnauthorizedError } from '../../kernel/errors';
import { qrPolicy } from './qr.policy';

/** How long a printable sheet's link opens it: long enough to open and print, too short to pass around. */
export const SHEET_LINK_SECONDS = 5 * 60;

const PURPOSE = 'qr-sheet';
const TAG_BYTES = 16;
const payloadSchema = z.object({ p: z.literal(PURPOSE), c: z.uuid(), u: z.uuid(), v: z.number().int().nonnegative(), e: z.number().int() });
type Payload = z.infer<typeof payloadSchema>;

type Deps = Pick<AppDeps, 'auth' | 'secrets'>;

const keys = new WeakMap<KeyObject, KeyObject>();
/** A key of its own, derived from the process's signing secret, so that no other token verifies as a sheet link. */
function linkKey(deps: Deps): KeyObject {
  let key = keys.get(deps.secrets.ipHashKey);
  if (!key) {
    key = createSecretKey(createHmac('sha256', deps.secrets.ipHashKey).update('comando:qr-sheet-link').digest());
    keys.set(deps.secrets.ipHashKey, key);
  }
  return key;
}

const tag = (deps: Deps, body: string) => createHmac('sha256', linkKey(deps)).update(body).digest().subarray(0, TAG_BYTES);

/**
 * A link that opens one campaign's printable sheet in a browser, which cannot send the console's
 * bearer header: the campaign, the user and their token version, HMAC'd, for five minutes. Signing
 * out everywhere, a role change or a deactivation ends it with the user's tokens.
 */
export async function signSheetLink(deps: Deps, actor: Actor, campaignId: string, now = new Date()): Promise<{ token: string; expiresAt: Date }> {
  const principal = await deps.auth.principals.get(actor.id);
  if (!principal) throw new UnauthorizedError('The token is no longer valid; log in again.');
  const expiresAt = new Date(Math.floor(now.getTime() / 1000) * 1000 + SHEET_LINK_SECONDS * 1000);
  const payload: Payload = { p: PURPOSE, c: campaignId, u: actor.id, v: principal.tokenVersion, e: expiresAt.getTime() / 1000 };
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return { token: `${body}.${tag(deps, body).toString('base64url')}`, expiresAt };
}

/**
 * The actor a sheet link stands for, if it was signed here for this campaign, has not expired, and
 * its user may still print sheets with the same token version; otherwise a 401 (or 403) saying so.
 */
export async function actorOfSheetLink(deps: Deps, token: string, campaignId: string, now = new Date()): Promise<Actor> {
  const [body, mac] = token.split('.');
  const expected = body ? tag(deps, body) : undefined;
  const given = mac ? Buffer.from(mac, 'base64url') : undefined;
  if (!body || !expected || !given || given.length !== expected.length || !timingSafeEqual(given, expected)) throw new UnauthorizedError('This sheet link is not valid.');
  const parsed = payloadSchema.safeParse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
  if (!parsed.success) throw new UnauthorizedError('This sheet link is not valid.');
  const payload = parsed.data;
  if (payload.c !== campaignId) throw new ForbiddenError('This sheet link is for another campaign.');
  if (payload.e * 1000 <= now.getTime()) throw new UnauthorizedError('This sheet link has expired; open the sheet again from the console.');
  const principal = await deps.auth.principals.get(payload.u);
  if (!principal || !principal.active || principal.tokenVersion !== payload.v) throw new UnauthorizedError('This sheet link is no longer valid; log in again.');
  if (!roleAllowed(principal.role, qrPolicy.roles('manage'))) throw new ForbiddenError();
  return { id: principal.id, role: principal.role };
}
