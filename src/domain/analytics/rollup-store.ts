/**
 * What every writer of the analytics rollups shares: the transaction type, serialisation on the watermark
 * row, and how a stored reach sketch is merged with new sessions (read it, merge in JavaScript, write it
 * back) — the daily rollups (rollups.ts) and the window builds (window-reach.ts) keep sketches the same way.
 */
import { CompiledQuery, type ControlledTransaction } from 'kysely';
import { ReachSketch } from './reach-sketch.ts';

export type Tx = ControlledTransaction<Record<string, never>>;

export async function query<Row>(tx: Tx, sql: string, params: unknown[] = []): Promise<Row[]> {
  const result = await tx.executeQuery<Row>(CompiledQuery.raw(sql, params));
  return result.rows as Row[];
}

/** The rollup watermark's row; whoever writes rollups locks it first (see rollups.ts, "Exactly once"). */
export const ROLLUP_WATERMARK = 'events';

/** Waits for, then holds until commit, the right to write rollups: concurrent writers queue here. */
export async function serialiseRollupWriters(trx: Tx): Promise<void> {
  await query(trx, `select 1 from analytics_rollup_watermarks where name = $1 for update`, [ROLLUP_WATERMARK]);
}

/** Sketches to merge into a table, by the row's key (`key` values in the order of the key columns). */
export type SketchEntries = Map<string, { key: string[]; sketch: ReachSketch }>;

/** The entry of `key` in `entries`, created empty on first use. */
export function sketchEntry(entries: SketchEntries, key: string[]): ReachSketch {
  const id = key.join('\u0000');
  let entry = entries.get(id);
  if (!entry) entries.set(id, (entry = { key, sketch: new ReachSketch() }));
  return entry.sketch;
}

const COLUMN_TYPES: Record<string, string> = { day: 'date', window_days: 'smallint' };

/**
 * Merges each entry's sketch with the sketch stored in its row and writes the union back. Rows must exist
 * (the rollup's counter upserts created them), unless `insertMissing`, which inserts the rows that do not.
 * With `estimateColumn`, the union's estimate is written beside it, so a reader that wants the number (a
 * daily chart) never has to read and decode the sketch.
 */
export async function mergeSketchesInto(
  trx: Tx,
  table: string,
  keyColumns: string[],
  sketches: SketchEntries,
  options: { insertMissing?: boolean; estimateColumn?: string } = {},
): Promise<void> {
  if (sketches.size === 0) return;
  const entries = [...sketches.values()];
  const keyArrays = keyColumns.map((_, i) => entries.map((entry) => entry.key[i]!));
  const casts = keyColumns.map((column, i) => `$${i + 1}::${COLUMN_TYPES[column] ?? 'varchar'}[]`).join(', ');
  const matches = keyColumns.map((column) => `t.${column} = k.${column}`).join(' and ');
  const existing = await query<Record<string, string> & { reach_sketch: Buffer | null }>(
    trx,
    `select ${keyColumns.map((column) => `t.${column}::text as ${column}`).join(', ')}, t.reach_sketch
     from ${table} t join unnest(${casts}) as k(${keyColumns.join(', ')}) on ${matches}`,
    keyArrays,
  );
  for (const row of existing) {
    const id = keyColumns.map((column) => row[column]).join('\u0000');
    if (row.reach_sketch) sketches.get(id)?.sketch.mergeBytes(row.reach_sketch);
  }
  const n = keyColumns.length;
  const values: unknown[] = [...keyArrays, entries.map((entry) => entry.sketch.toBytes())];
  const estimate = options.estimateColumn;
  if (estimate) values.push(entries.map((entry) => entry.sketch.estimate()));
  const estimateCast = estimate ? `, $${n + 2}::bigint[]` : '';
  if (options.insertMissing) {
    await query(
      trx,
      `insert into ${table} (${keyColumns.join(', ')}, reach_sketch${estimate ? `, ${estimate}` : ''})
       select * from unnest(${casts}, $${n + 1}::bytea[]${estimateCast})
       on conflict (${keyColumns.join(', ')}) do update set reach_sketch = excluded.reach_sketch${
         estimate ? `, ${estimate} = excluded.${estimate}` : ''
       }`,
      values,
    );
    return;
  }
  await query(
    trx,
    `update ${table} t set reach_sketch = k.reach_sketch${estimate ? `, ${estimate} = k.${estimate}` : ''}
     from unnest(${casts}, $${n + 1}::bytea[]${estimateCast}) as k(${keyColumns.join(', ')}, reach_sketch${
       estimate ? `, ${estimate}` : ''
     })
     where ${matches}`,
    values,
  );
}
