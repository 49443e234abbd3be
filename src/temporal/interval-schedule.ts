/**
 * The platform's recurring work as Temporal Schedules: a workflow started every so often, skipping a tick while
 * the previous run still goes, visible (pausable, triggerable) in the Temporal UI under Schedules. Each one
 * (`analytics-schedule.ts`, `channel-metrics-schedule.ts`) is a definition handed to `ensureIntervalSchedule`.
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';

export const DEFAULT_TASK_QUEUE = 'campaign-platform';

/**
 * The schedule id for a task queue: `baseId` on the default queue; other queues (each test platform has its own
 * on a shared Temporal server) get their own schedule so they never steal each other's runs.
 */
export function scheduleIdFor(baseId: string, taskQueue: string, defaultTaskQueue = DEFAULT_TASK_QUEUE): string {
  return taskQueue === defaultTaskQueue ? baseId : `${baseId}:${taskQueue}`;
}

export interface IntervalSchedule {
  baseId: string;
  workflowType: string;
  args: unknown[];
  /** How often, as Temporal reads a duration (`1m`, `900s`). */
  every: string;
  /** A run nobody picks up (no worker on the queue) must not stay open forever. */
  runTimeout: string;
  /** Shown in the schedule's memo. */
  purpose: string;
}

/**
 * Creates the schedule, or brings an existing one to the current definition (idempotent; safe from several API
 * instances at once). Returns the schedule id.
 */
export async function ensureIntervalSchedule(
  client: Client,
  taskQueue: string,
  schedule: IntervalSchedule,
): Promise<string> {
  const scheduleId = scheduleIdFor(schedule.baseId, taskQueue);
  const spec = { intervals: [{ every: schedule.every }] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: schedule.workflowType,
    workflowId: scheduleId,
    taskQueue,
    args: schedule.args,
    workflowRunTimeout: schedule.runTimeout,
  };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1m' };
  try {
    await client.schedule.create({ scheduleId, spec, action, policies, memo: { purpose: schedule.purpose } });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec, action, policies }));
  }
  return scheduleId;
}
