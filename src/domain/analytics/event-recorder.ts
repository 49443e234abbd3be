/**
 * Writes site events into the partitioned `analytics_events` table. One multi-row insert per batch;
 * `on conflict do nothing` on (event_id, occurred_at) makes every retry of the same event a no-op, so a
 * beacon resent after a lost response, or a batch replayed after a crash, never double counts.
 *
 * Events this server minted itself (markdown impressions, concierge questions) are written with `COPY`
 * instead, PostgreSQL's cheapest way in: they have never been sent before, so there is nothing to skip.
 * The one way a duplicate can still arrive — a batch that committed but whose acknowledgement was lost, then
 * retried — fails the whole COPY on the primary key, and that batch is written again through the
 * deduplicating insert.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { MikroORM } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import { from as copyFrom } from 'pg-copy-streams';
import { nativePool } from '../../db/prepared.ts';
import { NO_METRICS, type Metrics } from '../../observability/metrics.ts';
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

/** One event's values, in `COLUMNS` order (the one place that says how an event is stored). */
function eventRow(event: SiteEvent): unknown[] {
  return [
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
}

/** The statement's parameters: one array per column, in `COLUMNS` order (the benchmark reuses this). */
export function eventColumns(batch: readonly SiteEvent[]): unknown[][] {
  const columns: unknown[][] = COLUMNS.map(() => []);
  for (const event of batch) eventRow(event).forEach((value, index) => columns[index]!.push(value));
  return columns;
}

const COPY_SQL = `copy analytics_events (${COLUMNS.join(', ')}) from stdin`;

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A field in COPY's text format: backslash, tab, newline and carriage return escaped; null is `\N`. */
function copyField(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  return String(value).replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!);
}

/** The batch as COPY text rows (one line per event, tab-separated, columns in `COLUMNS` order). */
export function copyRows(batch: readonly SiteEvent[]): string {
  let text = '';
  for (const event of batch) text += `${eventRow(event).map(copyField).join('\t')}\n`;
  return text;
}

const UNIQUE_VIOLATION = '23505';

export interface SiteEventRecorder extends SiteEventSink {
  /** Like `record`, and says how many of the events were new (the rest were replays). */
  recordCounted(events: SiteEvent[]): Promise<number>;
  /** For events minted by this server and never written before: the same result as `record`, cheaper. */
  recordFresh(events: SiteEvent[]): Promise<void>;
}

/**
 * `metrics` counts the events written by source: `record` takes the brand sites' beacons, `recordCounted` the
 * conversions API, `recordFresh` what the server minted while serving (markdown impressions, concierge
 * questions). Duplicates skipped by the insert are not counted.
 */
export function createSiteEventRecorder(
  orm: MikroORM,
  options: { metrics?: Pick<Metrics, 'analyticsAccepted'> } = {},
): SiteEventRecorder {
  const metrics = options.metrics ?? NO_METRICS;
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
  async function copy(events: SiteEvent[]): Promise<void> {
    const client = await (await nativePool(orm)).connect();
    try {
      await pipeline(Readable.from([copyRows(events)]), client.query(copyFrom(COPY_SQL)));
      client.release();
    } catch (error) {
      // A connection whose COPY broke off is not handed back to the pool: it is closed.
      client.release(error as Error);
      throw error;
    }
  }
  return {
    async record(events) {
      if (events.length > 0) metrics.analyticsAccepted('beacon', await insert(events));
    },
    async recordCounted(events) {
      const written = await insert(events);
      metrics.analyticsAccepted('server_conversion', written);
      return written;
    },
    async recordFresh(events) {
      if (events.length === 0) return;
      try {
        await copy(events);
        metrics.analyticsAccepted('served', events.length);
      } catch (error) {
        if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
        metrics.analyticsAccepted('served', await insert(events));
      }
    },
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
