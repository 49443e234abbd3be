/**
 * Writes site events into the partitioned `analytics_events` table. One multi-row insert per batch;
 * `on conflict do nothing` on (event_id, occurred_at) makes every retry of the same event a no-op, so a
 * beacon resent after a lost response, or a batch replayed after a crash, never double counts.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import type { SiteEvent, SiteEventSink } from './site-events.ts';

const COLUMNS = [
  'event_id',
  'workspace_id',
  'occurred_at',
  'type',
  'session_id',
  'campaign_id',
  'variant_id',
  'surface_id',
  'zone_id',
  'goal',
  'value',
  'properties',
] as const;

/** Rows per statement: bounded so one statement's arrays stay small. */
const MAX_ROWS_PER_STATEMENT = 1000;

/**
 * One statement per batch, with one array parameter per column (`unnest`), bound natively by the driver:
 * the statement text is constant, and the values are never formatted into SQL text in JavaScript (which is
 * what the ORM's raw `execute` does, and which dominated the cost of recording at serving rates).
 */
const INSERT_SQL = `insert into analytics_events (${COLUMNS.join(', ')})
  select * from unnest(
    $1::uuid[], $2::varchar[], $3::timestamptz[], $4::varchar[], $5::varchar[], $6::varchar[], $7::varchar[],
    $8::varchar[], $9::varchar[], $10::varchar[], $11::numeric[], $12::jsonb[]
  ) on conflict do nothing`;

/** The statement's parameters: one array per column, in `COLUMNS` order (the benchmark reuses this). */
export function eventColumns(batch: readonly SiteEvent[]): unknown[][] {
  const columns: unknown[][] = COLUMNS.map(() => []);
  for (const event of batch) {
    const row = [
      event.eventId,
      event.workspaceId,
      event.occurredAt.toISOString(),
      event.type,
      event.sessionId,
      event.campaignId ?? null,
      event.variantId ?? null,
      event.surfaceId ?? null,
      event.zoneId ?? null,
      event.goal ?? null,
      event.value ?? null,
      JSON.stringify(event.properties ?? {}),
    ];
    row.forEach((value, index) => columns[index]!.push(value));
  }
  return columns;
}

export function createSiteEventRecorder(
  orm: MikroORM,
): SiteEventSink & { recordCounted(events: SiteEvent[]): Promise<number> } {
  async function insert(events: SiteEvent[]): Promise<number> {
    let inserted = 0;
    for (let start = 0; start < events.length; start += MAX_ROWS_PER_STATEMENT) {
      const batch = events.slice(start, start + MAX_ROWS_PER_STATEMENT);
      const columns = eventColumns(batch);
      const result = await orm.em.getConnection().getClient().executeQuery(CompiledQuery.raw(INSERT_SQL, columns));
      inserted += Number(result.numAffectedRows ?? 0n);
    }
    return inserted;
  }
  return {
    async record(events) {
      if (events.length > 0) await insert(events);
    },
    /** Like `record`, and says how many of the events were new (the rest were replays). */
    recordCounted: insert,
  };
}

/**
 * Makes sure the daily partitions of `analytics_events` exist from two days ago to `daysAhead` ahead
 * (UTC). Run at boot and daily; returns how many partitions it created.
 */
export async function ensureEventPartitions(orm: MikroORM, daysAhead = 14): Promise<number> {
  const rows = await orm.em
    .getConnection()
    .execute<{ created: number }[]>(
      `select analytics_ensure_partitions((now() at time zone 'UTC')::date - 2, (now() at time zone 'UTC')::date + ?) as created`,
      [daysAhead],
    );
  return Number(rows[0]?.created ?? 0);
}
