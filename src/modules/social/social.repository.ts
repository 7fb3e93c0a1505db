import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { camelRow, jsonText, snakeRow } from '../../kernel/rows';
import { sql, tables, type Queries } from '../../kernel/sql';
import { AlertRuleSchema, CompetitorSchema, ProfileSchema } from './social.entities';
import type { TerritoryReferenceHolder } from '../../kernel/module';

/** The tables of competitors, their profiles and the alert rules, as the typed query builder sees them. */
type SocialTables = InferKyselyDB<typeof CompetitorSchema | typeof ProfileSchema | typeof AlertRuleSchema>;
const db = tables<SocialTables>();

const competitorColumns = ['id', 'name', 'party', 'colour', 'photo_url', 'notes', 'is_own', 'territory_id', 'active', 'created_at'] as const;
/** Every column of a profile but when it was added, which no answer shows. */
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

const competitorOf = (row: CompetitorRow) => camelRow(row);
const profileOf = (row: ProfileRow) => camelRow(row, ['followers']);

export type CompetitorRecord = ReturnType<typeof competitorOf>;
export type ProfileRecord = ReturnType<typeof profileOf>;

/** A competitor to insert: its record, stamped `at`. */
export type NewCompetitor = Omit<CompetitorRecord, 'createdAt'> & { at: Date };

/** A profile to insert, `nextFetchAt` null for import-only profiles. */
export type NewProfile = Pick<ProfileRecord, 'id' | 'competitorId' | 'platform' | 'handle' | 'source' | 'nextFetchAt'> & { url: string; at: Date };

/** A competitor and its profiles in one transaction: a duplicate profile leaves nothing behind. */
export async function insertCompetitor(tx: Queries, competitor: NewCompetitor, profiles: NewProfile[]): Promise<void> {
  const { at, ...fields } = competitor;
  await tx.write(db.insertInto('social_competitors').values({ ...snakeRow(fields), created_at: at, updated_at: at }));
  for (const profile of profiles) await insertProfile(tx, profile);
}

export async function insertProfile(q: Queries, profile: NewProfile): Promise<void> {
  const { at, ...fields } = profile;
  await q.write(db.insertInto('social_profiles').values({ ...snakeRow(fields), created_at: at, consecutive_failures: 0 }));
}

export type CompetitorChanges = Partial<Omit<NewCompetitor, 'id' | 'at'>>;

/** Applies the given fields; false when no competitor has the id. */
export async function updateCompetitor(q: Queries, id: string, changes: CompetitorChanges): Promise<boolean> {
  // The builder leaves out the fields left undefined.
  const result = await q.write(
    db
      .updateTable('social_competitors')
      .set({ ...snakeRow(changes), updated_at: new Date() })
      .where('id', '=', id),
  );
  return result.count > 0;
}

export interface ProfileChanges extends Partial<Pick<NewProfile, 'handle' | 'url' | 'source'>> {
  /** A new identity (another handle or source): what was learnt about the old one is cleared and it is read again from `nextFetchAt`. */
  reset?: { nextFetchAt: Date | null; clearIdentity: boolean };
}

/** Applies the changes to one competitor's profile; false when it has no profile with this id. */
export async function updateProfile(q: Queries, competitorId: string, profileId: string, changes: ProfileChanges): Promise<boolean> {
  const { reset, ...fields } = changes;
  const result = await q.write(
    db
      .updateTable('social_profiles')
      .set({
        ...snakeRow(fields),
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
  return row && competitorOf(row);
}

/** Every competitor (a campaign watches tens, not thousands), ours first then by name. */
export async function allCompetitors(q: Queries, options: { activeOnly?: boolean } = {}): Promise<CompetitorRecord[]> {
  let query = db.selectFrom('social_competitors').select(competitorColumns).orderBy('is_own', 'desc').orderBy('name').orderBy('id');
  if (options.activeOnly) query = query.where('active', '=', true);
  return (await q.rows(query)).map(competitorOf);
}

/** A page of competitors by name. */
export async function competitorPage(q: Queries, filter: { active?: boolean | undefined }, page: PageRequest): Promise<Page<CompetitorRecord>> {
  let query = db.selectFrom('social_competitors').select(competitorColumns);
  if (filter.active !== undefined) query = query.where('active', '=', filter.active);
  const found = await queryPage(q, query, ['name', 'id'], 'asc', page);
  return mapPage(found, competitorOf);
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
  return row && profileOf(row);
}

/** Profiles by (platform, handle), for imports that name the author by handle. */
export async function profilesByHandle(q: Queries, keys: readonly Pick<ProfileRecord, 'platform' | 'handle'>[]): Promise<ProfileRecord[]> {
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
  const rows = await q.rows(
    db
      .selectFrom('social_competitors')
      .select('name')
      .where('is_own', '=', true)
      .union(db.selectFrom('social_profiles as p').innerJoin('social_competitors as c', 'c.id', 'p.competitor_id').select('p.handle as name').where('c.is_own', '=', true)),
  );
  return rows.map((row) => row.name.replace(/^@/, ''));
}

// ───────────── alert rules

const ruleColumns = ['id', 'kind', 'name', 'severity', 'enabled', 'competitor_id', 'params', 'updated_at'] as const;

const ruleOf = (row: Pick<Selectable<SocialTables['social_alert_rules']>, (typeof ruleColumns)[number]>) => camelRow(row);

export type RuleRecord = ReturnType<typeof ruleOf>;

export async function allRules(q: Queries, options: { enabledOnly?: boolean } = {}): Promise<RuleRecord[]> {
  let query = db.selectFrom('social_alert_rules').select(ruleColumns).orderBy('kind').orderBy('created_at').orderBy('id');
  if (options.enabledOnly) query = query.where('enabled', '=', true);
  return (await q.rows(query)).map(ruleOf);
}

export async function findRule(q: Queries, id: string): Promise<RuleRecord | undefined> {
  const row = await q.first(db.selectFrom('social_alert_rules').select(ruleColumns).where('id', '=', id));
  return row && ruleOf(row);
}

export async function insertRule(q: Queries, rule: Omit<RuleRecord, 'updatedAt'>, at: Date): Promise<void> {
  await q.write(db.insertInto('social_alert_rules').values({ ...snakeRow(rule), params: jsonText(rule.params), created_at: at, updated_at: at }));
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
        params: jsonText(rule.params),
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
  const row = await q.first(
    db
      .selectFrom('social_competitors')
      .select((competitor) => competitor.cast<number>(competitor.fn.countAll(), 'integer').as('competitors'))
      .where('territory_id', '=', territoryId),
  );
  return [{ count: row?.competitors ?? 0, one: 'competidor', many: 'competidores' }];
};
