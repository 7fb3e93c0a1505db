import type { z } from 'zod';
import { addDays, daysBetween } from '../../kernel/calendar';
import type { WARNING_CODES, summaryView } from './finance.schemas';

/**
 * The cap figures of the summary, from the ledger's totals and the settings. Pure: figures in,
 * figures and warnings out. Rules and thresholds: docs/finance.md — keep the two in step.
 */

/** Days of spending the projection's daily rate is averaged over (today included). */
export const RATE_WINDOW_DAYS = 30;
/** Spending at or above these shares of the cap raises a warning, then a critical one. */
export const WARN_AT_PCT = 80;
export const CRITICAL_AT_PCT = 95;

export interface LedgerFigures {
  income: number;
  expenses: number;
  /** Expenses dated within the last RATE_WINDOW_DAYS days, today included. */
  recentExpenses: number;
}

export interface CapSettings {
  spendingCap: number | null;
  electionDate: string | null;
}

type Warning = { code: (typeof WARNING_CODES)[number]; level: 'info' | 'warning' | 'critical'; message: string };
export type CapSummary = Omit<z.input<typeof summaryView>, 'byCode'>;

const cop = (value: number) => `$${Math.round(value).toLocaleString('es-CO')}`;
const oneDecimal = (value: number) => Math.round(value * 10) / 10;

/** The first day of the rate window that ends today. */
export function rateWindowStart(today: string): string {
  return addDays(today, -(RATE_WINDOW_DAYS - 1));
}

export function capSummary(figures: LedgerFigures, settings: CapSettings, today: string): CapSummary {
  const { income, expenses } = figures;
  const cap = settings.spendingCap;
  const daysToElection = settings.electionDate ? daysBetween(today, settings.electionDate) : null;
  const dailySpendRate = figures.recentExpenses / RATE_WINDOW_DAYS;
  // After the election nothing more is projected: the spend is what it is.
  const projectedSpend = daysToElection === null ? null : Math.round(expenses + dailySpendRate * Math.max(0, daysToElection));
  // Thresholds are judged on the exact share: 79.96 % shows as 80 but has not reached it.
  const usedPct = cap === null ? null : (expenses / cap) * 100;
  const capUsedPct = usedPct === null ? null : oneDecimal(usedPct);

  const warnings: Warning[] = [];
  if (cap === null) {
    warnings.push({ code: 'cap_not_set', level: 'info', message: 'No hay tope de gastos configurado: ningún gasto se rechaza por el tope y no hay límite por donante.' });
  } else if (expenses >= cap) {
    warnings.push({ code: 'cap_reached', level: 'critical', message: `Los gastos (${cop(expenses)}) alcanzan o superan el tope de ${cop(cap)}.` });
  } else if (usedPct !== null && usedPct >= CRITICAL_AT_PCT) {
    warnings.push({ code: 'cap_95', level: 'critical', message: `Los gastos llegan al ${capUsedPct} % del tope: quedan ${cop(cap - expenses)}.` });
  } else if (usedPct !== null && usedPct >= WARN_AT_PCT) {
    warnings.push({ code: 'cap_80', level: 'warning', message: `Los gastos llegan al ${capUsedPct} % del tope: quedan ${cop(cap - expenses)}.` });
  }
  if (cap !== null && projectedSpend !== null && expenses < cap && projectedSpend > cap) {
    warnings.push({
      code: 'projection_over_cap',
      level: 'warning',
      message: `Al ritmo de los últimos ${RATE_WINDOW_DAYS} días el gasto total llegaría a ${cop(projectedSpend)}, por encima del tope de ${cop(cap)}.`,
    });
  }
  if (settings.electionDate === null) {
    warnings.push({ code: 'election_date_not_set', level: 'info', message: 'No hay fecha de elección configurada: no se proyecta el gasto.' });
  }

  return {
    asOf: today,
    income,
    expenses,
    balance: income - expenses,
    cap,
    capUsedPct,
    remainingToCap: cap === null ? null : cap - expenses,
    electionDate: settings.electionDate,
    daysToElection,
    dailySpendRate: oneDecimal(dailySpendRate),
    projectedSpend,
    warnings,
  };
}

/**
 * What one private donor may give in all: the cap times the share, rounded down; none without a
 * cap. In integers (the share in basis points), since 0.29 × 100 is 28.999… in floating point.
 */
export function donorLimit(spendingCap: number | null, share: number): number | null {
  if (spendingCap === null) return null;
  const basisPoints = BigInt(Math.round(share * 10_000));
  return Number((BigInt(spendingCap) * basisPoints) / 10_000n);
}
