/**
 * The Temporal Schedule that keeps the analytics rollups fresh: `analyticsRollupWorkflow` every minute,
 * skipping a tick while the previous run is still going. It is visible (and can be paused or triggered) in
 * the Temporal UI under Schedules.
 */
import {
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsAction,
} from '@temporalio/client';
import type { AnalyticsRollupInput } from '../../workflows/analytics-rollup.ts';

export const ANALYTICS_SCHEDULE_ID = 'analytics-rollup';
export const ANALYTICS_ROLLUP_WORKFLOW_TYPE = 'analyticsRollupWorkflow';

/**
 * The schedule id for a task queue: `analytics-rollup` on the default queue; other queues (each test platform
 * has its own on a shared Temporal server) get their own schedule so they never steal each other's runs.
 */
export function analyticsScheduleId(taskQueue: string, defaultTaskQueue = 'campaign-platform'): string {
  return taskQueue === defaultTaskQueue ? ANALYTICS_SCHEDULE_ID : `${ANALYTICS_SCHEDULE_ID}:${taskQueue}`;
}

function scheduleAction(scheduleId: string, taskQueue: string): ScheduleOptionsAction {
  const args: [AnalyticsRollupInput] = [{}];
  return {
    type: 'startWorkflow',
    workflowType: ANALYTICS_ROLLUP_WORKFLOW_TYPE,
    workflowId: scheduleId,
    taskQueue,
    args,
    // A run nobody picks up (no worker on the queue) must not stay open forever.
    workflowRunTimeout: '15m',
  };
}

/**
 * Creates the schedule, or brings an existing one to the current definition (idempotent; safe from several
 * API instances at once). Returns the schedule id.
 */
export async function ensureAnalyticsSchedule(client: Client, taskQueue: string): Promise<string> {
  const scheduleId = analyticsScheduleId(taskQueue);
  const spec = { intervals: [{ every: '1m' }] };
  const action = scheduleAction(scheduleId, taskQueue);
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1m' };
  try {
    await client.schedule.create({ scheduleId, spec, action, policies, memo: { purpose: 'analytics rollups' } });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec, action, policies }));
  }
  return scheduleId;
}
