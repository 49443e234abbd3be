/**
 * The Temporal Schedule that keeps channel metrics fresh: `channelMetricsWorkflow` every
 * `CHANNEL_METRICS_INTERVAL_SECONDS` (`interval-schedule.ts`), beside `analytics-rollup`.
 */
import type { Client } from '@temporalio/client';
import type { ChannelMetricsInput } from '../../workflows/channel-metrics.ts';
import { ensureIntervalSchedule, scheduleIdFor } from './interval-schedule.ts';

export const CHANNEL_METRICS_SCHEDULE_ID = 'channel-metrics';

export const channelMetricsScheduleId = (taskQueue: string) => scheduleIdFor(CHANNEL_METRICS_SCHEDULE_ID, taskQueue);

export function ensureChannelMetricsSchedule(
  client: Client,
  taskQueue: string,
  intervalSeconds: number,
): Promise<string> {
  const args: [ChannelMetricsInput] = [{}];
  return ensureIntervalSchedule(client, taskQueue, {
    baseId: CHANNEL_METRICS_SCHEDULE_ID,
    workflowType: 'channelMetricsWorkflow',
    args,
    every: `${intervalSeconds}s`,
    runTimeout: '1 hour',
    purpose: 'channel metrics',
  });
}
