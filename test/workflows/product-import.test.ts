/**
 * productImportWorkflow's branches with stub activities: rows imported in batches of 100 with the totals
 * summed, per-batch progress and the error list capped at 100; a fetch that fails fails the job with its
 * code; a cancellation stops between batches and keeps what was imported. Imports touch no credits.
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { productImportWorkflow } from '../../workflows/index.ts';
import type { ProductImportInput } from '../../src/domain/jobs/workflow-inputs.ts';
import {
  heartbeatUntilCancelled,
  recordActivities,
  useWorkflowEnv,
  withWorker,
  workflowId,
} from '../support/workflow-env.ts';

let env: TestWorkflowEnvironment;
useWorkflowEnv((started) => (env = started));

const input: ProductImportInput = {
  jobId: 'job_i',
  workspaceId: 'ws_1',
  sourceUrl: 'https://shop.test/products.csv',
  actor: 'user:1',
};

const CREDITS = ['captureJobCredits', 'releaseJobCredits'] as const;

test('imports 250 rows in three batches, sums them, reports progress and keeps at most 100 errors', async () => {
  const recorded = recordActivities({
    fetchProductCsv: async () => ({ rows: 250 }),
    importProductRows: async ({ start, count }) => ({
      created: count - 10,
      skipped: 10,
      errors: Array.from({ length: 60 }, (_, i) => ({ row: start + i, message: 'price is not a number' })),
    }),
  });
  const result = await withWorker(env, recorded.activities, (taskQueue) =>
    env.client.workflow.execute(productImportWorkflow, { taskQueue, workflowId: workflowId('import'), args: [input] }),
  );

  expect(recorded.argsOf('fetchProductCsv')).toEqual([
    [{ jobId: 'job_i', workspaceId: 'ws_1', sourceUrl: 'https://shop.test/products.csv' }],
  ]);
  expect(recorded.argsOf('importProductRows')).toEqual([
    [{ jobId: 'job_i', workspaceId: 'ws_1', start: 0, count: 100, actor: 'user:1' }],
    [{ jobId: 'job_i', workspaceId: 'ws_1', start: 100, count: 100, actor: 'user:1' }],
    [{ jobId: 'job_i', workspaceId: 'ws_1', start: 200, count: 50, actor: 'user:1' }],
  ]);
  expect(result).toMatchObject({ rows: 250, created: 220, skipped: 30 });
  expect(result.errors).toHaveLength(100);
  expect(result.errors.at(-1)).toEqual({ row: 139, message: 'price is not a number' });
  expect(recorded.argsOf('reportJobProgress').map(([, progress]) => progress)).toEqual([
    { fraction: 0.4, step: 'import', message: '100 of 250 rows' },
    { fraction: 0.8, step: 'import', message: '200 of 250 rows' },
    { fraction: 1, step: 'import', message: '250 of 250 rows' },
  ]);
  expect(recorded.argsOf('completeJob')).toEqual([['job_i', result]]);
  expect(recorded.names([...CREDITS])).toEqual([]);
});

test('an empty file completes with nothing imported', async () => {
  const recorded = recordActivities({
    fetchProductCsv: async () => ({ rows: 0 }),
    importProductRows: async () => ({ created: 0, skipped: 0, errors: [] }),
  });
  const result = await withWorker(env, recorded.activities, (taskQueue) =>
    env.client.workflow.execute(productImportWorkflow, {
      taskQueue,
      workflowId: workflowId('import-empty'),
      args: [input],
    }),
  );
  expect(result).toEqual({ rows: 0, created: 0, skipped: 0, errors: [] });
  expect(recorded.names(['importProductRows'])).toEqual([]);
});

test('a refused fetch fails the job with its code and imports nothing', async () => {
  const recorded = recordActivities({
    fetchProductCsv: async () => {
      throw ApplicationFailure.create({ type: 'validation_failed', message: 'The address is not public' });
    },
    importProductRows: async () => ({ created: 0, skipped: 0, errors: [] }),
  });
  const error = await withWorker(env, recorded.activities, (taskQueue) =>
    env.client.workflow
      .execute(productImportWorkflow, { taskQueue, workflowId: workflowId('import-fail'), args: [input] })
      .catch((caught: unknown) => caught),
  );

  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect(recorded.names(['importProductRows', 'completeJob', 'markJobCancelled'])).toEqual([]);
  expect(recorded.argsOf('failJob')).toEqual([
    ['job_i', { code: 'validation_failed', message: 'The address is not public' }],
  ]);
});

test('cancelled during the second batch: the first batch stays, the job ends cancelled', async () => {
  const second = Promise.withResolvers<void>();
  const recorded = recordActivities({
    fetchProductCsv: async () => ({ rows: 300 }),
    importProductRows: async ({ start, count }) =>
      start === 0 ? { created: count, skipped: 0, errors: [] } : heartbeatUntilCancelled(second.resolve),
  });
  const error = await withWorker(env, recorded.activities, async (taskQueue) => {
    const handle = await env.client.workflow.start(productImportWorkflow, {
      taskQueue,
      workflowId: workflowId('import-cancel'),
      args: [input],
    });
    await second.promise;
    await handle.cancel();
    return handle.result().catch((caught: unknown) => caught);
  });

  expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  expect(recorded.argsOf('importProductRows').map(([arg]) => arg.start)).toEqual([0, 100]);
  expect(recorded.names(['completeJob', 'failJob', 'markJobCancelled'])).toEqual(['markJobCancelled']);
  expect(recorded.argsOf('markJobCancelled')).toEqual([['job_i']]);
});
