/**
 * Writes site events into the partitioned `analytics_events` table. One multi-row insert per batch;
 * `on conflict do nothing` on (event_id, occurred_at) makes every retry of the same event a no-op, so a
 * beacon resent after a lost response, or a batch replayed after a crash, never double counts.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
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

/** PostgreSQL allows 65,535 bind parameters per statement; stay far below it. */
const MAX_ROWS_PER_STATEMENT = 1000;

export function createSiteEventRecorder(
  orm: MikroORM,
): SiteEventSink & { recordCounted(events: SiteEvent[]): Promise<number> } {
  async function insert(events: SiteEvent[]): Promise<number> {
    let inserted = 0;
    for (let start = 0; start < events.length; start += MAX_ROWS_PER_STATEMENT) {
      const batch = events.slice(start, start + MAX_ROWS_PER_STATEMENT);
      const values: unknown[] = [];
      const rows = batch.map((event) => {
        values.push(
          event.eventId,
          event.workspaceId,
          event.occurredAt,
          event.type,
          event.sessionId,
          event.campaignId ?? null,
          event.variantId ?? null,
          event.surfaceId ?? null,
          event.zoneId ?? null,
          event.goal ?? null,
          event.value ?? null,
          JSON.stringify(event.properties ?? {}),
        );
        return `(${COLUMNS.map(() => '?').join(', ')})`;
      });
      const result = await orm.em
        .getConnection()
        .execute<{ affectedRows?: number; rowCount?: number }>(
          `insert into analytics_events (${COLUMNS.join(', ')}) values ${rows.join(', ')} on conflict do nothing`,
          values,
          'run',
        );
      inserted += Number(result.affectedRows ?? result.rowCount ?? 0);
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
