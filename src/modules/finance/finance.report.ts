import { stringify } from 'csv-stringify/sync';
import { onFirstUse } from '../../kernel/on-first-use';
import type { z } from 'zod';
import { safeCell } from '../../kernel/spreadsheet';
import type { Queries } from '../../kernel/sql';
import { entriesForReport, totalsByCode, type EntryRecord } from './finance.repository';
import type { reportView } from './finance.schemas';

const exceljs = onFirstUse<typeof import('exceljs')>('exceljs');

/**
 * The campaign report for Cuentas Claras: every code with its entries and net total in the day
 * range, then total income, total expenses and the balance. The same rows go to JSON, CSV and the
 * first sheet of the workbook; the workbook adds the entries behind them. Format: docs/finance.md.
 */

export type FinanceReport = z.input<typeof reportView>;

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

export async function financeReport(q: Queries, range: { from?: string | undefined; to?: string | undefined }): Promise<FinanceReport> {
  const rows = await totalsByCode(q, range);
  const income = rows.filter((row) => row.kind === 'income').reduce((sum, row) => sum + row.total, 0);
  const expenses = rows.filter((row) => row.kind === 'expense').reduce((sum, row) => sum + row.total, 0);
  return { from: range.from ?? null, to: range.to ?? null, rows, totals: { income, expenses, balance: income - expenses } };
}

const KIND_LABEL = { income: 'Ingreso', expense: 'Gasto' } as const;

export const SUMMARY_HEADER = ['Código', 'Tipo', 'Concepto', 'Movimientos', 'Total (COP)'];

/** The summary as a table: header, a row per code, the three total rows. Text cells as given, amounts as numbers. */
export function summaryTable(report: FinanceReport): (string | number)[][] {
  return [
    SUMMARY_HEADER,
    ...report.rows.map((row) => [row.code, KIND_LABEL[row.kind], row.name, row.entries, row.total]),
    ['', '', 'TOTAL INGRESOS', '', report.totals.income],
    ['', '', 'TOTAL GASTOS', '', report.totals.expenses],
    ['', '', 'SALDO', '', report.totals.balance],
  ];
}

/** CSV with a BOM (Excel reads it as UTF-8); text cells guarded against formula injection, amounts left as numbers. */
export function reportCsv(report: FinanceReport): string {
  const rows = summaryTable(report).map((row) => row.map((cell) => (typeof cell === 'number' ? cell : safeCell(cell))));
  return stringify(rows, { bom: true });
}

const DETAIL_HEADER = ['Código', 'Fecha', 'Tercero', 'NIT / cédula', 'Tipo de donante', 'Descripción', 'Valor (COP)', 'Reversa de', 'Recibo (SHA-256)', 'Id'];

function detailRow(entry: EntryRecord): (string | number)[] {
  return [
    entry.code,
    entry.date,
    entry.counterpartyName,
    entry.counterpartyIdNumber ?? '',
    entry.donorType ?? '',
    entry.description ?? '',
    entry.amount,
    entry.reversesId ?? '',
    entry.receiptSha256 ?? '',
    entry.id,
  ];
}

/** The workbook: "Resumen" (the summary table, the CSV's rows) and "Detalle" (each entry, by code and day). */
export async function reportXlsx(q: Queries, report: FinanceReport): Promise<Buffer> {
  const entries = await entriesForReport(q, { from: report.from ?? undefined, to: report.to ?? undefined });
  const workbook = new (exceljs().Workbook)();
  workbook.creator = 'Comando';
  workbook.created = new Date();
  const money = '#,##0;-#,##0';

  const summary = workbook.addWorksheet('Resumen');
  summary.addRows(summaryTable(report));
  summary.getRow(1).font = { bold: true };
  summary.getColumn(3).width = 48;
  summary.getColumn(5).numFmt = money;
  summary.getColumn(5).width = 18;
  for (let row = summary.rowCount - 2; row <= summary.rowCount; row++) summary.getRow(row).font = { bold: true };

  const detail = workbook.addWorksheet('Detalle');
  detail.addRows([DETAIL_HEADER, ...entries.map(detailRow)]);
  detail.getRow(1).font = { bold: true };
  detail.getColumn(3).width = 36;
  detail.getColumn(6).width = 48;
  detail.getColumn(7).numFmt = money;
  detail.getColumn(7).width = 18;

  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** `reporte-financiero[-from][_to].ext`, the range in the name so downloads of different ranges do not overwrite each other. */
export function reportFileName(report: FinanceReport, extension: string): string {
  const range = [report.from, report.to].filter(Boolean).join('_');
  return `reporte-financiero${range ? `-${range}` : ''}.${extension}`;
}
