import { sql, type Queries } from '../../kernel/sql';
import { readElectionDate } from '../campaign';
import { ledgerFigures, readSettings } from './finance.repository';
import { capSummary, rateWindowStart, type CapSummary } from './finance.summary';

/** Totals only (no counterparty, no entry): the balance, the cap and its use, as `GET /api/finance/summary` has them without the codes. */
export async function financeBalance(q: Queries, today: string): Promise<CapSummary> {
  const [settings, electionDate, figures] = await Promise.all([readSettings(q), readElectionDate(q), ledgerFigures(q, rateWindowStart(today), today)]);
  return capSummary(figures, { ...settings, electionDate }, today);
}

/** Expenses per ledger day in [from, to] ('YYYY-MM-DD', both included), net of reversals; days without any are absent. */
export function spendByDay(q: Queries, from: string, to: string): Promise<{ day: string; amount: number }[]> {
  return q
    .rows<{ day: string; amount: string }>(
      sql`select date as day, sum(amount)::bigint as amount from finance_entries where kind = 'expense' and date >= ${from} and date <= ${to} group by date`,
    )
    .then((rows) => rows.map((row) => ({ day: row.day, amount: Number(row.amount) })));
}
