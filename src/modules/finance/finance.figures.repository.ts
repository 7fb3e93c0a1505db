import type { Queries } from '../../kernel/sql';
import { readElectionDate } from '../campaign';
import { ledgerFigures, readSettings } from './finance.repository';
import { capSummary, rateWindowStart, type CapSummary } from './finance.summary';

/** Totals only (no counterparty, no entry): the balance, the cap and its use, as `GET /api/finance/summary` has them without the codes. */
export async function financeBalance(q: Queries, today: string): Promise<CapSummary> {
  const [settings, electionDate, figures] = await Promise.all([readSettings(q), readElectionDate(q), ledgerFigures(q, rateWindowStart(today), today)]);
  return capSummary(figures, { ...settings, electionDate }, today);
}
