/**
 * One run of the `channel-metrics` schedule: pull the engagement of every recently published post from its
 * network into the per-day channel snapshots (`domain/channels/channel-metrics.ts`). Started by the schedule
 * every `CHANNEL_METRICS_INTERVAL_SECONDS` (overlapping runs skipped) and by tests directly.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { MetricsPullResult } from '../src/domain/channels/channel-metrics.ts';

export interface ChannelMetricsInput {
  /** Posts published within this many days (default: the worker's CHANNEL_METRICS_MAX_AGE_DAYS). */
  maxAgeDays?: number;
}

export async function channelMetricsWorkflow(input: ChannelMetricsInput = {}): Promise<MetricsPullResult> {
  const { pullChannelMetrics } = proxyActivities<Activities>({
    startToCloseTimeout: '30 minutes',
    // Heartbeats after every account: a worker that dies mid-run is noticed within this.
    heartbeatTimeout: '2 minutes',
    retry: { initialInterval: '5s', maximumInterval: '1 minute', maximumAttempts: 5 },
  });
  return pullChannelMetrics(input);
}
