/**
 * An exact sliding-log rate limiter with its state in PostgreSQL, so every API instance shares it.
 *
 * A policy of N requests per window W means: in ANY interval of length W, at most N requests of one key are
 * accepted. Each key keeps the times of its last N accepted requests that are still inside the window (oldest
 * first). A request costing k units at time `now` is accepted when fewer than N - k + 1 of those times lie
 * inside (now - W, now]: the (N - k + 1)-th most recent time is missing or at least W old. Then its k times are
 * appended, and the times beyond the N most recent and those that have left the window are dropped: a row
 * never holds more than N times, nor a time older than W. (Keeping every time up to N made a high limit
 * costly: under a limit of 100,000 a minute a key's log only ever grew, past PostgreSQL's 2 KB TOAST threshold,
 * and every request rewrote the whole, ever longer array.) There is no burst allowance on top of N and no window
 * edge: N at once, then nothing until the first of them is W old. A client that waits W/N between requests
 * is never refused (the request N places back is then always at least W old).
 *
 * Check and update are one atomic statement (an upsert that takes the key's row lock), and it reports a
 * refusal in the same round trip. Time is the database's clock, so instances with skewed clocks agree.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import { runPrepared, type PreparedStatement } from '../../db/prepared.ts';
import { NO_METRICS, type Metrics } from '../../observability/metrics.ts';

/**
 * $1 key, $2 limit N, $3 window W in ms, $4 the time to check at (null: the database's clock; tests pass a
 * time to replay exact schedules), $5 the cost k (1..N).
 *
 * In the update, `l` is the stored row and `excluded.checked_at` is this attempt's time. It returns, for this
 * attempt: whether it was accepted; how many accepted requests now lie in the window; the ms until the oldest
 * of them leaves it (when one more unit is free); and, when refused, the ms until k units are free. The log is
 * sorted, so `width_bucket(t, stamps)` (a binary search: how many entries are <= t) counts the entries that
 * have left the window; unnesting the array to count them cost a quarter of the statement's time in pgbench.
 */
const CONSUME: PreparedStatement = {
  name: 'rate-limit-log-consume',
  text: `insert into rate_limit_log as l (key, stamps, last_allowed, checked_at, expires_at)
         select $1, array_fill(t.now, array[$5::int]), true, t.now, t.now + $3 * interval '1 millisecond'
           from (select coalesce($4::timestamptz, clock_timestamp()) as now) t
         on conflict (key) do update set
           last_allowed = (cardinality(l.stamps) + $5 <= $2
                           or l.stamps[cardinality(l.stamps) - $2 + $5] <= excluded.checked_at - $3 * interval '1 millisecond'),
           stamps = case
             when cardinality(l.stamps) + $5 <= $2
                  or l.stamps[cardinality(l.stamps) - $2 + $5] <= excluded.checked_at - $3 * interval '1 millisecond'
             then l.stamps[greatest(1, cardinality(l.stamps) - ($2 - $5) + 1,
                                    width_bucket(excluded.checked_at - $3 * interval '1 millisecond', l.stamps) + 1):]
                  || excluded.stamps
             else l.stamps end,
           expires_at = case
             when cardinality(l.stamps) + $5 <= $2
                  or l.stamps[cardinality(l.stamps) - $2 + $5] <= excluded.checked_at - $3 * interval '1 millisecond'
             then excluded.expires_at
             else l.expires_at end,
           checked_at = excluded.checked_at
         returning last_allowed,
           cardinality(stamps) - width_bucket(checked_at - $3 * interval '1 millisecond', stamps) as in_window,
           extract(epoch from (stamps[width_bucket(checked_at - $3 * interval '1 millisecond', stamps) + 1]
                               + $3 * interval '1 millisecond' - checked_at)) * 1000 as unit_free_ms,
           case when not last_allowed then
             extract(epoch from (stamps[cardinality(stamps) - $2 + $5] + $3 * interval '1 millisecond' - checked_at)) * 1000
           end as fit_free_ms`,
};

/** Whether one more request would be refused now, without counting one. $1 key, $2 limit N, $3 window W in ms. */
const PEEK: PreparedStatement = {
  name: 'rate-limit-log-peek',
  text: `select extract(epoch from (stamps[cardinality(stamps) - $2 + 1] + $3 * interval '1 millisecond' - clock_timestamp())) * 1000 as free_ms
           from rate_limit_log where key = $1 and cardinality(stamps) >= $2`,
};

export interface RateLimitPolicy {
  /** Short name for the `RateLimit-Policy` header, e.g. `tool-server`. */
  name: string;
  limit: number;
  windowSeconds: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests still allowed right now. */
  remaining: number;
  /**
   * Seconds until more quota is available: when the oldest request counted in the window leaves it (on a
   * refusal, when this request would fit). The `t` of the `RateLimit` header; equal to Retry-After on a 429.
   */
  resetSeconds: number;
  /** Seconds to wait before this request could pass (0 when allowed). */
  retryAfterSeconds: number;
}

interface ConsumeRow {
  last_allowed: boolean;
  in_window: number;
  unit_free_ms: string | null;
  fit_free_ms: string | null;
}

/** Whole seconds, rounded up, and at least 1: a client told "0" would retry at once and be refused again. */
function waitSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

function refusal(policy: RateLimitPolicy, waitMs: number): RateLimitDecision {
  const seconds = waitSeconds(waitMs);
  return { allowed: false, limit: policy.limit, remaining: 0, resetSeconds: seconds, retryAfterSeconds: seconds };
}

export class RateLimitCostError extends Error {
  constructor(cost: number, policy: RateLimitPolicy) {
    super(`A request costing ${cost} can never fit a limit of ${policy.limit} per ${policy.windowSeconds} seconds`);
    this.name = 'RateLimitCostError';
  }
}

export interface RateLimiterOptions {
  /**
   * The time to check at. Unset in production: the database's clock decides, so instances agree. Tests set it
   * to replay exact schedules (both the statement and the in-process refusals then use it).
   */
  now?: () => Date;
  /** Where refusals are counted (by policy name). */
  metrics?: Pick<Metrics, 'rateLimited'>;
}

export function createRateLimiter(orm: MikroORM, options: RateLimiterOptions = {}) {
  const connection = () => orm.em.getConnection();
  const localNow = () => (options.now ? options.now().getTime() : Date.now());
  /**
   * Keys refused by the shared state, with the local time before which they stay refused. A key's log only
   * gains times (other instances can only accept more), and a time leaves the window only when it is W old,
   * so until that moment every instance would refuse even a single request: answering those refusals here is
   * exact, and a client hammering at 429 costs the database nothing (each refused attempt otherwise takes the
   * key's row lock). The moment is measured from when the query was sent, so it is never later than the
   * database's own.
   */
  const refusedUntil = new LRUCache<string, number>({ max: 100_000 });
  const metrics = options.metrics ?? NO_METRICS;

  return {
    /**
     * Counts a request of `cost` units (a JSON-RPC batch counts each message) against `key`, atomically:
     * either all units are accepted or none is.
     */
    async consume(policy: RateLimitPolicy, key: string, cost = 1): Promise<RateLimitDecision> {
      if (!Number.isInteger(cost) || cost < 1 || cost > policy.limit) throw new RateLimitCostError(cost, policy);
      const windowMs = policy.windowSeconds * 1000;
      const fullKey = `${policy.name}:${key}`;
      const sentAt = localNow();
      const until = refusedUntil.get(fullKey);
      if (until !== undefined) {
        // The remembered moment is when one unit frees; a batch's own wait is the database's to say.
        if (sentAt < until && cost === 1) {
          metrics.rateLimited(policy.name);
          return refusal(policy, until - sentAt);
        }
        if (sentAt >= until) refusedUntil.delete(fullKey);
      }
      const at = options.now ? options.now().toISOString() : null;
      const rows = await runPrepared<ConsumeRow>(orm, CONSUME, [fullKey, policy.limit, windowMs, at, cost]);
      const row = rows[0]!;
      const remaining = Math.max(0, policy.limit - row.in_window);
      const unitFreeMs = Number(row.unit_free_ms ?? 0);
      if (row.last_allowed) {
        return {
          allowed: true,
          limit: policy.limit,
          remaining,
          resetSeconds: waitSeconds(unitFreeMs),
          retryAfterSeconds: 0,
        };
      }
      // Not even one more request fits until the oldest counted one leaves the window.
      if (remaining === 0) refusedUntil.set(fullKey, sentAt + unitFreeMs);
      metrics.rateLimited(policy.name);
      return { ...refusal(policy, Number(row.fit_free_ms)), remaining };
    },

    /**
     * Whether a request on this key would be refused right now, without counting one. Used to throttle only
     * failed sign-ins: check first, consume on failure.
     */
    async blocked(policy: RateLimitPolicy, key: string): Promise<{ blocked: boolean; retryAfterSeconds: number }> {
      const rows = await runPrepared<{ free_ms: string }>(orm, PEEK, [
        `${policy.name}:${key}`,
        policy.limit,
        policy.windowSeconds * 1000,
      ]);
      const freeMs = Number(rows[0]?.free_ms ?? 0);
      if (freeMs > 0) metrics.rateLimited(policy.name);
      return freeMs > 0
        ? { blocked: true, retryAfterSeconds: waitSeconds(freeMs) }
        : { blocked: false, retryAfterSeconds: 0 };
    },

    /** Drops state that no longer limits anything (every time out of its window). Safe to run from every instance. */
    async prune(): Promise<number> {
      const result = await connection().execute<{ affectedRows?: number }>(
        'delete from rate_limit_log where expires_at < clock_timestamp()',
        [],
        'run',
      );
      return Number((result as { affectedRows?: number }).affectedRows ?? 0);
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/** `RateLimit-Policy` and `RateLimit` header values (draft-ietf-httpapi-ratelimit-headers). */
export function rateLimitHeaders(policy: RateLimitPolicy, decision: RateLimitDecision): Record<string, string> {
  return {
    'ratelimit-policy': `"${policy.name}";q=${policy.limit};w=${policy.windowSeconds}`,
    ratelimit: `"${policy.name}";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
}
