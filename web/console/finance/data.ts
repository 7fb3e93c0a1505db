import type { z } from 'zod';
import type { Role } from '../../../src/kernel/auth/roles';
import type { DonorType, EntryKind } from '../../../src/modules/finance/finance.codes';
import { financePolicy } from '../../../src/modules/finance/finance.policy';
import type { codeView, entryPageView, entryView, eventBudgetView, historyView, settingsView, summaryView } from '../../../src/modules/finance/finance.schemas';
import { roles as ROLE_LABELS } from '../../lib/labels';
import type { Problem } from '../../lib/api-types';
import { formatDate, formatPesos } from '../app/format';
import { problemMessage, type ProblemMessages } from '../app/problems';

export type Entry = z.output<typeof entryView>;
export type EntryPage = z.output<typeof entryPageView>;
export type Code = z.output<typeof codeView>;
export type Settings = z.output<typeof settingsView>;
export type Summary = z.output<typeof summaryView>;
export type History = z.output<typeof historyView>['data'];
export type EventBudget = z.output<typeof eventBudgetView>;

export const FINANCE = '/api/finance';
export const ENTRIES = `${FINANCE}/entries`;
export const SUMMARY = `${FINANCE}/summary`;
export const SETTINGS = `${FINANCE}/settings`;
export const CODES = `${FINANCE}/codes`;

export const summaryKey = ['finance', 'summary'] as const;
export const settingsKey = ['finance', 'settings'] as const;
export const codesKey = ['finance', 'codes'] as const;
export const entryKey = (id: string) => ['finance', 'entry', id] as const;
export const historyKey = (id: string) => ['finance', 'history', id] as const;

export const KIND_LABELS: Record<EntryKind, string> = { income: 'Ingreso', expense: 'Gasto' };
export const DONOR_LABELS: Record<DonorType, string> = {
  person: 'Persona natural',
  company: 'Persona jurídica (empresa)',
  party: 'Partido o movimiento',
  own: 'Recursos propios del candidato',
};

/** The roles' names, in words, that the policy lets do `action` ("Equipo de campaña o Administración"). */
export function whoMay(action: Parameters<typeof financePolicy.roles>[0]): string {
  const roles: Role[] = [...financePolicy.roles(action), 'admin'];
  const names = [...new Set(roles)].map((role) => ROLE_LABELS[role]);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} o ${names.at(-1)}` : (names[0] ?? '');
}

/** The law behind each rule the API may refuse an entry for, as the screen names it. */
export const RULE_LAWS = {
  cap_exceeded: 'Ley 1475 de 2011, art. 24: el tope de gastos que fija el CNE',
  donor_limit_exceeded: 'Ley 1475 de 2011, art. 23: cada aporte privado tiene un límite',
  donation_names_donor: 'Ley 1475 de 2011, art. 27: no se aceptan aportes anónimos',
} as const;

export type OverridableRule = 'cap_exceeded' | 'donor_limit_exceeded';
export const isOverridable = (code: string | undefined): code is OverridableRule => code === 'cap_exceeded' || code === 'donor_limit_exceeded';

/** The refusal of a rule a manager may override, in words, with the figures the screen knows (what is left under the cap, the donor limit). */
export function ruleRefusal(rule: OverridableRule, summary: Summary | undefined, settings: Settings | undefined): string {
  if (rule === 'cap_exceeded') {
    const left = summary?.remainingToCap ?? null;
    const cap = summary?.cap ?? settings?.spendingCap ?? null;
    return (
      'Este gasto haría pasar el gasto total de la campaña por encima del tope de gastos' +
      (cap !== null ? ` de ${formatPesos(cap)}` : '') +
      (left !== null ? ` (quedan ${formatPesos(Math.max(0, left))})` : '') +
      '.'
    );
  }
  const limit = settings?.donorLimit ?? null;
  return (
    'Esta donación haría pasar los aportes de este donante por encima del límite por donante' +
    (limit !== null ? ` de ${formatPesos(limit)}` : '') +
    (settings ? ` (${Math.round(settings.donorLimitShare * 1000) / 10} % del tope de gastos)` : '') +
    '.'
  );
}

const closedMessage = (problem: Problem) => {
  const day = /up to (\d{4}-\d{2}-\d{2})/.exec(problem.detail)?.[1];
  return `${day ? `Los días hasta el ${formatDate(day)} están cerrados` : 'Ese día está en un periodo cerrado'}: sus movimientos no se agregan ni se cambian; se corrigen con una reversión.`;
};

/** The screen's Spanish for the refusals it expects, by problem code. */
export const FINANCE_PROBLEMS: ProblemMessages = {
  date_in_future: 'La fecha es posterior a hoy: un movimiento se registra cuando ocurre.',
  unknown_code: 'Ese código no está en el catálogo.',
  code_kind_mismatch: 'Ese código es de otro tipo (los de ingresos empiezan por I-, los de gastos por G-).',
  code_inactive: 'Ese código está desactivado: use uno activo.',
  period_closed: closedMessage,
  already_reversed: 'Este movimiento ya fue reversado.',
  reversal_entry: 'Una reversión, o un movimiento reversado, no se cambia ni se reversa: registre el movimiento correcto de nuevo.',
  receipt_type_mismatch: 'El archivo no es un PDF ni una imagen JPEG o PNG, o su contenido no corresponde a su tipo.',
  unsupported_media_type: 'El soporte debe ser un PDF o una imagen JPEG o PNG.',
  payload_too_large: 'El soporte pesa más de 5 MB.',
};

export const financeProblem = (error: unknown): string => problemMessage(error, FINANCE_PROBLEMS);

/** A signed amount in pesos (a reversal's is negative). */
export const signedPesos = (amount: number): string => (amount < 0 ? `−${formatPesos(-amount)}` : formatPesos(amount));
