/**
 * The Temporal Schedule that keeps channel metrics fresh: `channelMetricsWorkflow` every
 * `CHANNEL_METRICS_INTERVAL_SECONDS`, skipping a tick while the previous run still goes. Visible (pausable,
 * triggerable) in the Temporal UI under Schedules, beside `analytics-rollup`.
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { ChannelMetricsInput } from '../../workflows/channel-metrics.ts';

export const CHANNEL_METRICS_SCHEDULE_ID = 'channel-metrics';

/** One schedule per task queue (each test platform has its own queue on a shared server). */
export function channelMetricsScheduleId(taskQueue: string, defaultTaskQueue = 'campaign-platform'): string {
  return taskQueue === defaultTaskQueue ? CHANNEL_METRICS_SCHEDULE_ID : `${CHANNEL_METRICS_SCHEDULE_ID}:${taskQueue}`;
}

/** Creates the schedule, or brings an existing one to the current definition (idempotent). */
export async function ensureChannelMetricsSchedule(
  client: Client,
  taskQueue: string,
  intervalSeconds: number,
): Promise<string> {
  const scheduleId = channelMetricsScheduleId(taskQueue);
  const args: [ChannelMetricsInput] = [{}];
  const spec = { intervals: [{ every: `${intervalSeconds}s` }] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'channelMetricsWorkflow',
    workflowId: scheduleId,
    taskQueue,
    args,
    // A run nobody picks up (no worker on the queue) must not stay open forever.
    workflowRunTimeout: '1 hour',
  };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1m' };
  try {
    await client.schedule.create({ scheduleId, spec, action, policies, memo: { purpose: 'channel metrics' } });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec, action, policies }));
  }
  return scheduleId;
}
