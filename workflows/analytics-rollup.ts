/**
 * One analytics maintenance run, started every minute by the `analytics-rollup` schedule (overlap: skip) and
 * directly by tests: make sure the coming days' event partitions exist, then roll up new events until caught
 * up. Each activity call is bounded (`maxBatches`) so a backlog is worked off in several heartbeating calls.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

export interface AnalyticsRollupInput {
  /** Events per batch (one transaction each). */
  limitEvents?: number;
  /** Batches per activity call. */
  maxBatches?: number;
  /** How soon a silent (crashed) worker's rollup is retried elsewhere; default one minute. */
  heartbeatTimeout?: string;
}

export interface AnalyticsRollupResult {
  events: number;
  batches: number;
  calls: number;
  partitionsCreated: number;
  caughtUp: boolean;
}

/** A run stops after this many activity calls even if events keep arriving; the next scheduled run goes on. */
const MAX_CALLS_PER_RUN = 50;

export async function analyticsRollupWorkflow(input: AnalyticsRollupInput = {}): Promise<AnalyticsRollupResult> {
  const { ensureAnalyticsPartitions, rollupAnalytics } = proxyActivities<Activities>({
    startToCloseTimeout: '10m',
    heartbeatTimeout: input.heartbeatTimeout ?? '1m',
    retry: { initialInterval: '1s', maximumInterval: '30s' },
  });
  const { created } = await ensureAnalyticsPartitions();
  const result: AnalyticsRollupResult = {
    events: 0,
    batches: 0,
    calls: 0,
    partitionsCreated: created,
    caughtUp: false,
  };
  while (!result.caughtUp && result.calls < MAX_CALLS_PER_RUN) {
    const pass = await rollupAnalytics({ limitEvents: input.limitEvents, maxBatches: input.maxBatches ?? 20 });
    result.events += pass.events;
    result.batches += pass.batches;
    result.calls += 1;
    result.caughtUp = pass.caughtUp;
  }
  return result;
}
