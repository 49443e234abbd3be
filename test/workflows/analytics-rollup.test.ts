/**
 * analyticsRollupWorkflow with stub activities: partitions first, then rollup calls until one reports it
 * caught up, totals summed; a backlog that never catches up stops after 50 calls (the next scheduled run
 * goes on); the caller's batch limits reach every call.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { analyticsRollupWorkflow } from '../../workflows/index.ts';
import { recordActivities, useWorkflowEnv, withWorker, workflowId } from '../support/workflow-env.ts';

let env: TestWorkflowEnvironment;
useWorkflowEnv((started) => (env = started));

test('rolls up until caught up and sums the passes', async () => {
  const passes = [
    { events: 500, batches: 5, caughtUp: false, windowBuilds: 0 },
    { events: 120, batches: 2, caughtUp: true, windowBuilds: 1 },
  ];
  const recorded = recordActivities({
    ensureAnalyticsPartitions: async () => ({ created: 3 }),
    rollupAnalytics: async () => passes.shift()!,
  });
  const result = await withWorker(env, recorded.activities, (taskQueue) =>
    env.client.workflow.execute(analyticsRollupWorkflow, {
      taskQueue,
      workflowId: workflowId('rollup'),
      args: [{ limitEvents: 100, maxBatches: 5 }],
    }),
  );

  expect(result).toEqual({ events: 620, batches: 7, calls: 2, partitionsCreated: 3, caughtUp: true });
  expect(recorded.names()).toEqual(['ensureAnalyticsPartitions', 'rollupAnalytics', 'rollupAnalytics']);
  expect(recorded.argsOf('rollupAnalytics')).toEqual([
    [{ limitEvents: 100, maxBatches: 5 }],
    [{ limitEvents: 100, maxBatches: 5 }],
  ]);
});

test('a backlog that never catches up stops after 50 calls, with the default of 20 batches a call', async () => {
  const recorded = recordActivities({
    ensureAnalyticsPartitions: async () => ({ created: 0 }),
    rollupAnalytics: async () => ({ events: 10, batches: 1, caughtUp: false, windowBuilds: 0 }),
  });
  const result = await withWorker(env, recorded.activities, (taskQueue) =>
    env.client.workflow.execute(analyticsRollupWorkflow, {
      taskQueue,
      workflowId: workflowId('rollup-backlog'),
      args: [{}],
    }),
  );

  expect(result).toEqual({ events: 500, batches: 50, calls: 50, partitionsCreated: 0, caughtUp: false });
  expect(recorded.argsOf('rollupAnalytics')[0]).toEqual([{ limitEvents: undefined, maxBatches: 20 }]);
});
