import { defineEntity, p } from '@mikro-orm/core';

/**
 * Rate-limit state (an exact sliding log): per key, the times of the last `limit` accepted requests. Written
 * only by the limiter's one statement (rate-limiter.ts); described here so the schema has one source. UNLOGGED
 * (see the migration): losing it in a crash only resets limits, and it spares every request a WAL flush.
 */
export const RateLimitLogSchema = defineEntity({
  name: 'RateLimitLog',
  tableName: 'rate_limit_log',
  properties: {
    key: p.string().length(300).primary(),
    /** Accepted requests' times, oldest first; never more than the policy's limit. */
    stamps: p.array().columnType('timestamptz[]'),
    /** The outcome of the latest attempt, so the one statement can report a refusal too. */
    lastAllowed: p.boolean(),
    /** When the latest attempt was checked (the database's clock). */
    checkedAt: p.datetime().columnType('timestamptz'),
    /**
     * When the newest accepted request leaves the window: after that the row limits nothing (housekeeping
     * deletes it). Not indexed on purpose: it changes on every accepted request, and an index on it would
     * stop PostgreSQL from updating the row in place (HOT). The prune scans a small table every 10 minutes.
     */
    expiresAt: p.datetime().columnType('timestamptz'),
  },
});
export class RateLimitLog extends RateLimitLogSchema.class {}
RateLimitLogSchema.setClass(RateLimitLog);
