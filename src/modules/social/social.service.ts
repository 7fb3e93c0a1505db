import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { instantAt } from '../../kernel/calendar';
import type { AppDeps } from '../../kernel/context';
import { AppError, ConflictError, NotFoundError, invalidField } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import type { Queries } from '../../kernel/sql';
import { assertTerritoriesExist } from '../territories';
import { alertPage, setAlertState } from './social.alerts.repository';
import type { AlertState } from './social.entities';
import { normaliseHandle } from './social.handles';
import { connectorFor, fetchProfile, type FetchOutcome } from './social.poller';
import { scheduleProfile } from './social.poller.repository';
import { findPost, postPage, snapshotsOf } from './social.posts.repository';
import { presentAlert, presentCompetitor, presentPost, presentProfile, presentRule, presentSnapshot } from './social.presenter';
import {
  allRules,
  competitorPage,
  deleteProfile,
  deleteRule,
  findCompetitor,
  findProfile,
  findRule,
  insertCompetitor,
  insertProfile,
  insertRule,
  profilesOf,
  updateCompetitor,
  updateProfile,
  updateRule,
  type ProfileChanges,
  type NewProfile,
  type ProfileRecord,
} from './social.repository';
import {
  ruleParamsByKind,
  type CreateCompetitorInput,
  type CreateRuleInput,
  type ListAlertsInput,
  type ListPostsInput,
  type ProfileInput,
  type UpdateCompetitorInput,
  type UpdateProfileInput,
  type UpdateRuleInput,
} from './social.schemas';
import { mapPage } from '../../kernel/pagination';

type Deps = Pick<AppDeps, 'db' | 'config' | 'local'>;

/** A day (`YYYY-MM-DD`, the campaign's midnight) or an instant, as an instant. */
export function instantOf(value: string, timeZone: string): Date {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? instantAt(value, 0, timeZone) : new Date(value);
}

/** `from`/`to` of a list as instants; `to` given as a day includes that whole day. */
export function rangeOf(query: { from?: string | undefined; to?: string | undefined }, timeZone: string): { from: Date | undefined; to: Date | undefined } {
  const from = query.from ? instantOf(query.from, timeZone) : undefined;
  const to = query.to ? (/^\d{4}-\d{2}-\d{2}$/.test(query.to) ? new Date(instantOf(query.to, timeZone).getTime() + 86_400_000) : instantOf(query.to, timeZone)) : undefined;
  if (from && to && from > to) throw invalidField('query.from', '`from` must not be after `to`.');
  return { from, to };
}

function profileRow(deps: Deps, input: ProfileInput, competitorId: string, path: string, at: Date): NewProfile {
  const normalised = normaliseHandle(input.platform, input.handle);
  if ('error' in normalised) throw invalidField(`${path}.handle`, normalised.error);
  const pollable = connectorFor(deps, input.platform) !== undefined;
  const source = input.source ?? (pollable ? 'api' : 'import');
  if (source === 'api' && !pollable) throw invalidField(`${path}.source`, `No official API gives a competitor's ${input.platform} posts: use source "import".`);
  return {
    id: newId(),
    competitorId,
    platform: input.platform,
    handle: normalised.handle,
    url: input.url ?? normalised.url,
    source,
    nextFetchAt: source === 'api' ? at : null,
    at,
  };
}

function duplicateProfiles(profiles: readonly NewProfile[]): void {
  const seen = new Set<string>();
  profiles.forEach((profile, index) => {
    const key = `${profile.platform}:${profile.handle}`;
    if (seen.has(key)) throw invalidField(`body.profiles.${index}.handle`, `${profile.platform} ${profile.handle} is listed twice.`);
    seen.add(key);
  });
}

/** The database's unique indexes, as the answer a person can act on. */
function conflictOf(error: unknown): never {
  if (error instanceof UniqueConstraintViolationException) {
    const message = error.message;
    if (message.includes('social_profiles_platform_handle_unique')) throw new ConflictError('That profile is already tracked (for this or another competitor).', 'profile_taken');
    if (message.includes('social_competitors_one_own')) throw new ConflictError('Another competitor is already marked as our own candidate.', 'own_taken');
    if (message.includes('social_competitors_name_unique')) throw new ConflictError('A competitor with this name already exists.', 'competitor_name_taken');
  }
  throw error;
}

async function presentCompetitors(deps: Deps, competitors: Awaited<ReturnType<typeof findCompetitor>>[]) {
  const present = competitors.filter((competitor) => competitor !== undefined);
  const profiles = await profilesOf(
    deps.db,
    present.map((competitor) => competitor.id),
  );
  return present.map((competitor) =>
    presentCompetitor(
      competitor,
      (profiles.get(competitor.id) ?? []).map((profile) => presentProfile(profile, connectorFor(deps, profile.platform)?.configured)),
    ),
  );
}

export async function createCompetitor(deps: Deps, input: CreateCompetitorInput) {
  if (input.territoryId) await assertTerritoriesExist(deps.db, [input.territoryId], () => 'body.territoryId');
  const at = new Date();
  const id = newId();
  const profiles = input.profiles.map((profile, index) => profileRow(deps, profile, id, `body.profiles.${index}`, at));
  duplicateProfiles(profiles);
  try {
    await deps.db.transaction((tx) =>
      insertCompetitor(
        tx,
        {
          id,
          name: input.name,
          party: input.party ?? null,
          colour: input.colour?.toLowerCase() ?? null,
          photoUrl: input.photoUrl ?? null,
          notes: input.notes ?? null,
          isOwn: input.isOwn ?? false,
          territoryId: input.territoryId ?? null,
          active: input.active ?? true,
          at,
        },
        profiles,
      ),
    );
  } catch (error) {
    conflictOf(error);
  }
  return getCompetitor(deps, id);
}

export async function getCompetitor(deps: Deps, id: string) {
  const [competitor] = await presentCompetitors(deps, [await findCompetitor(deps.db, id)]);
  if (!competitor) throw new NotFoundError('No competitor has this id.');
  return competitor;
}

export async function listCompetitors(deps: Deps, query: { active?: boolean | undefined; limit: number; cursor?: string | undefined }) {
  const page = await competitorPage(deps.db, query, query);
  return { data: await presentCompetitors(deps, page.data), nextCursor: page.nextCursor };
}

export async function changeCompetitor(deps: Deps, id: string, input: UpdateCompetitorInput) {
  if (input.territoryId) await assertTerritoriesExist(deps.db, [input.territoryId], () => 'body.territoryId');
  let found: boolean;
  try {
    found = await updateCompetitor(deps.db, id, { ...input, colour: input.colour?.toLowerCase() ?? input.colour });
  } catch (error) {
    conflictOf(error);
  }
  if (!found) throw new NotFoundError('No competitor has this id.');
  return getCompetitor(deps, id);
}

export async function addProfile(deps: Deps, competitorId: string, input: ProfileInput) {
  if (!(await findCompetitor(deps.db, competitorId))) throw new NotFoundError('No competitor has this id.');
  const profile = profileRow(deps, input, competitorId, 'body', new Date());
  try {
    await insertProfile(deps.db, profile);
  } catch (error) {
    conflictOf(error);
  }
  return presentProfile((await findProfile(deps.db, profile.id))!, connectorFor(deps, profile.platform)?.configured);
}

/**
 * Changes a profile's handle, URL or source. Another handle (a renamed account, a typo fixed) or
 * source is a new identity to read: its error, pause and the platform's id are cleared and a
 * polled profile comes due at once; its history stays.
 */
export async function changeProfile(deps: Deps, competitorId: string, profileId: string, input: UpdateProfileInput) {
  const profile = await findProfile(deps.db, profileId);
  if (!profile || profile.competitorId !== competitorId) throw new NotFoundError('This competitor has no profile with this id.');
  const changes: ProfileChanges = {};
  let handle = profile.handle;
  if (input.handle !== undefined) {
    const normalised = normaliseHandle(profile.platform, input.handle);
    if ('error' in normalised) throw invalidField('body.handle', normalised.error);
    if (normalised.handle !== profile.handle) {
      handle = changes.handle = normalised.handle;
      // The old handle's URL would point at the old account.
      if (input.url === undefined) changes.url = normalised.url;
    }
  }
  if (input.url !== undefined) {
    const own = normaliseHandle(profile.platform, handle);
    changes.url = input.url ?? ('url' in own ? own.url : (profile.url ?? undefined));
  }
  const pollable = connectorFor(deps, profile.platform) !== undefined;
  const source = input.source ?? profile.source;
  if (source === 'api' && !pollable) throw invalidField('body.source', `No official API gives a competitor's ${profile.platform} posts: use source "import".`);
  if (source !== profile.source) changes.source = source;
  if (changes.handle !== undefined || changes.source !== undefined) {
    changes.reset = { nextFetchAt: source === 'api' ? new Date() : null, clearIdentity: changes.handle !== undefined };
  }
  // Everything asked is what the profile already is: nothing to write (an empty update is no statement).
  if (Object.keys(changes).length > 0) {
    try {
      await updateProfile(deps.db, competitorId, profileId, changes);
    } catch (error) {
      conflictOf(error);
    }
  }
  return presentProfile((await findProfile(deps.db, profileId))!, connectorFor(deps, profile.platform)?.configured);
}

export async function removeProfile(deps: Deps, competitorId: string, profileId: string): Promise<void> {
  if (!(await deleteProfile(deps.db, competitorId, profileId))) throw new NotFoundError('This competitor has no profile with this id.');
}

/** What "fetch now" answers: the outcome, and the profile as it is after it. */
export async function fetchNow(deps: Pick<AppDeps, 'db' | 'config' | 'local' | 'realtime' | 'logger'>, profileId: string) {
  const profile = await findProfile(deps.db, profileId);
  if (!profile) throw new NotFoundError('No profile has this id.');
  const connector = connectorFor(deps, profile.platform);
  if (!connector || profile.source === 'import') throw new ConflictError(`This profile is fed by imports: POST /api/social-monitoring/posts/import.`, 'import_only');
  if (!connector.configured) throw new ConflictError(`The ${profile.platform} connector has no credentials; see docs/social-monitoring.md.`, 'not_configured');
  const outcome = await fetchProfile(deps, profileId, { manual: true });
  if (outcome.status === 'busy') throw new ConflictError('This profile is being fetched right now; try again in a moment.', 'fetch_in_progress');
  if (outcome.status === 'failed') {
    throw new AppError(
      502,
      'upstream_failed',
      'The platform refused',
      `${profile.platform} answered: ${outcome.reason}${outcome.paused ? ' The profile is paused until it is fixed.' : ''}`,
    );
  }
  const after = (await findProfile(deps.db, profileId)) as ProfileRecord;
  return { outcome: summary(outcome), profile: presentProfile(after, connector.configured) };
}

function summary(outcome: FetchOutcome) {
  if (outcome.status === 'fetched')
    return { status: 'fetched' as const, posts: outcome.posts, created: outcome.result.created, snapshots: outcome.result.snapshots, followers: outcome.followers };
  if (outcome.status === 'waiting') return { status: 'waiting' as const, reason: outcome.reason, until: outcome.until.toISOString() };
  return { status: outcome.status === 'gone' ? ('gone' as const) : ('skipped' as const) };
}

/** Puts a paused profile back in the poller's list now. */
export async function resumeProfile(q: Queries, profileId: string): Promise<void> {
  await scheduleProfile(q, profileId, new Date());
}

// ───────────── posts

export async function listPosts(deps: Deps, query: ListPostsInput) {
  const { from, to } = rangeOf(query, deps.config.timeZone);
  const page = await postPage(deps.db, { ...query, from, to }, query);
  return mapPage(page, presentPost);
}

export async function getPost(deps: Deps, id: string) {
  const post = await findPost(deps.db, id);
  if (!post) throw new NotFoundError('No post has this id.');
  return { ...presentPost(post), snapshots: (await snapshotsOf(deps.db, id)).map(presentSnapshot) };
}

// ───────────── alerts and rules

export async function listAlerts(deps: Deps, query: ListAlertsInput) {
  const { from, to } = rangeOf(query, deps.config.timeZone);
  const page = await alertPage(deps.db, { ...query, from, to }, query);
  return mapPage(page, presentAlert);
}

export async function markAlert(q: Queries, id: string, state: AlertState, userId: string) {
  const alert = await setAlertState(q, id, state, userId);
  if (!alert) throw new NotFoundError('No alert has this id.');
  return presentAlert(alert);
}

export async function listRules(q: Queries) {
  return (await allRules(q)).map(presentRule);
}

async function checkRuleCompetitor(q: Queries, competitorId: string | null | undefined): Promise<void> {
  if (competitorId && !(await findCompetitor(q, competitorId))) throw invalidField('body.competitorId', 'No competitor has this id.');
}

export async function createRule(q: Queries, input: CreateRuleInput) {
  await checkRuleCompetitor(q, input.competitorId);
  const id = newId();
  await insertRule(
    q,
    { id, kind: input.kind, name: input.name, severity: input.severity, enabled: input.enabled, competitorId: input.competitorId, params: input.params },
    new Date(),
  );
  return presentRule((await findRule(q, id))!);
}

export async function changeRule(q: Queries, id: string, input: UpdateRuleInput) {
  const rule = await findRule(q, id);
  if (!rule) throw new NotFoundError('No alert rule has this id.');
  await checkRuleCompetitor(q, input.competitorId);
  let params = rule.params;
  if (input.params !== undefined) {
    const parsed = ruleParamsByKind[rule.kind].safeParse(input.params);
    if (!parsed.success) throw invalidField(`body.params.${parsed.error.issues[0]!.path.join('.')}`.replace(/\.$/, ''), parsed.error.issues[0]!.message);
    params = parsed.data;
  }
  await updateRule(q, {
    ...rule,
    name: input.name ?? rule.name,
    severity: input.severity ?? rule.severity,
    enabled: input.enabled ?? rule.enabled,
    competitorId: input.competitorId === undefined ? rule.competitorId : input.competitorId,
    params,
  });
  return presentRule((await findRule(q, id))!);
}

export async function removeRule(q: Queries, id: string): Promise<void> {
  if (!(await deleteRule(q, id))) throw new NotFoundError('No alert rule has this id.');
}
