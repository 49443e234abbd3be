/**
 * Analytics maintenance activities: daily event partitions ahead of time, and incremental rollup passes.
 * Both are idempotent; a retried rollup resumes after the last committed batch (see rollups.ts).
 */
import { Context } from '@temporalio/activity';
import { ensureEventPartitions } from '../src/domain/analytics/event-recorder.ts';
import { runRollupPass, type RollupPassResult } from '../src/domain/analytics/rollups.ts';
import type { ActivityDeps } from './deps.ts';

export function createAnalyticsActivities({ orm }: ActivityDeps) {
  return {
    async ensureAnalyticsPartitions(): Promise<{ created: number }> {
      return { created: await ensureEventPartitions(orm) };
    },

    /** One bounded rollup pass; heartbeats after every committed batch so a dead worker is noticed quickly. */
    async rollupAnalytics(input: { limitEvents?: number; maxBatches?: number }): Promise<RollupPassResult> {
      const context = Context.current();
      return runRollupPass(orm, {
        limitEvents: input.limitEvents,
        maxBatches: input.maxBatches,
        onBatchCommitted: (_batch, totals) => context.heartbeat(totals),
      });
    },
  };
}
