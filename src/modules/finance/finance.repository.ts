import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { findPage, type Page, type PageRequest } from '../../kernel/pagination';
import { containsPattern } from '../../kernel/search';
import { sql, tables, type Queries, type Sql } from '../../kernel/sql';
import {
  FinanceAuditSchema,
  FinanceCodeSchema,
  FinanceEntrySchema,
  FinanceSettingsSchema,
  LIMITED_DONOR_TYPES,
  type AuditAction,
  type DonorType,
  type EntryKind,
  type FinanceEntry,
  type StoredChanges,
  type StoredOverride,
} from './finance.entities';

type FinanceTables = InferKyselyDB<typeof FinanceCodeSchema | typeof FinanceEntrySchema | typeof FinanceSettingsSchema | typeof FinanceAuditSchema>;
const db = tables<FinanceTables>();

/** bigint columns arrive from the driver as strings; every amount here is below 2^53, so a number is exact. */
const pesos = (value: string | number | bigint | null | undefined): number => Number(value ?? 0);

// ───────────── settings

/** The module's own settings; the election date is the campaign's (`modules/campaign`). */
export interface SettingsRecord {
  spendingCap: number | null;
  donorLimitShare: number;
  closedThrough: string | null;
  updatedAt: Date;
  updatedById: string | null;
}

const settingsColumns = ['spending_cap', 'donor_limit_share', 'closed_through', 'updated_at', 'updated_by_id'] as const;

function settingsOf(row: Pick<Selectable<FinanceTables['finance_settings']>, (typeof settingsColumns)[number]>): SettingsRecord {
  return {
    spendingCap: row.spending_cap === null || row.spending_cap === undefined ? null : pesos(row.spending_cap),
    donorLimitShare: Number(row.donor_limit_share),
    closedThrough: row.closed_through ?? null,
    updatedAt: row.updated_at,
    updatedById: row.updated_by_id ?? null,
  };
}

export async function readSettings(q: Queries): Promise<SettingsRecord> {
  const row = await q.first(db.selectFrom('finance_settings').select(settingsColumns).where('id', '=', 1));
  if (!row) throw new Error('finance_settings has no row: the Finance migration inserts it');
  return settingsOf(row);
}

/**
 * Reads the settings and holds their row until the transaction ends. Every write that checks the
 * cap, a donor's limit or the closed period takes it first, so two such writes run one after the
 * other and neither decides on totals the other is changing.
 */
export async function lockSettings(tx: Queries): Promise<SettingsRecord> {
  const row = await tx.first(db.selectFrom('finance_settings').select(settingsColumns).where('id', '=', 1).forUpdate());
  if (!row) throw new Error('finance_settings has no row: the Finance migration inserts it');
  return settingsOf(row);
}

export async function saveSettings(tx: Queries, settings: Omit<SettingsRecord, 'updatedAt'>, at: Date): Promise<void> {
  await tx.write(
    db
      .updateTable('finance_settings')
      .set({
        spending_cap: settings.spendingCap,
        donor_limit_share: settings.donorLimitShare,
        closed_through: settings.closedThrough,
        updated_by_id: settings.updatedById,
        updated_at: at,
      })
      .where('id', '=', 1),
  );
}

// ───────────── catalogue

export interface CodeRecord {
  code: string;
  kind: EntryKind;
  name: string;
  description: string | null;
  donation: boolean;
  active: boolean;
}

export interface CodeWithUse extends CodeRecord {
  entries: number;
}

const codeColumns = ['code', 'kind', 'name', 'description', 'donation', 'active'] as const;

function codeOf(row: Pick<Selectable<FinanceTables['finance_codes']>, (typeof codeColumns)[number]>): CodeRecord {
  return { code: row.code, kind: row.kind, name: row.name, description: row.description ?? null, donation: row.donation, active: row.active };
}

export async function findCode(q: Queries, code: string): Promise<CodeRecord | undefined> {
  const row = await q.first(db.selectFrom('finance_codes').select(codeColumns).where('code', '=', code));
  return row ? codeOf(row) : undefined;
}

/** The catalogue in code order, each code with how many entries use it. */
export async function listCodes(q: Queries, filter: { kind?: EntryKind | undefined; active?: boolean | undefined; code?: string | undefined }): Promise<CodeWithUse[]> {
  const conditions: Sql[] = [sql`true`];
  if (filter.kind) conditions.push(sql`c.kind = ${filter.kind}`);
  if (filter.active !== undefined) conditions.push(sql`c.active = ${filter.active}`);
  if (filter.code) conditions.push(sql`c.code = ${filter.code}`);
  const rows = await q.rows<CodeRecord & { entries: number }>(sql`
    select c.code, c.kind, c.name, c.description, c.donation, c.active,
      (select count(*) from finance_entries e where e.code = c.code)::int as entries
    from finance_codes c where ${sql.join(conditions, ' and ')} order by c.code`);
  return rows.map((row) => ({ ...row, description: row.description ?? null }));
}

export async function insertCode(q: Queries, code: CodeRecord, at: Date): Promise<void> {
  await q.write(
    db.insertInto('finance_codes').values({
      code: code.code,
      kind: code.kind,
      name: code.name,
      description: code.description,
      donation: code.donation,
      active: code.active,
      created_at: at,
      updated_at: at,
    }),
  );
}

export async function updateCode(q: Queries, code: CodeRecord, at: Date): Promise<void> {
  await q.write(
    db
      .updateTable('finance_codes')
      .set({ name: code.name, description: code.description, donation: code.donation, active: code.active, updated_at: at })
      .where('code', '=', code.code),
  );
}

/** Deletes a code no entry uses; false when it is in use (or gone), in the same statement so no entry slips in between. */
export async function deleteUnusedCode(q: Queries, code: string): Promise<boolean> {
  const result = await q.write(sql`delete from finance_codes c where c.code = ${code} and not exists (select 1 from finance_entries e where e.code = c.code)`);
  return result.count > 0;
}

// ───────────── entries

export interface ReceiptRecord {
  sha256: string;
  type: string;
  size: number;
  uploadedAt: Date;
}

export interface EntryRecord {
  id: string;
  kind: EntryKind;
  date: string;
  amount: number;
  code: string;
  codeName: string;
  counterpartyName: string;
  counterpartyIdNumber: string | null;
  description: string | null;
  notes: string | null;
  donorType: DonorType | null;
  reversesId: string | null;
  eventId: string | null;
  override: StoredOverride | null;
  receipt: ReceiptRecord | null;
  recordedById: string;
  createdAt: Date;
  updatedAt: Date;
}

/** An entry with what the ledger says about it from elsewhere: its reversal, if any. */
export interface LedgerEntry extends EntryRecord {
  reversedById: string | null;
}

const entryColumns = [
  'e.id',
  'e.kind',
  'e.date',
  'e.amount',
  'e.code',
  'c.name as code_name',
  'e.counterparty_name',
  'e.counterparty_id_number',
  'e.description',
  'e.notes',
  'e.donor_type',
  'e.reverses_id',
  'e.event_id',
  'e.override',
  'e.receipt_sha256',
  'e.receipt_type',
  'e.receipt_size',
  'e.receipt_uploaded_at',
  'e.recorded_by_id',
  'e.created_at',
  'e.updated_at',
] as const;

type EntryRow = Selectable<FinanceTables['finance_entries']> & { code_name: string };

function receiptOf(sha256: string | null | undefined, type: string | null | undefined, size: number | null | undefined, at: Date | null | undefined): ReceiptRecord | null {
  return sha256 && type && size !== null && size !== undefined && at ? { sha256, type, size, uploadedAt: at } : null;
}

function entryOf(row: EntryRow): EntryRecord {
  return {
    id: row.id,
    kind: row.kind,
    date: row.date,
    amount: pesos(row.amount),
    code: row.code,
    codeName: row.code_name,
    counterpartyName: row.counterparty_name,
    counterpartyIdNumber: row.counterparty_id_number ?? null,
    description: row.description ?? null,
    notes: row.notes ?? null,
    donorType: row.donor_type ?? null,
    reversesId: row.reverses_id ?? null,
    eventId: row.event_id ?? null,
    override: row.override ?? null,
    receipt: receiptOf(row.receipt_sha256, row.receipt_type, row.receipt_size, row.receipt_uploaded_at),
    recordedById: row.recorded_by_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function entryOfEntity(entry: FinanceEntry): EntryRecord {
  return {
    id: entry.id,
    kind: entry.kind,
    date: entry.date,
    amount: pesos(entry.amount),
    code: entry.code.code,
    codeName: entry.code.name,
    counterpartyName: entry.counterpartyName,
    counterpartyIdNumber: entry.counterpartyIdNumber ?? null,
    description: entry.description ?? null,
    notes: entry.notes ?? null,
    donorType: entry.donorType ?? null,
    reversesId: entry.reverses ? entry.reverses.id : null,
    eventId: entry.event ? entry.event.id : null,
    override: entry.override ?? null,
    receipt: receiptOf(entry.receiptSha256, entry.receiptType, entry.receiptSize, entry.receiptUploadedAt),
    recordedById: entry.recordedBy.id,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
  };
}

export async function insertEntry(q: Queries, entry: Omit<EntryRecord, 'codeName' | 'receipt'>): Promise<void> {
  await q.write(
    db.insertInto('finance_entries').values({
      id: entry.id,
      kind: entry.kind,
      date: entry.date,
      amount: entry.amount,
      code: entry.code,
      counterparty_name: entry.counterpartyName,
      counterparty_id_number: entry.counterpartyIdNumber,
      description: entry.description,
      notes: entry.notes,
      donor_type: entry.donorType,
      reverses_id: entry.reversesId,
      event_id: entry.eventId,
      override: (entry.override ? JSON.stringify(entry.override) : null) as unknown as StoredOverride | null,
      recorded_by_id: entry.recordedById,
      created_at: entry.createdAt,
      updated_at: entry.updatedAt,
    }),
  );
}

/** One entry with its reversal; `lock` holds its row until the transaction ends (edits, reversals, receipts). */
export async function findEntry(q: Queries, id: string, lock = false): Promise<LedgerEntry | undefined> {
  let query = db
    .selectFrom('finance_entries as e')
    .innerJoin('finance_codes as c', 'c.code', 'e.code')
    .select(entryColumns)
    .select((eb) => eb.selectFrom('finance_entries as r').select('r.id').whereRef('r.reverses_id', '=', 'e.id').as('reversed_by_id'))
    .where('e.id', '=', id);
  if (lock) query = query.forUpdate('e');
  const row = await q.first(query);
  return row ? { ...entryOf(row), reversedById: row.reversed_by_id ?? null } : undefined;
}

export async function updateEntry(q: Queries, entry: EntryRecord, at: Date): Promise<void> {
  await q.write(
    db
      .updateTable('finance_entries')
      .set({
        date: entry.date,
        amount: entry.amount,
        code: entry.code,
        counterparty_name: entry.counterpartyName,
        counterparty_id_number: entry.counterpartyIdNumber,
        description: entry.description,
        notes: entry.notes,
        donor_type: entry.donorType,
        event_id: entry.eventId,
        override: (entry.override ? JSON.stringify(entry.override) : null) as unknown as StoredOverride | null,
        updated_at: at,
      })
      .where('id', '=', entry.id),
  );
}

export async function setReceipt(q: Queries, id: string, receipt: ReceiptRecord): Promise<void> {
  await q.write(
    db
      .updateTable('finance_entries')
      .set({ receipt_sha256: receipt.sha256, receipt_type: receipt.type, receipt_size: receipt.size, receipt_uploaded_at: receipt.uploadedAt, updated_at: receipt.uploadedAt })
      .where('id', '=', id),
  );
}

/** The reversal of each of these entries that has one. */
export async function reversalsOf(q: Queries, ids: readonly string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await q.rows(
    db
      .selectFrom('finance_entries')
      .select(['id', 'reverses_id'])
      .where('reverses_id', 'in', [...ids]),
  );
  return new Map(rows.flatMap((row) => (row.reverses_id ? [[row.reverses_id, row.id] as const] : [])));
}

export interface EntryFilter {
  kind?: EntryKind | undefined;
  code?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  idNumber?: string | undefined;
  eventId?: string | undefined;
  q?: string | undefined;
}

/*
 * The list's filter, written twice side by side: as the ORM's where (the page) and as SQL (the
 * totals of every matching entry). The list test checks that the totals equal the sum of the pages.
 */

function entryWhere(filter: EntryFilter): Record<string, unknown> {
  const where: Record<string, unknown> = {};
  if (filter.kind) where.kind = filter.kind;
  if (filter.code) where.code = filter.code;
  if (filter.from || filter.to) where.date = { ...(filter.from && { $gte: filter.from }), ...(filter.to && { $lte: filter.to }) };
  if (filter.idNumber) where.counterpartyIdNumber = filter.idNumber;
  if (filter.eventId) where.event = filter.eventId;
  if (filter.q) {
    const pattern = containsPattern(filter.q);
    where.$or = [{ counterpartyName: { $ilike: pattern } }, { description: { $ilike: pattern } }];
  }
  return where;
}

function entryConditions(filter: EntryFilter): Sql {
  const conditions: Sql[] = [sql`true`];
  if (filter.kind) conditions.push(sql`kind = ${filter.kind}`);
  if (filter.code) conditions.push(sql`code = ${filter.code}`);
  if (filter.from) conditions.push(sql`date >= ${filter.from}`);
  if (filter.to) conditions.push(sql`date <= ${filter.to}`);
  if (filter.idNumber) conditions.push(sql`counterparty_id_number = ${filter.idNumber}`);
  if (filter.eventId) conditions.push(sql`event_id = ${filter.eventId}`);
  if (filter.q) {
    const pattern = containsPattern(filter.q);
    conditions.push(sql`(counterparty_name ilike ${pattern} or description ilike ${pattern})`);
  }
  return sql.join(conditions, ' and ');
}

/** Newest day first, then newest recorded. */
export async function entryPage(em: EntityManager, q: Queries, filter: EntryFilter, page: PageRequest): Promise<Page<LedgerEntry>> {
  const result = await findPage(em, FinanceEntrySchema, entryWhere(filter), page, { date: 'desc', id: 'desc' }, entryOfEntity, { populate: ['code'] });
  const reversals = await reversalsOf(
    q,
    result.data.map((entry) => entry.id),
  );
  return { data: result.data.map((entry) => ({ ...entry, reversedById: reversals.get(entry.id) ?? null })), nextCursor: result.nextCursor };
}

export interface LedgerTotals {
  entries: number;
  income: number;
  expenses: number;
}

export async function entryTotals(q: Queries, filter: EntryFilter): Promise<LedgerTotals> {
  const row = await q.first<{ entries: number; income: string; expenses: string }>(sql`
    select count(*)::int as entries,
      coalesce(sum(amount) filter (where kind = 'income'), 0)::bigint as income,
      coalesce(sum(amount) filter (where kind = 'expense'), 0)::bigint as expenses
    from finance_entries where ${entryConditions(filter)}`);
  return { entries: row?.entries ?? 0, income: pesos(row?.income), expenses: pesos(row?.expenses) };
}

/** Every expense recorded, net of reversals, leaving out one entry (the one being edited). */
export async function spentSoFar(q: Queries, excludingId?: string): Promise<number> {
  const row = await q.first<{ spent: string }>(sql`
    select coalesce(sum(amount), 0)::bigint as spent from finance_entries
    where kind = 'expense' and (${excludingId ?? null}::uuid is null or id <> ${excludingId ?? null}::uuid)`);
  return pesos(row?.spent);
}

/** What one private donor has given under donation codes, net of reversals, leaving out one entry. */
export async function donatedBy(q: Queries, idNumber: string, excludingId?: string): Promise<number> {
  const row = await q.first<{ given: string }>(sql`
    select coalesce(sum(e.amount), 0)::bigint as given
    from finance_entries e join finance_codes c on c.code = e.code
    where c.donation and e.kind = 'income' and e.counterparty_id_number = ${idNumber} and e.donor_type = any(${[...LIMITED_DONOR_TYPES]}::text[])
      and (${excludingId ?? null}::uuid is null or e.id <> ${excludingId ?? null}::uuid)`);
  return pesos(row?.given);
}

/** Income and expenses in all, and expenses dated within [from, to]. */
export async function ledgerFigures(q: Queries, recentFrom: string, recentTo: string): Promise<{ income: number; expenses: number; recentExpenses: number }> {
  const row = await q.first<{ income: string; expenses: string; recent: string }>(sql`
    select coalesce(sum(amount) filter (where kind = 'income'), 0)::bigint as income,
      coalesce(sum(amount) filter (where kind = 'expense'), 0)::bigint as expenses,
      coalesce(sum(amount) filter (where kind = 'expense' and date >= ${recentFrom} and date <= ${recentTo}), 0)::bigint as recent
    from finance_entries`);
  return { income: pesos(row?.income), expenses: pesos(row?.expenses), recentExpenses: pesos(row?.recent) };
}

export interface CodeTotal {
  code: string;
  kind: EntryKind;
  name: string;
  entries: number;
  total: number;
}

/** Each code's entries and net total within the day range; every active code, and inactive ones with entries there. */
export async function totalsByCode(q: Queries, range: { from?: string | undefined; to?: string | undefined } = {}): Promise<CodeTotal[]> {
  const rows = await q.rows<{ code: string; kind: EntryKind; name: string; entries: number; total: string }>(sql`
    select c.code, c.kind, c.name, count(e.id)::int as entries, coalesce(sum(e.amount), 0)::bigint as total
    from finance_codes c
    left join finance_entries e on e.code = c.code and (${range.from ?? null}::text is null or e.date >= ${range.from ?? null}::text)
      and (${range.to ?? null}::text is null or e.date <= ${range.to ?? null}::text)
    group by c.code, c.kind, c.name, c.active
    having c.active or count(e.id) > 0
    order by c.kind desc, c.code`);
  return rows.map((row) => ({ ...row, total: pesos(row.total) }));
}

/** The entries of a day range in report order: by code, then day, then recording order. */
export async function entriesForReport(q: Queries, range: { from?: string | undefined; to?: string | undefined }): Promise<EntryRecord[]> {
  let query = db.selectFrom('finance_entries as e').innerJoin('finance_codes as c', 'c.code', 'e.code').select(entryColumns);
  if (range.from) query = query.where('e.date', '>=', range.from);
  if (range.to) query = query.where('e.date', '<=', range.to);
  return (await q.rows(query.orderBy('c.kind', 'desc').orderBy('e.code').orderBy('e.date').orderBy('e.id'))).map(entryOf);
}

/** Every entry whose counterparty is one of these NIT or cédula numbers (a person's donations, payments to them), oldest first. */
export async function entriesOfCounterparties(q: Queries, idNumbers: readonly string[]): Promise<EntryRecord[]> {
  if (!idNumbers.length) return [];
  const rows = await q.rows(
    db
      .selectFrom('finance_entries as e')
      .innerJoin('finance_codes as c', 'c.code', 'e.code')
      .select(entryColumns)
      .where('e.counterparty_id_number', 'in', [...idNumbers])
      .orderBy('e.date')
      .orderBy('e.id'),
  );
  return rows.map(entryOf);
}

// ───────────── audit

export interface AuditRecord {
  id: string;
  entryId: string | null;
  action: AuditAction;
  actorId: string;
  at: Date;
  changes: StoredChanges;
  reason: string | null;
}

export async function insertAudit(q: Queries, records: readonly AuditRecord[]): Promise<void> {
  if (!records.length) return;
  await q.write(
    db.insertInto('finance_audit').values(
      records.map((record) => ({
        id: record.id,
        entry_id: record.entryId,
        action: record.action,
        actor_id: record.actorId,
        at: record.at,
        changes: JSON.stringify(record.changes) as unknown as StoredChanges,
        reason: record.reason,
      })),
    ),
  );
}

/** An entry's audit trail, oldest first. */
export async function auditOf(q: Queries, entryId: string): Promise<AuditRecord[]> {
  const rows = await q.rows(
    db.selectFrom('finance_audit').select(['id', 'entry_id', 'action', 'actor_id', 'at', 'changes', 'reason']).where('entry_id', '=', entryId).orderBy('at').orderBy('id'),
  );
  return rows.map((row) => ({
    id: row.id,
    entryId: row.entry_id ?? null,
    action: row.action,
    actorId: row.actor_id,
    at: row.at,
    changes: row.changes,
    reason: row.reason ?? null,
  }));
}
