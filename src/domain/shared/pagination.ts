/**
 * Cursor pagination, the same everywhere lists can grow: newest first, keyset on (createdAt, id), opaque
 * cursors. Agents pass `nextCursor` back unchanged; page size defaults to 20 and is capped at 100.
 */
import { ValidationError } from '../../errors.ts';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface Keyset {
  createdAt: Date;
  id: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export function encodeCursor(key: Keyset): string {
  return Buffer.from(JSON.stringify({ v: 1, t: key.createdAt.toISOString(), i: key.id })).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): Keyset | null {
  if (cursor === undefined) return null;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      v?: number;
      t?: string;
      i?: string;
    };
    const createdAt = new Date(parsed.t ?? '');
    if (parsed.v !== 1 || typeof parsed.i !== 'string' || Number.isNaN(createdAt.getTime())) throw new Error('bad');
    return { createdAt, id: parsed.i };
  } catch {
    throw new ValidationError(
      'Invalid cursor: pass nextCursor from the previous page unchanged, or omit it for the first page',
      {
        issues: [{ field: 'cursor', message: 'is not a cursor this server issued' }],
      },
    );
  }
}

/** The MikroORM condition for "after this cursor" in (createdAt desc, id desc) order. */
export function afterCursor(key: Keyset | null): Record<string, unknown> {
  if (!key) return {};
  return { $or: [{ createdAt: { $lt: key.createdAt } }, { createdAt: key.createdAt, id: { $lt: key.id } }] };
}

/**
 * The same condition in SQL, for statements written by hand: `createdAt` and `id` are the placeholders bound
 * to the cursor's two fields, `table` the alias of the table whose rows are paged.
 */
export function afterCursorSql(createdAt: string, id: string, table?: string): string {
  const column = (name: string) => (table ? `${table}.${name}` : name);
  return `(${column('created_at')} < ${createdAt} or (${column('created_at')} = ${createdAt} and ${column('id')} < ${id}))`;
}

/** Fetches `limit + 1` rows to know whether there is a next page. */
export function toPage<E extends { createdAt: Date; id: string }, T>(
  rows: E[],
  limit: number,
  map: (row: E) => T,
): Page<T> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items: items.map(map), nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
}

export const ORDER_NEWEST_FIRST = { createdAt: 'desc', id: 'desc' } as const;
