/**
 * Reading a price and its currency as a page writes them.
 *
 * Prices: JSON numbers or strings such as "12.99", "1,299.00", "1.299,00", "12,99", "1 299,00 €". With both
 * `.` and `,` the last one is the decimal separator; a lone `,` followed by exactly three digits groups
 * thousands ("1,299" is 1299) unless the whole part is 0 ("0,995" is 1.00); a lone `.` is always decimal
 * (schema.org's form: "1.299" is 1.299). Minor units are hundredths, as everywhere else on the platform
 * (`toProductView` divides by 100), rounded half up; a price that does not fit a PostgreSQL integer, or is
 * negative, is unknown (null).
 */

/** The largest PostgreSQL `integer`. */
const MAX_PRICE_MINOR = 2_147_483_647;

/** Digit groups separated by `.` or `,`, or by a space/apostrophe that groups exactly three digits. */
const AMOUNT = /\d+(?:(?:[.,]|[ '’\u00a0\u202f\u2009](?=\d{3}(?!\d)))\d+)*/;

/** A price in hundredths, from a JSON number or a price string; null when absent, unreadable or out of range. */
export function priceToMinor(value: unknown): number | null {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0 || value >= 1e15) return null;
    text = value.toFixed(6);
  } else if (typeof value === 'string') {
    text = value;
  } else {
    return null;
  }
  const match = AMOUNT.exec(text);
  if (!match) return null;
  if (/-\s*$/.test(text.slice(0, match.index))) return null;
  const amount = match[0].replace(/[ '’\u00a0\u202f\u2009]/g, '');

  const lastDot = amount.lastIndexOf('.');
  const lastComma = amount.lastIndexOf(',');
  let whole: string;
  let fraction = '';
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? '.' : ',';
    const index = Math.max(lastDot, lastComma);
    if (amount.indexOf(decimal) !== index) return null;
    const groups = amount.slice(0, index).split(decimal === '.' ? ',' : '.');
    if (!validGroups(groups)) return null;
    whole = groups.join('');
    fraction = amount.slice(index + 1);
  } else if (lastDot >= 0 || lastComma >= 0) {
    const separator = lastDot >= 0 ? '.' : ',';
    const parts = amount.split(separator);
    if (parts.length > 2 || (separator === ',' && parts[1]!.length === 3 && parts[0] !== '0')) {
      if (!validGroups(parts)) return null;
      whole = parts.join('');
    } else {
      whole = parts[0]!;
      fraction = parts[1]!;
    }
  } else {
    whole = amount;
  }
  whole = whole.replace(/^0+(?=\d)/, '');
  if (whole.length > 12) return null;
  const cents = Number(whole) * 100 + Number(fraction.slice(0, 2).padEnd(2, '0'));
  const minor = cents + (Number(fraction[2] ?? '0') >= 5 ? 1 : 0);
  return Number.isSafeInteger(minor) && minor <= MAX_PRICE_MINOR ? minor : null;
}

/** Thousands groups: the first 1–3 digits, every other exactly 3. */
function validGroups(groups: readonly string[]): boolean {
  return groups.every((group, i) => (i === 0 ? group.length >= 1 && group.length <= 3 : group.length === 3));
}

export function currencyCode(raw: string | null): string | null {
  const code = raw?.trim().toUpperCase() ?? '';
  return /^[A-Z]{3}$/.test(code) ? code : null;
}
