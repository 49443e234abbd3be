/**
 * selftestWorkflow's branches with a stub step runner: completes the job with the runner's result, fails
 * the job with the runner's message, and marks the job cancelled when cancelled mid-run.
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { selftestWorkflow } from '../../workflows/index.ts';
import {
  heartbeatUntilCancelled,
  recordActivities,
  useWorkflowEnv,
  withWorker,
  workflowId,
} from '../support/workflow-env.ts';

let env: TestWorkflowEnvironment;
useWorkflowEnv((started) => (env = started));

const input = { jobId: 'job_s', workspaceId: 'ws_1', steps: 3, stepMs: 10 };
const ENDINGS = ['completeJob', 'failJob', 'markJobCancelled'] as const;

test('completes the job with what the steps report', async () => {
  const recorded = recordActivities({
    runSelftestSteps: async ({ steps }) => ({ steps, finishedOnAttempt: 1, resumedFromStep: 0 }),
  });
  const result = await withWorker(env, recorded.activities, (taskQueue) =>
    env.client.workflow.execute(selftestWorkflow, { taskQueue, workflowId: workflowId('selftest'), args: [input] }),
  );

  expect(result).toEqual({ steps: 3, finishedOnAttempt: 1, resumedFromStep: 0 });
  expect(recorded.argsOf('runSelftestSteps')).toEqual([[{ jobId: 'job_s', steps: 3, stepMs: 10 }]]);
  expect(recorded.names(['markJobRunning', ...ENDINGS])).toEqual(['markJobRunning', 'completeJob']);
  expect(recorded.argsOf('completeJob')).toEqual([['job_s', result]]);
});

test('a failing run fails the job with its message', async () => {
  const recorded = recordActivities({
    runSelftestSteps: async () => {
      throw ApplicationFailure.nonRetryable('step 2 exploded', 'selftest_failed');
    },
  });
  const error = await withWorker(env, recorded.activities, (taskQueue) =>
    env.client.workflow
      .execute(selftestWorkflow, { taskQueue, workflowId: workflowId('selftest-fail'), args: [input] })
      .catch((caught: unknown) => caught),
  );

  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect(recorded.names([...ENDINGS])).toEqual(['failJob']);
  // What the workflow does today: unlike the other long jobs (job-endings.ts) it reports the ActivityFailure's
  // own generic message, not the step's. Pinned so that a change to it is a decision, not an accident.
  expect(recorded.argsOf('failJob')).toEqual([['job_s', { code: 'job_failed', message: 'Activity task failed' }]]);
});

test('cancelled mid-run: the job is marked cancelled', async () => {
  const running = Promise.withResolvers<void>();
  const recorded = recordActivities({ runSelftestSteps: () => heartbeatUntilCancelled(running.resolve) });
  const error = await withWorker(env, recorded.activities, async (taskQueue) => {
    const handle = await env.client.workflow.start(selftestWorkflow, {
      taskQueue,
      workflowId: workflowId('selftest-cancel'),
      args: [input],
    });
    await running.promise;
    await handle.cancel();
    return handle.result().catch((caught: unknown) => caught);
  });

  expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  expect(recorded.names([...ENDINGS])).toEqual(['markJobCancelled']);
  expect(recorded.argsOf('markJobCancelled')).toEqual([['job_s']]);
});
