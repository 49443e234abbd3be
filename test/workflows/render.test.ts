/**
 * renderWorkflow's branches with stub activities: a render captures its quoted credits once and completes
 * with the output; a free render captures nothing; a failed render returns the credits and fails the job
 * with the renderer's code; a cancelled render stops the renderer and returns the credits.
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { RenderOutput } from '../../src/domain/renders/render.types.ts';
import { renderWorkflow } from '../../workflows/index.ts';
import type { RenderWorkflowInput } from '../../src/domain/jobs/workflow-inputs.ts';
import {
  heartbeatUntilCancelled,
  recordActivities,
  useWorkflowEnv,
  withWorker,
  workflowId,
} from '../support/workflow-env.ts';

let env: TestWorkflowEnvironment;
useWorkflowEnv((started) => (env = started));

const input = (credits: number): RenderWorkflowInput => ({
  jobId: 'job_r',
  workspaceId: 'ws_1',
  request: { mode: 'campaign', campaignId: 'cmp_1' },
  credits,
  actor: 'user:1',
});

const output: RenderOutput = {
  key: 'renders/job_r.mp4',
  url: 'https://media.test/renders/job_r.mp4',
  mimeType: 'video/mp4',
  bytes: 1234,
  sha256: 'ab'.repeat(32),
} as RenderOutput;

const ENDINGS = ['captureJobCredits', 'releaseJobCredits', 'completeJob', 'failJob', 'markJobCancelled'] as const;

test('renders, captures the quoted credits once, releases the rest and completes with the output', async () => {
  const recorded = recordActivities({ renderMedia: async () => output });
  const result = await withWorker(env, recorded.activities, (taskQueue) =>
    env.client.workflow.execute(renderWorkflow, { taskQueue, workflowId: workflowId('render'), args: [input(6)] }),
  );

  expect(result).toEqual(output);
  expect(recorded.argsOf('renderMedia')).toEqual([
    [{ jobId: 'job_r', workspaceId: 'ws_1', request: { mode: 'campaign', campaignId: 'cmp_1' } }],
  ]);
  expect(recorded.names([...ENDINGS])).toEqual(['captureJobCredits', 'releaseJobCredits', 'completeJob']);
  expect(recorded.argsOf('captureJobCredits')).toEqual([
    [{ workspaceId: 'ws_1', jobId: 'job_r', step: 'render', amount: 6, actor: 'user:1' }],
  ]);
  expect(recorded.argsOf('completeJob')).toEqual([['job_r', { output }]]);
});

test('a free render captures nothing', async () => {
  const recorded = recordActivities({ renderMedia: async () => output });
  await withWorker(env, recorded.activities, (taskQueue) =>
    env.client.workflow.execute(renderWorkflow, { taskQueue, workflowId: workflowId('render-free'), args: [input(0)] }),
  );
  expect(recorded.names([...ENDINGS])).toEqual(['releaseJobCredits', 'completeJob']);
});

test('a failed render returns the credits and fails the job with the renderer’s code', async () => {
  const recorded = recordActivities({
    renderMedia: async () => {
      throw ApplicationFailure.create({ type: 'validation_failed', message: 'The template needs a variant' });
    },
  });
  const error = await withWorker(env, recorded.activities, (taskQueue) =>
    env.client.workflow
      .execute(renderWorkflow, { taskQueue, workflowId: workflowId('render-fail'), args: [input(6)] })
      .catch((caught: unknown) => caught),
  );

  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect(recorded.names([...ENDINGS])).toEqual(['releaseJobCredits', 'failJob']);
  expect(recorded.argsOf('releaseJobCredits')).toEqual([[{ workspaceId: 'ws_1', jobId: 'job_r', actor: 'user:1' }]]);
  expect(recorded.argsOf('failJob')).toEqual([
    ['job_r', { code: 'validation_failed', message: 'The template needs a variant' }],
  ]);
});

test('a cancelled render stops the renderer, returns the credits and ends cancelled', async () => {
  const rendering = Promise.withResolvers<void>();
  const seen: unknown[] = [];
  const recorded = recordActivities({ renderMedia: () => heartbeatUntilCancelled(rendering.resolve, seen) });
  const error = await withWorker(env, recorded.activities, async (taskQueue) => {
    const handle = await env.client.workflow.start(renderWorkflow, {
      taskQueue,
      workflowId: workflowId('render-cancel'),
      args: [input(6)],
    });
    await rendering.promise;
    await handle.cancel();
    return handle.result().catch((caught: unknown) => caught);
  });

  expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  expect(recorded.names([...ENDINGS])).toEqual(['releaseJobCredits', 'markJobCancelled']);
  expect(seen[0]).toBeInstanceOf(CancelledFailure);
});
