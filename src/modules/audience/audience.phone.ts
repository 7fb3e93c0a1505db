import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

/**
 * E.164 (`+573001234567`) or undefined when the number is not a valid one. Its own file, with
 * nothing but libphonenumber, so that the people schemas (and the console's correction form,
 * which validates with them) read a phone exactly as the server does.
 */
export function normalisePhone(raw: string, defaultRegion: CountryCode = 'CO'): string | undefined {
  const parsed = parsePhoneNumberFromString(raw, defaultRegion);
  return parsed?.isValid() ? parsed.number : undefined;
}
