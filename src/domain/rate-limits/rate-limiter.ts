/**
 * A GCRA rate limiter (the generic cell rate algorithm) with its state in PostgreSQL, so every API instance
 * shares it.
 *
 * Each key has one "theoretical arrival time" (TAT). A request at time `now` is allowed when
 * `max(TAT, now) - now <= burst tolerance`, and then moves the TAT forward by one emission interval. With a
 * limit of N per window W the interval is W/N and the tolerance (N-1)·W/N: exactly N requests pass in a burst,
 * the next one waits one interval, and there are no window edges, so no double burst. Time is the database's
 * clock, so instances with skewed clocks agree. The check and the update are one atomic statement.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import { runPrepared, type PreparedStatement } from '../../db/prepared.ts';

/** Allowed: insert or advance the TAT, returning how far ahead of now it is. Refused: no row comes back. */
const CONSUME: PreparedStatement = {
  name: 'rate-limit-consume',
  text: `insert into rate_limits (key, tat) values ($1, clock_timestamp() + $2 * interval '1 millisecond')
         on conflict (key) do update
           set tat = greatest(rate_limits.tat, clock_timestamp()) + $2 * interval '1 millisecond'
           where greatest(rate_limits.tat, clock_timestamp()) - clock_timestamp() <= $3 * interval '1 millisecond'
         returning extract(epoch from (tat - clock_timestamp())) * 1000 as ahead_ms`,
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
  /** Seconds until the full quota is available again. */
  resetSeconds: number;
  /** Seconds to wait before the next request can pass (0 when allowed). */
  retryAfterSeconds: number;
}

function refusal(policy: RateLimitPolicy, aheadMs: number, toleranceMs: number): RateLimitDecision {
  return {
    allowed: false,
    limit: policy.limit,
    remaining: 0,
    resetSeconds: Math.ceil(aheadMs / 1000),
    retryAfterSeconds: Math.max(1, Math.ceil((aheadMs - toleranceMs) / 1000)),
  };
}

export function createRateLimiter(orm: MikroORM) {
  const connection = () => orm.em.getConnection();
  /**
   * Keys refused by the shared state, with the local time before which they stay refused. A key's TAT only
   * moves forward (other instances can only spend more), so until that moment every instance would refuse
   * it too: answering those refusals here is exact, and a client hammering at 429 costs the database
   * nothing (with PostgreSQL, each refused attempt otherwise takes the key's row lock: a hot key's p99 went
   * to ~127 ms in the reference measurements). The moment is measured from when the query was sent, so it
   * is never later than the database's own.
   */
  const refusedUntil = new LRUCache<string, number>({ max: 100_000 });

  return {
    async consume(policy: RateLimitPolicy, key: string): Promise<RateLimitDecision> {
      const intervalMs = (policy.windowSeconds * 1000) / policy.limit;
      const toleranceMs = intervalMs * (policy.limit - 1);
      const fullKey = `${policy.name}:${key}`;
      const sentAt = Date.now();
      const until = refusedUntil.get(fullKey);
      if (until !== undefined) {
        if (sentAt < until) return refusal(policy, until - sentAt + toleranceMs, toleranceMs);
        refusedUntil.delete(fullKey);
      }
      const rows = await runPrepared<{ ahead_ms: string }>(orm, CONSUME, [fullKey, intervalMs, toleranceMs]);
      if (rows.length > 0) {
        const aheadMs = Math.max(0, Number(rows[0]!.ahead_ms));
        return {
          allowed: true,
          limit: policy.limit,
          remaining: Math.max(0, Math.floor((toleranceMs + intervalMs - aheadMs) / intervalMs)),
          resetSeconds: Math.ceil(aheadMs / 1000),
          retryAfterSeconds: 0,
        };
      }
      const current = await connection().execute<{ ahead_ms: string }[]>(
        `select extract(epoch from (tat - clock_timestamp())) * 1000 as ahead_ms from rate_limits where key = ?`,
        [fullKey],
      );
      const aheadMs = Math.max(0, Number(current[0]?.ahead_ms ?? 0));
      if (aheadMs > toleranceMs) refusedUntil.set(fullKey, sentAt + aheadMs - toleranceMs);
      return refusal(policy, aheadMs, toleranceMs);
    },

    /**
     * Whether a request on this key would be refused right now, without counting one. Used to throttle only
     * failed sign-ins: check first, consume on failure.
     */
    async blocked(policy: RateLimitPolicy, key: string): Promise<{ blocked: boolean; retryAfterSeconds: number }> {
      const intervalMs = (policy.windowSeconds * 1000) / policy.limit;
      const toleranceMs = intervalMs * (policy.limit - 1);
      const rows = await connection().execute<{ ahead_ms: string }[]>(
        `select extract(epoch from (tat - clock_timestamp())) * 1000 as ahead_ms from rate_limits where key = ?`,
        [`${policy.name}:${key}`],
      );
      const aheadMs = Number(rows[0]?.ahead_ms ?? 0);
      return aheadMs > toleranceMs
        ? { blocked: true, retryAfterSeconds: Math.max(1, Math.ceil((aheadMs - toleranceMs) / 1000)) }
        : { blocked: false, retryAfterSeconds: 0 };
    },

    /** Drops state that no longer limits anything (TAT in the past). Safe to run from every instance. */
    async prune(): Promise<number> {
      const result = await connection().execute<{ affectedRows?: number }>(
        'delete from rate_limits where tat < clock_timestamp()',
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
