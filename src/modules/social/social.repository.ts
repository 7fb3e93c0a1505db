import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { findPage, type Page, type PageRequest } from '../../kernel/pagination';
import { numberOrNull, sql, tables, type Queries } from '../../kernel/sql';
import {
  AlertRuleSchema,
  CompetitorSchema,
  ProfileSchema,
  type AlertKind,
  type AlertRuleParams,
  type Competitor,
  type Platform,
  type ProfileSource,
  type Severity,
} from './social.entities';
import type { TerritoryReferenceHolder } from '../../kernel/module';

/** The tables of competitors, their profiles and the alert rules, as the typed query builder sees them. */
type SocialTables = InferKyselyDB<typeof CompetitorSchema | typeof ProfileSchema | typeof AlertRuleSchema>;
const db = tables<SocialTables>();

export interface CompetitorRecord {
  id: string;
  name: string;
  party: string | null;
  colour: string | null;
  photoUrl: string | null;
  notes: string | null;
  isOwn: boolean;
  territoryId: string | null;
  active: boolean;
  createdAt: Date;
}

export interface ProfileRecord {
  id: string;
  competitorId: string;
  platform: Platform;
  handle: string;
  platformId: string | null;
  url: string | null;
  source: ProfileSource;
  displayName: string | null;
  followers: number | null;
  lastFetchedAt: Date | null;
  lastError: string | null;
  consecutiveFailures: number;
  pausedReason: string | null;
  nextFetchAt: Date | null;
}

const competitorColumns = ['id', 'name', 'party', 'colour', 'photo_url', 'notes', 'is_own', 'territory_id', 'active', 'created_at'] as const;
const profileColumns = [
  'id',
  'competitor_id',
  'platform',
  'handle',
  'platform_id',
  'url',
  'source',
  'display_name',
  'followers',
  'last_fetched_at',
  'last_error',
  'consecutive_failures',
  'paused_reason',
  'next_fetch_at',
] as const;

type CompetitorRow = Pick<Selectable<SocialTables['social_competitors']>, (typeof competitorColumns)[number]>;
type ProfileRow = Pick<Selectable<SocialTables['social_profiles']>, (typeof profileColumns)[number]>;

function competitorOf(row: CompetitorRow): CompetitorRecord {
  return {
    id: row.id,
    name: row.name,
    party: row.party ?? null,
    colour: row.colour ?? null,
    photoUrl: row.photo_url ?? null,
    notes: row.notes ?? null,
    isOwn: row.is_own,
    territoryId: row.territory_id ?? null,
    active: row.active,
    createdAt: row.created_at,
  };
}

function profileOf(row: ProfileRow): ProfileRecord {
  return {
    id: row.id,
    competitorId: row.competitor_id,
    platform: row.platform,
    handle: row.handle,
    platformId: row.platform_id ?? null,
    url: row.url ?? null,
    source: row.source,
    displayName: row.display_name ?? null,
    followers: numberOrNull(row.followers),
    lastFetchedAt: row.last_fetched_at ?? null,
    lastError: row.last_error ?? null,
    consecutiveFailures: row.consecutive_failures,
    pausedReason: row.paused_reason ?? null,
    nextFetchAt: row.next_fetch_at ?? null,
  };
}

export interface NewCompetitor {
  id: string;
  name: string;
  party: string | null;
  colour: string | null;
  photoUrl: string | null;
  notes: string | null;
  isOwn: boolean;
  territoryId: string | null;
  active: boolean;
  at: Date;
}

export interface NewProfile {
  id: string;
  competitorId: string;
  platform: Platform;
  handle: string;
  url: string;
  source: ProfileSource;
  /** When the poller first reads it; null for import-only profiles. */
  nextFetchAt: Date | null;
  at: Date;
}

/** A competitor and its profiles in one transaction: a duplicate profile leaves nothing behind. */
export async function insertCompetitor(tx: Queries, competitor: NewCompetitor, profiles: NewProfile[]): Promise<void> {
  await tx.write(
    db.insertInto('social_competitors').values({
      id: competitor.id,
      name: competitor.name,
      party: competitor.party,
      colour: competitor.colour,
      photo_url: competitor.photoUrl,
      notes: competitor.notes,
      is_own: competitor.isOwn,
      territory_id: competitor.territoryId,
      active: competitor.active,
      created_at: competitor.at,
      updated_at: competitor.at,
    }),
  );
  for (const profile of profiles) await insertProfile(tx, profile);
}

export async function insertProfile(q: Queries, profile: NewProfile): Promise<void> {
  await q.write(
    db.insertInto('social_profiles').values({
      id: profile.id,
      competitor_id: profile.competitorId,
      platform: profile.platform,
      handle: profile.handle,
      url: profile.url,
      source: profile.source,
      next_fetch_at: profile.nextFetchAt,
      created_at: profile.at,
      consecutive_failures: 0,
    }),
  );
}

export type CompetitorChanges = Partial<Omit<NewCompetitor, 'id' | 'at'>>;

/** Applies the given fields; false when no competitor has the id. */
export async function updateCompetitor(q: Queries, id: string, changes: CompetitorChanges): Promise<boolean> {
  const result = await q.write(
    db
      .updateTable('social_competitors')
      .set({
        ...(changes.name !== undefined && { name: changes.name }),
        ...(changes.party !== undefined && { party: changes.party }),
        ...(changes.colour !== undefined && { colour: changes.colour }),
        ...(changes.photoUrl !== undefined && { photo_url: changes.photoUrl }),
        ...(changes.notes !== undefined && { notes: changes.notes }),
        ...(changes.isOwn !== undefined && { is_own: changes.isOwn }),
        ...(changes.territoryId !== undefined && { territory_id: changes.territoryId }),
        ...(changes.active !== undefined && { active: changes.active }),
        updated_at: new Date(),
      })
      .where('id', '=', id),
  );
  return result.count > 0;
}

export interface ProfileChanges {
  handle?: string;
  url?: string;
  source?: ProfileSource;
  /** A new identity (another handle or source): what was learnt about the old one is cleared and it is read again from `nextFetchAt`. */
  reset?: { nextFetchAt: Date | null; clearIdentity: boolean };
}

/** Applies the changes to one competitor's profile; false when it has no profile with this id. */
export async function updateProfile(q: Queries, competitorId: string, profileId: string, changes: ProfileChanges): Promise<boolean> {
  const reset = changes.reset;
  const result = await q.write(
    db
      .updateTable('social_profiles')
      .set({
        ...(changes.handle !== undefined && { handle: changes.handle }),
        ...(changes.url !== undefined && { url: changes.url }),
        ...(changes.source !== undefined && { source: changes.source }),
        ...(reset && { last_error: null, consecutive_failures: 0, paused_reason: null, next_fetch_at: reset.nextFetchAt }),
        ...(reset?.clearIdentity && { platform_id: null, display_name: null }),
      })
      .where('id', '=', profileId)
      .where('competitor_id', '=', competitorId),
  );
  return result.count > 0;
}

export async function deleteProfile(q: Queries, competitorId: string, profileId: string): Promise<boolean> {
  const result = await q.write(db.deleteFrom('social_profiles').where('id', '=', profileId).where('competitor_id', '=', competitorId));
  return result.count > 0;
}

export async function findCompetitor(q: Queries, id: string): Promise<CompetitorRecord | undefined> {
  const row = await q.first(db.selectFrom('social_competitors').select(competitorColumns).where('id', '=', id));
  return row ? competitorOf(row) : undefined;
}

/** Every competitor (a campaign watches tens, not thousands), ours first then by name. */
export async function allCompetitors(q: Queries, options: { activeOnly?: boolean } = {}): Promise<CompetitorRecord[]> {
  let query = db.selectFrom('social_competitors').select(competitorColumns).orderBy('is_own', 'desc').orderBy('name').orderBy('id');
  if (options.activeOnly) query = query.where('active', '=', true);
  return (await q.rows(query)).map(competitorOf);
}

function competitorOfEntity(entity: Competitor): CompetitorRecord {
  return {
    id: entity.id,
    name: entity.name,
    party: entity.party ?? null,
    colour: entity.colour ?? null,
    photoUrl: entity.photoUrl ?? null,
    notes: entity.notes ?? null,
    isOwn: entity.isOwn,
    territoryId: entity.territory ? entity.territory.id : null,
    active: entity.active,
    createdAt: entity.createdAt,
  };
}

export function competitorPage(em: EntityManager, filter: { active?: boolean | undefined }, page: PageRequest): Promise<Page<CompetitorRecord>> {
  return findPage(em, CompetitorSchema, filter.active === undefined ? {} : { active: filter.active }, page, { name: 'asc', id: 'asc' }, competitorOfEntity);
}

/** The profiles of these competitors, by competitor. */
export async function profilesOf(q: Queries, competitorIds: readonly string[]): Promise<Map<string, ProfileRecord[]>> {
  const byCompetitor = new Map<string, ProfileRecord[]>(competitorIds.map((id) => [id, []]));
  if (!competitorIds.length) return byCompetitor;
  const rows = await q.rows(db.selectFrom('social_profiles').select(profileColumns).where('competitor_id', 'in', competitorIds).orderBy('platform').orderBy('handle'));
  for (const row of rows) byCompetitor.get(row.competitor_id)?.push(profileOf(row));
  return byCompetitor;
}

export async function findProfile(q: Queries, id: string): Promise<ProfileRecord | undefined> {
  const row = await q.first(db.selectFrom('social_profiles').select(profileColumns).where('id', '=', id));
  return row ? profileOf(row) : undefined;
}

/** Profiles by (platform, handle), for imports that name the author by handle. */
export async function profilesByHandle(q: Queries, keys: readonly { platform: Platform; handle: string }[]): Promise<ProfileRecord[]> {
  if (!keys.length) return [];
  const rows = await q.rows<ProfileRow>(sql`select ${sql.raw(profileColumns.join(', '))} from social_profiles
    where (platform, handle) in (select * from unnest(${keys.map((key) => key.platform)}::text[], ${keys.map((key) => key.handle)}::text[]))`);
  return rows.map(profileOf);
}

/** Every profile of these competitors, for imports that name the author by competitor. */
export async function profilesOfCompetitors(q: Queries, competitorIds: readonly string[]): Promise<ProfileRecord[]> {
  if (!competitorIds.length) return [];
  return (await q.rows(db.selectFrom('social_profiles').select(profileColumns).where('competitor_id', 'in', competitorIds))).map(profileOf);
}

export async function existingCompetitorIds(q: Queries, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await q.rows(db.selectFrom('social_competitors').select('id').where('id', 'in', ids));
  return new Set(rows.map((row) => row.id));
}

/** Our candidate's name and handles: what "mentions us" looks for. */
export async function ownNames(q: Queries): Promise<string[]> {
  const rows = await q.rows<{ name: string }>(sql`select c.name from social_competitors c where c.is_own
    union select p.handle from social_profiles p join social_competitors c on c.id = p.competitor_id where c.is_own`);
  return rows.map((row) => row.name.replace(/^@/, ''));
}

// ───────────── alert rules

export interface RuleRecord {
  id: string;
  kind: AlertKind;
  name: string;
  severity: Severity;
  enabled: boolean;
  competitorId: string | null;
  params: AlertRuleParams;
  updatedAt: Date;
}

const ruleColumns = ['id', 'kind', 'name', 'severity', 'enabled', 'competitor_id', 'params', 'updated_at'] as const;

function ruleOf(row: Pick<Selectable<SocialTables['social_alert_rules']>, (typeof ruleColumns)[number]>): RuleRecord {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    severity: row.severity,
    enabled: row.enabled,
    competitorId: row.competitor_id ?? null,
    params: row.params,
    updatedAt: row.updated_at,
  };
}

export async function allRules(q: Queries, options: { enabledOnly?: boolean } = {}): Promise<RuleRecord[]> {
  let query = db.selectFrom('social_alert_rules').select(ruleColumns).orderBy('kind').orderBy('created_at').orderBy('id');
  if (options.enabledOnly) query = query.where('enabled', '=', true);
  return (await q.rows(query)).map(ruleOf);
}

export async function findRule(q: Queries, id: string): Promise<RuleRecord | undefined> {
  const row = await q.first(db.selectFrom('social_alert_rules').select(ruleColumns).where('id', '=', id));
  return row ? ruleOf(row) : undefined;
}

export async function insertRule(q: Queries, rule: Omit<RuleRecord, 'updatedAt'>, at: Date): Promise<void> {
  await q.write(
    db.insertInto('social_alert_rules').values({
      id: rule.id,
      kind: rule.kind,
      name: rule.name,
      severity: rule.severity,
      enabled: rule.enabled,
      competitor_id: rule.competitorId,
      params: JSON.stringify(rule.params) as unknown as AlertRuleParams,
      created_at: at,
      updated_at: at,
    }),
  );
}

export async function updateRule(q: Queries, rule: RuleRecord): Promise<void> {
  await q.write(
    db
      .updateTable('social_alert_rules')
      .set({
        name: rule.name,
        severity: rule.severity,
        enabled: rule.enabled,
        competitor_id: rule.competitorId,
        params: JSON.stringify(rule.params) as unknown as AlertRuleParams,
        updated_at: new Date(),
      })
      .where('id', '=', rule.id),
  );
}

export async function deleteRule(q: Queries, id: string): Promise<boolean> {
  return (await q.write(db.deleteFrom('social_alert_rules').where('id', '=', id))).count > 0;
}

/** Competitors placed in a territory. */
export const socialTerritoryReferences: TerritoryReferenceHolder = async (q, territoryId) => {
  const row = await q.first(sql<{ competitors: number }>`select count(*)::int as competitors from social_competitors where territory_id = ${territoryId}`);
  return [{ count: row?.competitors ?? 0, one: 'competidor', many: 'competidores' }];
};
