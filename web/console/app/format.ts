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

const dayKey = (value: Date, timeZone: string) => value.toLocaleDateString('en-CA', { timeZone });

/** "Hoy", "Ayer" or "28 nov 2026": the day a thread's messages are grouped under, in the campaign's time zone. */
export function formatDayLabel(value: string | Date, now = Date.now(), timeZone = CAMPAIGN_TIME_ZONE): string {
  const date = toDate(value);
  const day = dayKey(date, timeZone);
  if (day === dayKey(new Date(now), timeZone)) return 'Hoy';
  if (day === dayKey(new Date(now - 86_400_000), timeZone)) return 'Ayer';
  return formatDate(date, timeZone);
}

/** The campaign's calendar day of an instant (YYYY-MM-DD), to group by day. */
export function localDay(value: string | Date, timeZone = CAMPAIGN_TIME_ZONE): string {
  return dayKey(toDate(value), timeZone);
}

/** `+573001234567` → `+57 300 123 4567` (a Colombian mobile as people write it); another number as stored. */
export function formatPhone(phone: string): string {
  const colombian = /^\+57(\d{3})(\d{3})(\d{4})$/.exec(phone);
  return colombian ? `+57 ${colombian[1]} ${colombian[2]} ${colombian[3]}` : phone;
}

/** The zone's offset from UTC at that instant, as ISO 8601 writes it (`-05:00`). */
function zoneOffset(at: Date, timeZone: string): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(at).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const offset = name.replace('GMT', '');
  return offset === '' ? '+00:00' : offset;
}

/**
 * A local date (`2026-11-28`, as a date input gives it) as the instant its day starts or ends in
 * the campaign's time zone, with that zone's offset (`2026-11-28T00:00:00-05:00`): what an API
 * filter "created from / to" takes. Undefined for anything that is not a date.
 */
export function localDayBound(date: string, end: 'start' | 'end', timeZone = CAMPAIGN_TIME_ZONE): string | undefined {
  return localInstant(date, end === 'start' ? '00:00:00.000' : '23:59:59.999', timeZone);
}

/**
 * A local date and time (`2026-11-28`, `14:30`, as date and time inputs give them) as an instant in
 * the campaign's time zone with that zone's offset (`2026-11-28T14:30:00-05:00`): a time to schedule
 * something at. Undefined unless both are given.
 */
export function localInstant(date: string, time: string, timeZone = CAMPAIGN_TIME_ZONE): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !/^\d{2}:\d{2}(:\d{2}(\.\d{3})?)?$/.test(time)) return undefined;
  const offset = zoneOffset(new Date(`${date}T12:00:00Z`), timeZone);
  return `${date}T${time.length === 5 ? `${time}:00` : time}${offset}`;
}

/** Today as a local date in the campaign's time zone (`2026-11-28`), for file names and date inputs. */
export function localToday(timeZone = CAMPAIGN_TIME_ZONE): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}
