import { z } from 'zod';
import { calendarDate, instant } from '../../kernel/schemas';
import { pageQueryShape } from '../../kernel/page-schemas';
import { AUDIT_ACTIONS, DONOR_TYPES, ENTRY_KINDS, OVERRIDABLE_RULES } from './finance.codes';

/** The largest amount one entry may carry: 10^13 pesos, far above any campaign and well inside exact integers. */
export const AMOUNT_MAX = 10_000_000_000_000;

/** Whole pesos: no cents, nothing at or below zero, nothing absurd. */
export const pesos = z
  .number({ error: 'expected a number of pesos' })
  .int('expected whole pesos, without cents')
  .positive('must be above 0')
  .max(AMOUNT_MAX, `must be at most ${AMOUNT_MAX.toLocaleString('en')} pesos`);

/** `I-101`, `G-203`, or a sub-code such as `G-203.1`: I for income (ingresos), G for expense (gastos). */
export const CODE_PATTERN = /^[IG]-[0-9]{3}(\.[0-9]{1,2})?$/;
const code = z.string().trim().toUpperCase().regex(CODE_PATTERN, 'expected a code such as I-103 or G-203');

export const kindOfCode = (value: string): (typeof ENTRY_KINDS)[number] => (value.startsWith('I-') ? 'income' : 'expense');

/**
 * A NIT or cédula as the ledger keeps it: without dots, spaces or a NIT's check digit (`900.123.456-7`
 * → `900123456`), upper case; so one donor is one key however their number was typed.
 */
export function normaliseIdNumber(raw: string): string | undefined {
  const compact = raw.toUpperCase().replace(/[\s.,]/g, '');
  const withoutCheckDigit = /^([0-9]+)-[0-9]$/.exec(compact)?.[1] ?? compact;
  return /^[0-9A-Z]{3,20}$/.test(withoutCheckDigit) ? withoutCheckDigit : undefined;
}

export const idNumber = z
  .string()
  .max(40)
  .transform((value, ctx) => {
    const normalised = normaliseIdNumber(value);
    if (!normalised) {
      ctx.addIssue({ code: 'custom', message: 'expected a NIT or cédula: 3 to 20 digits or letters (dots, spaces and a NIT check digit are dropped)' });
      return z.NEVER;
    }
    return normalised;
  });

const counterparty = z
  .object({
    name: z.string().trim().min(1).max(200),
    idNumber: idNumber.nullable().optional().describe('NIT or cédula; required for donations'),
  })
  .strict();

const override = z
  .object({ reason: z.string().trim().min(5, 'say why, in at least 5 characters').max(500) })
  .strict()
  .describe('A manager lets the entry through the spending cap or the donor limit; the reason is recorded');

const description = z.string().trim().min(1).max(500);
const notes = z.string().trim().min(1).max(5000);

// ───────────── entries

export const createEntryBody = z
  .object({
    kind: z.enum(ENTRY_KINDS),
    date: calendarDate.describe('The local day of the movement; not after today'),
    amount: pesos.describe('Whole pesos (COP)'),
    code: code.describe('A code of the catalogue, of the same kind'),
    counterparty,
    description: description.optional(),
    notes: notes.optional(),
    donorType: z.enum(DONOR_TYPES).optional().describe('Income only; required under a donation code'),
    eventId: z.uuid().optional().describe("The agenda event it belongs to (its budget is compared with the event's movements)"),
    override: override.optional(),
  })
  .strict()
  .superRefine((entry, ctx) => {
    if (entry.donorType && entry.kind !== 'income') ctx.addIssue({ code: 'custom', path: ['donorType'], message: 'only income has a donor' });
  });
export type CreateEntryInput = z.infer<typeof createEntryBody>;

export const updateEntryBody = z
  .object({
    date: calendarDate.optional(),
    amount: pesos.optional(),
    code: code.optional(),
    counterparty: counterparty.optional(),
    description: description.nullable().optional(),
    notes: notes.nullable().optional(),
    donorType: z.enum(DONOR_TYPES).nullable().optional(),
    eventId: z.uuid().nullable().optional(),
    override: override.optional(),
  })
  .strict()
  .refine((body) => Object.entries(body).some(([key, value]) => key !== 'override' && value !== undefined), 'Send at least one field to change.');
export type UpdateEntryInput = z.infer<typeof updateEntryBody>;

export const reverseEntryBody = z.object({ reason: description.optional().describe('Why; becomes the reversal’s description') }).strict();
export type ReverseEntryInput = z.infer<typeof reverseEntryBody>;

const dayRange = {
  from: calendarDate.optional().describe('dated on or after'),
  to: calendarDate.optional().describe('dated on or before'),
};
const rangeInOrder = (query: { from?: string | undefined; to?: string | undefined }) => !query.from || !query.to || query.from <= query.to;
const rangeProblem = { message: '`to` must not be before `from`', path: ['to'] };

export const listEntriesQuery = z
  .object({
    ...pageQueryShape,
    kind: z.enum(ENTRY_KINDS).optional(),
    code: code.optional(),
    ...dayRange,
    idNumber: idNumber.optional().describe("The counterparty's NIT or cédula"),
    eventId: z.uuid().optional().describe('Movements of one agenda event'),
    q: z.string().trim().min(1).max(100).optional().describe("Text in the counterparty's name or the description"),
  })
  .refine(rangeInOrder, rangeProblem);
export type ListEntriesInput = z.infer<typeof listEntriesQuery>;

const receiptView = z.object({ sha256: z.string().length(64), type: z.string(), size: z.number().int(), uploadedAt: instant });

export const entryView = z
  .object({
    id: z.uuid(),
    kind: z.enum(ENTRY_KINDS),
    date: calendarDate,
    amount: z.number().int().describe('Whole pesos; negative on a reversal'),
    code: z.string(),
    codeName: z.string(),
    counterparty: z.object({ name: z.string(), idNumber: z.string().nullable() }),
    description: z.string().nullable(),
    notes: z.string().nullable(),
    donorType: z.enum(DONOR_TYPES).nullable(),
    reversesId: z.uuid().nullable().describe('On a reversal: the entry it reverses'),
    reversedById: z.uuid().nullable().describe('On a reversed entry: its reversal'),
    eventId: z.uuid().nullable().describe('The agenda event it belongs to'),
    override: z.object({ reason: z.string(), byId: z.uuid(), rules: z.array(z.enum(OVERRIDABLE_RULES)) }).nullable(),
    receipt: receiptView.nullable(),
    periodClosed: z.boolean().describe('Dated on or before the closed day: it can only be reversed'),
    recordedById: z.uuid(),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'FinanceEntry' });

export const totalsView = z.object({
  entries: z.number().int(),
  income: z.number().int(),
  expenses: z.number().int(),
  balance: z.number().int(),
});

export const entryPageView = z.object({
  data: z.array(entryView),
  nextCursor: z.string().nullable(),
  totals: totalsView.describe('Of every entry the filters match, not just this page'),
});

export const historyView = z.object({
  data: z.array(
    z.object({
      id: z.uuid(),
      action: z.enum(AUDIT_ACTIONS),
      at: instant,
      actorId: z.uuid(),
      changes: z.record(z.string(), z.object({ before: z.unknown(), after: z.unknown() })),
      reason: z.string().nullable(),
    }),
  ),
});

export const idParams = z.object({ id: z.uuid() });
export const codeParams = z.object({ code });

// ───────────── settings

export const DONOR_LIMIT_SHARE_DEFAULT = 0.1;

export const settingsBody = z
  .object({
    spendingCap: pesos.nullable().describe('Tope de gastos in whole pesos, null for none'),
    electionDate: calendarDate
      .nullable()
      .optional()
      .describe('The campaign’s election day (the one `PUT /api/campaign/settings` sets, which GOTV reads too); omitted: kept as it is'),
    donorLimitShare: z
      .number()
      .positive()
      .max(1)
      .refine((share) => Number.isInteger(Math.round(share * 10_000 * 1e6) / 1e6), 'at most four decimals (a basis point)')
      .optional()
      .describe('Share of the cap one private donor may give (0.1 by default)'),
    closedThrough: calendarDate.optional().describe('Close every day up to and including this one; only moves forward, and only to a past day'),
  })
  .strict();
export type SettingsInput = z.infer<typeof settingsBody>;

export const settingsView = z
  .object({
    spendingCap: z.number().int().nullable(),
    electionDate: calendarDate.nullable(),
    donorLimitShare: z.number(),
    donorLimit: z.number().int().nullable().describe('What one private donor may give in all: the cap × the share'),
    closedThrough: calendarDate.nullable(),
    updatedAt: instant,
    updatedById: z.uuid().nullable(),
  })
  .meta({ id: 'FinanceSettings' });

// ───────────── summary

export const WARNING_CODES = ['cap_not_set', 'election_date_not_set', 'cap_80', 'cap_95', 'cap_reached', 'projection_over_cap'] as const;

export const summaryView = z
  .object({
    asOf: calendarDate,
    income: z.number().int(),
    expenses: z.number().int(),
    balance: z.number().int(),
    cap: z.number().int().nullable(),
    capUsedPct: z.number().nullable().describe('Expenses as a percentage of the cap, one decimal'),
    remainingToCap: z.number().int().nullable(),
    electionDate: calendarDate.nullable(),
    daysToElection: z.number().int().nullable(),
    dailySpendRate: z.number().describe('Mean daily expenses over the last 30 days'),
    projectedSpend: z.number().int().nullable().describe('Expenses + dailySpendRate × days to the election'),
    warnings: z.array(z.object({ code: z.enum(WARNING_CODES), level: z.enum(['info', 'warning', 'critical']), message: z.string() })),
    byCode: z.array(z.object({ code: z.string(), kind: z.enum(ENTRY_KINDS), name: z.string(), entries: z.number().int(), total: z.number().int() })),
  })
  .meta({ id: 'FinanceSummary' });

// ───────────── catalogue

export const codeView = z
  .object({
    code: z.string(),
    kind: z.enum(ENTRY_KINDS),
    name: z.string(),
    description: z.string().nullable(),
    donation: z.boolean(),
    active: z.boolean(),
    entries: z.number().int().describe('Entries recorded under it; a code in use cannot be deleted'),
  })
  .meta({ id: 'FinanceCode' });

export const listCodesQuery = z.object({ kind: z.enum(ENTRY_KINDS).optional(), active: z.stringbool().optional() });
export type ListCodesInput = z.infer<typeof listCodesQuery>;

export const createCodeBody = z
  .object({
    code,
    kind: z.enum(ENTRY_KINDS),
    name: z.string().trim().min(1).max(160),
    description: z.string().trim().min(1).max(500).optional(),
    donation: z.boolean().default(false).describe('Income under it is a private contribution (donor named, limit applies)'),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (kindOfCode(body.code) !== body.kind) ctx.addIssue({ code: 'custom', path: ['code'], message: `${body.kind} codes start with ${body.kind === 'income' ? 'I-' : 'G-'}` });
    if (body.donation && body.kind !== 'income') ctx.addIssue({ code: 'custom', path: ['donation'], message: 'only an income code can be a donation code' });
  });
export type CreateCodeInput = z.infer<typeof createCodeBody>;

export const updateCodeBody = z
  .object({
    name: z.string().trim().min(1).max(160).optional(),
    description: z.string().trim().min(1).max(500).nullable().optional(),
    donation: z.boolean().optional(),
    active: z.boolean().optional(),
  })
  .strict()
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'Send at least one field to change.');
export type UpdateCodeInput = z.infer<typeof updateCodeBody>;

// ───────────── report

export const REPORT_FORMATS = ['json', 'csv', 'xlsx'] as const;

export const reportQuery = z.object({ format: z.enum(REPORT_FORMATS).default('json'), ...dayRange }).refine(rangeInOrder, rangeProblem);
export type ReportInput = z.infer<typeof reportQuery>;

export const reportView = z
  .object({
    from: calendarDate.nullable(),
    to: calendarDate.nullable(),
    rows: z.array(z.object({ code: z.string(), kind: z.enum(ENTRY_KINDS), name: z.string(), entries: z.number().int(), total: z.number().int() })),
    totals: z.object({ income: z.number().int(), expenses: z.number().int(), balance: z.number().int() }),
  })
  .meta({ id: 'FinanceReport' });

export const eventBudgetParams = z.object({ eventId: z.uuid() });

export const eventBudgetView = z
  .object({
    eventId: z.uuid(),
    title: z.string(),
    status: z.string(),
    startsAt: instant,
    planned: z.number().int().nullable().describe('The budget set on the event, whole pesos (null when none was set)'),
    spent: z.number().int().describe('Expenses recorded for the event, net of reversals'),
    income: z.number().int().describe('Income recorded for the event (a fundraiser), net of reversals'),
    remaining: z.number().int().nullable().describe('planned − spent; negative when over budget'),
    usedPct: z.number().nullable().describe('spent ÷ planned × 100'),
    entries: z.number().int(),
  })
  .meta({ id: 'FinanceEventBudget' });
