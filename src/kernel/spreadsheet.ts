/**
 * A spreadsheet cell that starts with = + - @ (or a tab/CR) can run as a formula when a CSV is
 * opened in Excel or Sheets (OWASP "CSV injection"): such cells get a leading apostrophe. A
 * signed number or phone (`+57 300 123 4567`, `-15000`) is left as it is: made of digits,
 * spaces and `( ) . -` only, it can call nothing, and the apostrophe would spoil it for every
 * program that reads the file as data.
 */
export function safeCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  const text = String(value);
  if (/^[+-][\d\s().-]*\d[\d\s().-]*$/.test(text)) return text;
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}
