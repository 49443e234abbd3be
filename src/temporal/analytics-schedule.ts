/**
 * The Temporal Schedule that keeps the analytics rollups fresh: `analyticsRollupWorkflow` every minute
 * (`interval-schedule.ts`).
 */
import type { Client } from '@temporalio/client';
import type { AnalyticsRollupInput } from '../../workflows/analytics-rollup.ts';
import { ensureIntervalSchedule, scheduleIdFor } from './interval-schedule.ts';

export const ANALYTICS_SCHEDULE_ID = 'analytics-rollup';

export const analyticsScheduleId = (taskQueue: string) => scheduleIdFor(ANALYTICS_SCHEDULE_ID, taskQueue);

export function ensureAnalyticsSchedule(client: Client, taskQueue: string): Promise<string> {
  const args: [AnalyticsRollupInput] = [{}];
  return ensureIntervalSchedule(client, taskQueue, {
    baseId: ANALYTICS_SCHEDULE_ID,
    workflowType: 'analyticsRollupWorkflow',
    args,
    every: '1m',
    runTimeout: '15m',
    purpose: 'analytics rollups',
  });
}
