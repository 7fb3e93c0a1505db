/** How the console writes numbers, money and times: Colombian Spanish, in the campaign's time zone. */

export const CAMPAIGN_TIME_ZONE = 'America/Bogota';

const integer = new Intl.NumberFormat('es-CO');
const pesos = new Intl.NumberFormat('es-CO', { style: 'currency', currency: 'COP', maximumFractionDigits: 0 });
const percent = new Intl.NumberFormat('es-CO', { maximumFractionDigits: 1 });
const relative = new Intl.RelativeTimeFormat('es-CO', { numeric: 'auto' });

export const formatNumber = (value: number): string => integer.format(value);
export const formatPesos = (value: number): string => pesos.format(value);
export const formatPercent = (value: number): string => `${percent.format(value)} %`;

function toDate(value: string | Date): Date {
  return typeof value === 'string' ? new Date(value) : value;
}

/** 28 nov 2026, 14:05 */
export function formatDateTime(value: string | Date, timeZone = CAMPAIGN_TIME_ZONE): string {
  return toDate(value).toLocaleString('es-CO', { timeZone, day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hour12: false });
}

/** 28 nov 2026 (a local date such as a due date: read at noon UTC so no zone moves it a day). */
export function formatDate(value: string | Date, timeZone = CAMPAIGN_TIME_ZONE): string {
  const date = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T12:00:00Z`) : toDate(value);
  return date.toLocaleDateString('es-CO', { timeZone, day: 'numeric', month: 'short', year: 'numeric' });
}

/** 28 nov (chart axes) */
export function formatDayMonth(value: Date, timeZone = CAMPAIGN_TIME_ZONE): string {
  return value.toLocaleDateString('es-CO', { timeZone, day: 'numeric', month: 'short' });
}

/** 14:05 */
export function formatTime(value: string | Date, timeZone = CAMPAIGN_TIME_ZONE): string {
  return toDate(value).toLocaleTimeString('es-CO', { timeZone, hour: '2-digit', minute: '2-digit', hour12: false });
}

/** "hace 5 minutos", "en 2 horas": for feeds and inbox rows (the exact time goes in a title). */
export function formatRelative(value: string | Date, now = Date.now()): string {
  const seconds = Math.round((toDate(value).getTime() - now) / 1000);
  const steps: [Intl.RelativeTimeFormatUnit, number][] = [
    ['second', 60],
    ['minute', 60],
    ['hour', 24],
    ['day', 30],
    ['month', 12],
  ];
  let amount = seconds;
  for (const [unit, size] of steps) {
    if (Math.abs(amount) < size) return relative.format(unit === 'second' && Math.abs(amount) < 10 ? 0 : amount, unit);
    amount = Math.round(amount / size);
  }
  return relative.format(amount, 'year');
}

/** "1 día hábil", "3 días hábiles": a count with its noun, singular or plural. */
export function plural(count: number, one: string, many: string): string {
  return `${formatNumber(count)} ${Math.abs(count) === 1 ? one : many}`;
}

const decimal = new Intl.NumberFormat('es-CO', { maximumFractionDigits: 1 });

/** 850 B, 12,5 KB, 3,2 MB (a file's size). */
export function formatFileSize(bytes: number): string {
  if (bytes < 1024) return `${formatNumber(bytes)} B`;
  if (bytes < 1024 * 1024) return `${decimal.format(bytes / 1024)} KB`;
  return `${decimal.format(bytes / 1024 / 1024)} MB`;
}

/** +57 310 444 0007 (a Colombian number as the API stores it, E.164); anything else as it is. */
export function formatPhone(value: string): string {
  const colombian = /^\+57(\d{3})(\d{3})(\d{4})$/.exec(value);
  return colombian ? `+57 ${colombian[1]} ${colombian[2]} ${colombian[3]}` : value;
}
