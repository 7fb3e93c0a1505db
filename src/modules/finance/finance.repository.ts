import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Expression, ExpressionBuilder, Selectable, SqlBool } from 'kysely';
import { queryPage, type Page, type PageRequest, mapPage } from '../../kernel/pagination';
import { camelRow, jsonText, snakeRow } from '../../kernel/rows';
import { containsPattern } from '../../kernel/search';
import { sql, tables, type Queries } from '../../kernel/sql';
import { audienceContacts } from '../audience';
import { FinanceAuditSchema, FinanceCodeSchema, FinanceEntrySchema, FinanceSettingsSchema, LIMITED_DONOR_TYPES, type EntryKind } from './finance.entities';

type FinanceTables = InferKyselyDB<typeof FinanceCodeSchema | typeof FinanceEntrySchema | typeof FinanceSettingsSchema | typeof FinanceAuditSchema>;
const db = tables<FinanceTables>();

/** bigint columns and sums arrive from the driver as strings; every amount here is below 2^53, so a number is exact. */
const pesos = (value: string | number | bigint | null | undefined): number => Number(value ?? 0);

// ───────────── settings

const settingsColumns = ['spending_cap', 'donor_limit_share', 'closed_through', 'updated_at', 'updated_by_id'] as const;

const settingsOf = (row: Pick<Selectable<FinanceTables['finance_settings']>, (typeof settingsColumns)[number]>) => camelRow(row, ['spending_cap', 'donor_limit_share']);

/** The module's own settings; the election date is the campaign's (`modules/campaign`). */
export type SettingsRecord = ReturnType<typeof settingsOf>;

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
  const { spendingCap, donorLimitShare, closedThrough, updatedById } = settings;
  await tx.write(
    db
      .updateTable('finance_settings')
      .set(snakeRow({ spendingCap, donorLimitShare, closedThrough, updatedById, updatedAt: at }))
      .where('id', '=', 1),
  );
}

// ───────────── catalogue

const codeColumns = ['code', 'kind', 'name', 'description', 'donation', 'active'] as const;

export type CodeRecord = ReturnType<typeof camelRow<Pick<Selectable<FinanceTables['finance_codes']>, (typeof codeColumns)[number]>>>;

export async function findCode(q: Queries, code: string): Promise<CodeRecord | undefined> {
  const row = await q.first(db.selectFrom('finance_codes').select(codeColumns).where('code', '=', code));
  return row && camelRow(row);
}

const codesWithUse = (filter: { kind?: EntryKind | undefined; active?: boolean | undefined; code?: string | undefined }) => {
  let query = db
    .selectFrom('finance_codes as c')
    .select(codeColumns.map((column) => `c.${column}` as const))
    .select((c) =>
      c
        .selectFrom('finance_entries as e')
        .select((e) => e.fn.countAll<string>().as('entries'))
        .whereRef('e.code', '=', 'c.code')
        .as('entries'),
    );
  if (filter.kind) query = query.where('c.kind', '=', filter.kind);
  if (filter.active !== undefined) query = query.where('c.active', '=', filter.active);
  if (filter.code) query = query.where('c.code', '=', filter.code);
  return query.orderBy('c.code');
};

/** The catalogue in code order, each code with how many entries use it. */
export async function listCodes(q: Queries, filter: { kind?: EntryKind | undefined; active?: boolean | undefined; code?: string | undefined }) {
  return (await q.rows(codesWithUse(filter))).map((row) => ({ ...camelRow(row), entries: pesos(row.entries) }));
}

export type CodeWithUse = Awaited<ReturnType<typeof listCodes>>[number];

export async function insertCode(q: Queries, code: CodeRecord, at: Date): Promise<void> {
  await q.write(db.insertInto('finance_codes').values(snakeRow({ ...code, createdAt: at, updatedAt: at })));
}

export async function updateCode(q: Queries, code: CodeRecord, at: Date): Promise<void> {
  const { name, description, donation, active } = code;
  await q.write(
    db
      .updateTable('finance_codes')
      .set(snakeRow({ name, description, donation, active, updatedAt: at }))
      .where('code', '=', code.code),
  );
}

/** Deletes a code no entry uses; false when it is in use (or gone), in the same statement so no entry slips in between. */
export async function deleteUnusedCode(q: Queries, code: string): Promise<boolean> {
  const result = await q.write(
    db
      .deleteFrom('finance_codes as c')
      .where('c.code', '=', code)
      .where((c) => c.not(c.exists(c.selectFrom('finance_entries as e').select('e.id').whereRef('e.code', '=', 'c.code')))),
  );
  return result.count > 0;
}

// ───────────── entries

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

const entryOf = <Row extends EntryRow>(row: Row) => camelRow(row, ['amount']);

/** An entry with its code's name. */
export type EntryRecord = ReturnType<typeof entryOf<EntryRow>>;

/** An entry with what the ledger says about it from elsewhere: its reversal, if any. */
export type LedgerEntry = ReturnType<typeof entryOf<EntryRow & { reversed_by_id: string | null }>>;

/** A receipt's columns of an entry. */
export type ReceiptRecord = Pick<EntryRecord, 'receiptSha256' | 'receiptType' | 'receiptSize' | 'receiptUploadedAt'>;

/** The entries joined with their codes, each with its reversal. */
const ledgerEntries = () =>
  db
    .selectFrom('finance_entries as e')
    .innerJoin('finance_codes as c', 'c.code', 'e.code')
    .select(entryColumns)
    .select((e) => e.selectFrom('finance_entries as r').select('r.id').whereRef('r.reverses_id', '=', 'e.id').as('reversed_by_id'));

export async function insertEntry(q: Queries, entry: LedgerEntry): Promise<void> {
  const { codeName: _codeName, reversedById: _reversedById, override, ...fields } = entry;
  await q.write(db.insertInto('finance_entries').values({ ...snakeRow(fields), override: override && jsonText(override) }));
}

/** One entry with its reversal; `lock` holds its row until the transaction ends (edits, reversals, receipts). */
export async function findEntry(q: Queries, id: string, lock = false): Promise<LedgerEntry | undefined> {
  let query = ledgerEntries().where('e.id', '=', id);
  if (lock) query = query.forUpdate('e');
  const row = await q.first(query);
  return row && entryOf({ ...row, reversed_by_id: row.reversed_by_id ?? null });
}

export async function updateEntry(q: Queries, entry: EntryRecord, at: Date): Promise<void> {
  const { date, amount, code, counterpartyName, counterpartyIdNumber, description, notes, donorType, eventId, override } = entry;
  await q.write(
    db
      .updateTable('finance_entries')
      .set({
        ...snakeRow({ date, amount, code, counterpartyName, counterpartyIdNumber, description, notes, donorType, eventId, updatedAt: at }),
        override: override && jsonText(override),
      })
      .where('id', '=', entry.id),
  );
}

export async function setReceipt(q: Queries, id: string, receipt: ReceiptRecord, at: Date): Promise<void> {
  await q.write(
    db
      .updateTable('finance_entries')
      .set(snakeRow({ ...receipt, updatedAt: at }))
      .where('id', '=', id),
  );
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

type Entries = FinanceTables & { e: FinanceTables['finance_entries'] };

/** The list's filter, the same for the page and for the totals of every matching entry. */
function matching(e: ExpressionBuilder<Entries, 'e'>, filter: EntryFilter): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [];
  if (filter.kind) conditions.push(e('e.kind', '=', filter.kind));
  if (filter.code) conditions.push(e('e.code', '=', filter.code));
  if (filter.from) conditions.push(e('e.date', '>=', filter.from));
  if (filter.to) conditions.push(e('e.date', '<=', filter.to));
  if (filter.idNumber) conditions.push(e('e.counterparty_id_number', '=', filter.idNumber));
  if (filter.eventId) conditions.push(e('e.event_id', '=', filter.eventId));
  if (filter.q) {
    const pattern = containsPattern(filter.q);
    conditions.push(e.or([e('e.counterparty_name', 'ilike', pattern), e('e.description', 'ilike', pattern)]));
  }
  return e.and(conditions);
}

/** Newest day first, then newest recorded. */
export async function entryPage(q: Queries, filter: EntryFilter, page: PageRequest): Promise<Page<LedgerEntry>> {
  const found = await queryPage(
    q,
    ledgerEntries().where((e) => matching(e, filter)),
    ['date', 'id'],
    'desc',
    page,
  );
  return mapPage(found, (row) => entryOf({ ...row, reversed_by_id: row.reversed_by_id ?? null }));
}

export async function entryTotals(q: Queries, filter: EntryFilter): Promise<{ entries: number; income: number; expenses: number }> {
  const row = await q.first(
    db
      .selectFrom('finance_entries as e')
      .select((e) => [
        e.fn.countAll<string>().as('entries'),
        e.fn.sum<string>('e.amount').filterWhere('e.kind', '=', 'income').as('income'),
        e.fn.sum<string>('e.amount').filterWhere('e.kind', '=', 'expense').as('expenses'),
      ])
      .where((e) => matching(e, filter)),
  );
  return { entries: pesos(row?.entries), income: pesos(row?.income), expenses: pesos(row?.expenses) };
}

/** Every expense recorded, net of reversals, leaving out one entry (the one being edited). */
export async function spentSoFar(q: Queries, excludingId?: string): Promise<number> {
  let query = db
    .selectFrom('finance_entries')
    .select((e) => e.fn.sum<string>('amount').as('spent'))
    .where('kind', '=', 'expense');
  if (excludingId !== undefined) query = query.where('id', '<>', excludingId);
  return pesos((await q.first(query))?.spent);
}

/** What one private donor has given under donation codes, net of reversals, leaving out one entry. */
export async function donatedBy(q: Queries, idNumber: string, excludingId?: string): Promise<number> {
  let query = db
    .selectFrom('finance_entries as e')
    .innerJoin('finance_codes as c', 'c.code', 'e.code')
    .select((e) => e.fn.sum<string>('e.amount').as('given'))
    .where('c.donation', '=', true)
    .where('e.kind', '=', 'income')
    .where('e.counterparty_id_number', '=', idNumber)
    .where('e.donor_type', 'in', [...LIMITED_DONOR_TYPES]);
  if (excludingId !== undefined) query = query.where('e.id', '<>', excludingId);
  return pesos((await q.first(query))?.given);
}

/** Income and expenses in all, and expenses dated within [from, to]. */
export async function ledgerFigures(q: Queries, recentFrom: string, recentTo: string): Promise<{ income: number; expenses: number; recentExpenses: number }> {
  const row = await q.first(
    db.selectFrom('finance_entries').select((e) => [
      e.fn.sum<string>('amount').filterWhere('kind', '=', 'income').as('income'),
      e.fn.sum<string>('amount').filterWhere('kind', '=', 'expense').as('expenses'),
      e.fn
        .sum<string>('amount')
        .filterWhere((recent) => recent.and([recent('kind', '=', 'expense'), recent('date', '>=', recentFrom), recent('date', '<=', recentTo)]))
        .as('recent'),
    ]),
  );
  return { income: pesos(row?.income), expenses: pesos(row?.expenses), recentExpenses: pesos(row?.recent) };
}

/** Expenses per ledger day in [from, to] ('YYYY-MM-DD', both included), net of reversals; days without any are absent. */
export async function spendByDay(q: Queries, from: string, to: string): Promise<{ day: string; amount: number }[]> {
  const rows = await q.rows(
    db
      .selectFrom('finance_entries')
      .select((e) => ['date as day', e.fn.sum<string>('amount').as('amount')])
      .where('kind', '=', 'expense')
      .where('date', '>=', from)
      .where('date', '<=', to)
      .groupBy('date'),
  );
  return rows.map((row) => ({ day: row.day, amount: pesos(row.amount) }));
}

/** Each code's entries and net total within the day range; every active code, and inactive ones with entries there. */
export async function totalsByCode(q: Queries, range: { from?: string | undefined; to?: string | undefined } = {}) {
  const rows = await q.rows(
    db
      .selectFrom('finance_codes as c')
      .leftJoin('finance_entries as e', (join) => {
        let on = join.onRef('e.code', '=', 'c.code');
        if (range.from) on = on.on('e.date', '>=', range.from);
        if (range.to) on = on.on('e.date', '<=', range.to);
        return on;
      })
      .select((c) => ['c.code', 'c.kind', 'c.name', c.fn.count<string>('e.id').as('entries'), c.fn.sum<string>('e.amount').as('total')])
      .groupBy(['c.code', 'c.kind', 'c.name', 'c.active'])
      .having((c) => c.or([c('c.active', '=', true), c(c.fn.count('e.id'), '>', 0)]))
      .orderBy('c.kind', 'desc')
      .orderBy('c.code'),
  );
  return rows.map((row) => ({ ...row, entries: pesos(row.entries), total: pesos(row.total) }));
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

/**
 * A contact's donations, newest recorded first, before an instant: the ledger names donors by NIT or
 * cédula, not by contact, so a donation is the person's when its donor's number is their cédula.
 */
export async function donationsOfContact(q: Queries, contactId: string, before: Date | null, limit: number) {
  const rows = await q.rows(sql<Pick<EntryRow, 'id' | 'created_at' | 'date' | 'amount' | 'code' | 'code_name' | 'donor_type' | 'reverses_id'>>`
    select e.id, e.created_at, e.date, e.amount, e.code, k.name as code_name, e.donor_type, e.reverses_id
    from finance_entries e join finance_codes k on k.code = e.code
    where e.kind = 'income' and k.donation
      and e.counterparty_id_number = (select p.document_id from ${audienceContacts()} p where p.id = ${contactId}::uuid)
      ${before ? sql`and e.created_at < ${before}` : sql``}
    order by e.created_at desc, e.id desc limit ${limit}`);
  return rows.map((row) => camelRow(row, ['amount']));
}

// ───────────── audit

export type AuditRecord = ReturnType<typeof camelRow<Selectable<FinanceTables['finance_audit']>>>;

export async function insertAudit(q: Queries, records: readonly AuditRecord[]): Promise<void> {
  if (!records.length) return;
  await q.write(db.insertInto('finance_audit').values(records.map((record) => ({ ...snakeRow(record), changes: jsonText(record.changes) }))));
}

/** An entry's audit trail, oldest first. */
export async function auditOf(q: Queries, entryId: string): Promise<AuditRecord[]> {
  const rows = await q.rows(db.selectFrom('finance_audit').selectAll().where('entry_id', '=', entryId).orderBy('at').orderBy('id'));
  return rows.map((row) => camelRow(row));
}
