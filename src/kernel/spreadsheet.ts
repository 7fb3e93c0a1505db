/**
 * A spreadsheet cell that starts with = + - @ (or a tab/CR) can run as a formula when a CSV is
 * opened in Excel or Sheets (OWASP "CSV injection"): such cells get a leading apostrophe.
 */
export function safeCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  const text = String(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}
