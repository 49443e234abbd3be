/**
 * Reading an HTML form into a tool's arguments. A form sends every field as a string, an empty box as `''`:
 * these helpers say once what an empty box means (keep the value, or clear it), so each page's POST handler
 * only names its fields. The tool's own schema then validates the values, as it does for an agent.
 */
export type FormBody = Record<string, unknown>;

function text(body: FormBody, name: string): string {
  const value = body[name];
  return typeof value === 'string' ? value.trim() : '';
}

/** A field an empty box leaves unchanged (omitted from the arguments). */
export function keepIfEmpty(body: FormBody, name: string): string | undefined {
  return text(body, name) || undefined;
}

/** A field an empty box clears (sent as `null`). */
export function clearIfEmpty(body: FormBody, name: string): string | null {
  return text(body, name) || null;
}

/** A number box: empty clears, anything else is passed as a number for the schema to judge. */
export function numberOrNull(body: FormBody, name: string): number | null {
  const value = text(body, name);
  return value === '' ? null : Number(value.replace(',', '.'));
}

/** A textarea with one entry per line: blank lines dropped. */
export function lines(body: FormBody, name: string): string[] {
  return text(body, name)
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
}

/** A checkbox: present means on. */
export function checked(body: FormBody, name: string): boolean {
  return body[name] !== undefined && body[name] !== '';
}

/** A hidden integer (a version read with the page), or undefined when absent. */
export function integer(body: FormBody, name: string): number | undefined {
  const value = text(body, name);
  return /^\d+$/.test(value) ? Number(value) : undefined;
}

/** The raw text of a field (for fields whose parts the caller splits itself). */
export function raw(body: FormBody, name: string): string {
  return text(body, name);
}
