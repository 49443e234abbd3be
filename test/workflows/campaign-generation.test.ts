/**
 * campaignGenerationWorkflow's branches with stub activities: every step in order with its price captured,
 * a regeneration passing its source job to each step, a failing step (refund, campaign restored, job failed
 * with the step's code), cancellation during a step and before the first one (refund, job cancelled).
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { CampaignGenerationInput } from '../../src/domain/jobs/workflow-inputs.ts';
import { campaignGenerationWorkflow } from '../../workflows/index.ts';
import {
  heartbeatUntilCancelled,
  recordActivities,
  useWorkflowEnv,
  withWorker,
  workflowId,
} from '../support/workflow-env.ts';

let env: TestWorkflowEnvironment;
useWorkflowEnv((started) => (env = started));

const input = (overrides: Partial<CampaignGenerationInput> = {}): CampaignGenerationInput => ({
  jobId: 'job_1',
  workspaceId: 'ws_1',
  campaignId: 'cmp_1',
  mode: 'start',
  fromStep: 'brief',
  steps: ['brief', 'copy', 'images', 'variants'],
  prices: { brief: 1, copy: 2, images: 0, variants: 4 },
  intent: 'launch the spring roast',
  includeImages: true,
  variantCount: 2,
  channels: ['email'],
  style: null,
  sourceJobId: null,
  actor: 'user:1',
  ...overrides,
});

const BOOKKEEPING_ENDINGS = [
  'finishGeneration',
  'releaseJobCredits',
  'completeJob',
  'failJob',
  'markJobCancelled',
] as const;

test('runs every step in order, captures each priced step once and completes with the variants', async () => {
  const recorded = recordActivities({
    runGenerationStep: async ({ step }) => (step === 'variants' ? { step, variantIds: ['var_a', 'var_b'] } : { step }),
  });
  const result = await withWorker(env, recorded.activities, (taskQueue) =>
    env.client.workflow.execute(campaignGenerationWorkflow, {
      taskQueue,
      workflowId: workflowId('gen'),
      args: [input()],
    }),
  );

  expect(result).toEqual({
    campaignId: 'cmp_1',
    variantIds: ['var_a', 'var_b'],
    steps: ['brief', 'copy', 'images', 'variants'],
    creditsCaptured: 7,
  });
  expect(recorded.argsOf('runGenerationStep').map(([step]) => step)).toEqual([
    {
      jobId: 'job_1',
      workspaceId: 'ws_1',
      campaignId: 'cmp_1',
      step: 'brief',
      intent: 'launch the spring roast',
      includeImages: true,
      variantCount: 2,
      channels: ['email'],
      style: null,
      sourceJobId: null,
      actor: 'user:1',
    },
    expect.objectContaining({ step: 'copy' }),
    expect.objectContaining({ step: 'images' }),
    expect.objectContaining({ step: 'variants' }),
  ]);
  // The free images step captures nothing.
  expect(recorded.argsOf('captureJobCredits')).toEqual([
    [{ workspaceId: 'ws_1', jobId: 'job_1', step: 'brief', amount: 1, actor: 'user:1' }],
    [{ workspaceId: 'ws_1', jobId: 'job_1', step: 'copy', amount: 2, actor: 'user:1' }],
    [{ workspaceId: 'ws_1', jobId: 'job_1', step: 'variants', amount: 4, actor: 'user:1' }],
  ]);
  expect(recorded.argsOf('reportJobProgress').map(([, progress]) => progress)).toEqual([
    { fraction: 0, step: 'brief', message: 'brief: working' },
    { fraction: 0.25, step: 'copy', message: 'copy: working' },
    { fraction: 0.5, step: 'images', message: 'images: working' },
    { fraction: 0.75, step: 'variants', message: 'variants: working' },
  ]);
  expect(recorded.names(['markJobRunning', ...BOOKKEEPING_ENDINGS])).toEqual([
    'markJobRunning',
    'finishGeneration',
    'releaseJobCredits',
    'completeJob',
  ]);
  expect(recorded.argsOf('finishGeneration')).toEqual([
    [{ workspaceId: 'ws_1', campaignId: 'cmp_1', jobId: 'job_1', outcome: 'succeeded' }],
  ]);
  expect(recorded.argsOf('completeJob')).toEqual([['job_1', result]]);
});

test('a regeneration runs only its steps and hands every step the source job', async () => {
  const recorded = recordActivities({ runGenerationStep: async ({ step }) => ({ step }) });
  const result = await withWorker(env, recorded.activities, (taskQueue) =>
    env.client.workflow.execute(campaignGenerationWorkflow, {
      taskQueue,
      workflowId: workflowId('regen'),
      args: [
        input({
          mode: 'regenerate',
          fromStep: 'copy',
          steps: ['copy', 'variants'],
          sourceJobId: 'job_0',
          jobId: 'job_2',
        }),
      ],
    }),
  );
  expect(result).toEqual({ campaignId: 'cmp_1', variantIds: [], steps: ['copy', 'variants'], creditsCaptured: 6 });
  expect(recorded.argsOf('runGenerationStep').map(([arg]) => [arg.step, arg.sourceJobId, arg.jobId])).toEqual([
    ['copy', 'job_0', 'job_2'],
    ['variants', 'job_0', 'job_2'],
  ]);
});

test('a failing step refunds the rest, restores the campaign and fails the job with the step’s code', async () => {
  const recorded = recordActivities({
    runGenerationStep: async ({ step }) => {
      if (step === 'copy')
        throw ApplicationFailure.create({ type: 'validation_failed', message: 'the brief is empty' });
      return { step };
    },
  });
  const error = await withWorker(env, recorded.activities, (taskQueue) =>
    env.client.workflow
      .execute(campaignGenerationWorkflow, { taskQueue, workflowId: workflowId('gen-fail'), args: [input()] })
      .catch((caught: unknown) => caught),
  );

  expect(error).toBeInstanceOf(WorkflowFailedError);
  // validation_failed is not retried: the step ran once.
  expect(recorded.argsOf('runGenerationStep').map(([arg]) => arg.step)).toEqual(['brief', 'copy']);
  expect(recorded.argsOf('captureJobCredits').map(([arg]) => [arg.step, arg.amount])).toEqual([['brief', 1]]);
  expect(recorded.names([...BOOKKEEPING_ENDINGS])).toEqual(['releaseJobCredits', 'finishGeneration', 'failJob']);
  expect(recorded.argsOf('releaseJobCredits')).toEqual([[{ workspaceId: 'ws_1', jobId: 'job_1', actor: 'user:1' }]]);
  expect(recorded.argsOf('finishGeneration')).toEqual([
    [{ workspaceId: 'ws_1', campaignId: 'cmp_1', jobId: 'job_1', outcome: 'failed' }],
  ]);
  expect(recorded.argsOf('failJob')).toEqual([['job_1', { code: 'validation_failed', message: 'the brief is empty' }]]);
});

test('cancelled during a step: the step sees the cancellation, the rest is refunded, the job ends cancelled', async () => {
  const copying = Promise.withResolvers<void>();
  const seen: unknown[] = [];
  const recorded = recordActivities({
    runGenerationStep: async ({ step }) =>
      step === 'copy' ? heartbeatUntilCancelled(copying.resolve, seen) : { step },
  });
  const error = await withWorker(env, recorded.activities, async (taskQueue) => {
    const handle = await env.client.workflow.start(campaignGenerationWorkflow, {
      taskQueue,
      workflowId: workflowId('gen-cancel'),
      args: [input()],
    });
    await copying.promise;
    await handle.cancel();
    return handle.result().catch((caught: unknown) => caught);
  });

  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  expect(recorded.argsOf('runGenerationStep').map(([arg]) => arg.step)).toEqual(['brief', 'copy']);
  expect(recorded.argsOf('captureJobCredits').map(([arg]) => arg.step)).toEqual(['brief']);
  expect(recorded.names([...BOOKKEEPING_ENDINGS])).toEqual([
    'releaseJobCredits',
    'finishGeneration',
    'markJobCancelled',
  ]);
  expect(recorded.argsOf('finishGeneration')[0]?.[0].outcome).toBe('cancelled');
  expect(recorded.argsOf('markJobCancelled')).toEqual([['job_1']]);
  // The cancellation reached the running step through its heartbeats (or the worker's shutdown at the end).
  expect(seen[0]).toBeInstanceOf(CancelledFailure);
});

test('cancelled before its first activity, it still refunds and closes the job', async () => {
  const recorded = recordActivities({ runGenerationStep: async ({ step }) => ({ step }) });
  const taskQueue = `gen-early-${Date.now()}`;
  // Started and cancelled while no worker polls its queue: the first workflow task already carries the cancel.
  const handle = await env.client.workflow.start(campaignGenerationWorkflow, {
    taskQueue,
    workflowId: workflowId('gen-early'),
    args: [input()],
  });
  await handle.cancel();
  const error = await withWorker(
    env,
    recorded.activities,
    () => handle.result().catch((caught: unknown) => caught),
    taskQueue,
  );

  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  expect(recorded.names(['runGenerationStep', 'captureJobCredits'])).toEqual([]);
  expect(recorded.names([...BOOKKEEPING_ENDINGS])).toEqual([
    'releaseJobCredits',
    'finishGeneration',
    'markJobCancelled',
  ]);
  expect(recorded.argsOf('finishGeneration')[0]?.[0].outcome).toBe('cancelled');
});
