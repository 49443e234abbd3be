/**
 * republishWorkflow's branches with a stub `publishSite`: a request publishes once and the run ends after
 * its idle wait; requests that arrive during a build are coalesced into the next one; a window boundary the
 * build reports is honoured with a scheduled republish. Timers are capped by `workflow-timers.ts` (memo
 * `timerCapMs`), so the 30-second idle wait takes a fraction of a second.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { republishWorkflow } from '../../workflows/index.ts';
import { republishRequested } from '../../workflows/republish.ts';
import { pollUntil } from '../support/poll.ts';
import { recordActivities, useWorkflowEnv, withWorker, workflowId } from '../support/workflow-env.ts';

let env: TestWorkflowEnvironment;
useWorkflowEnv((started) => (env = started));

const built = (nextChangeAt: string | null = null) => ({ version: 1, campaigns: 1, documents: 3, nextChangeAt });

const start = (taskQueue: string, reason: string) =>
  env.client.workflow.signalWithStart(republishWorkflow, {
    taskQueue,
    workflowId: workflowId('republish'),
    args: [{ workspaceId: 'ws_1' }],
    signal: republishRequested,
    signalArgs: [{ reason }],
    memo: { timerCapMs: 300 },
  });

test('one request: one build with its reason, then the run ends when idle', async () => {
  const recorded = recordActivities({ publishSite: async () => built() });
  const result = await withWorker(env, recorded.activities, async (taskQueue) =>
    (await start(taskQueue, 'campaign launched')).result(),
  );

  expect(result).toEqual({ builds: 1 });
  expect(recorded.argsOf('publishSite')).toEqual([[{ workspaceId: 'ws_1', reasons: ['campaign launched'] }]]);
});

test('requests that arrive during a build are coalesced into one more build', async () => {
  const firstBuild = Promise.withResolvers<void>();
  const release = Promise.withResolvers<void>();
  const recorded = recordActivities({
    publishSite: async () => {
      if (recorded.argsOf('publishSite').length === 1) {
        firstBuild.resolve();
        await release.promise;
      }
      return built();
    },
  });
  const result = await withWorker(env, recorded.activities, async (taskQueue) => {
    const handle = await start(taskQueue, 'brand edited');
    await firstBuild.promise;
    await handle.signal(republishRequested, { reason: 'variant published' });
    await handle.signal(republishRequested, { reason: 'deployment paused' });
    release.resolve();
    return handle.result();
  });

  expect(result).toEqual({ builds: 2 });
  expect(recorded.argsOf('publishSite')).toEqual([
    [{ workspaceId: 'ws_1', reasons: ['brand edited'] }],
    [{ workspaceId: 'ws_1', reasons: ['variant published', 'deployment paused'] }],
  ]);
});

test('a window boundary reported by a build is republished when it comes, with no request', async () => {
  const recorded = recordActivities({
    publishSite: async () =>
      recorded.argsOf('publishSite').length === 1 ? built(new Date(Date.now() + 500).toISOString()) : built(),
  });
  const result = await withWorker(env, recorded.activities, async (taskQueue) =>
    (await start(taskQueue, 'deployment scheduled')).result(),
  );

  expect(result).toEqual({ builds: 2 });
  expect(recorded.argsOf('publishSite')).toEqual([
    [{ workspaceId: 'ws_1', reasons: ['deployment scheduled'] }],
    [{ workspaceId: 'ws_1', reasons: ['scheduled window boundary'] }],
  ]);
});

test('while a boundary is pending the run stays open for new requests', async () => {
  const recorded = recordActivities({
    publishSite: async () =>
      recorded.argsOf('publishSite').length === 1 ? built(new Date(Date.now() + 60_000).toISOString()) : built(),
  });
  await withWorker(env, recorded.activities, async (taskQueue) => {
    // No cap here: the boundary is a minute away, so the run must still be waiting for it.
    const handle = await env.client.workflow.signalWithStart(republishWorkflow, {
      taskQueue,
      workflowId: workflowId('republish-pending'),
      args: [{ workspaceId: 'ws_1' }],
      signal: republishRequested,
      signalArgs: [{ reason: 'deployment scheduled' }],
    });
    await pollUntil(
      () => recorded.argsOf('publishSite').length,
      (n) => n === 1,
      {
        timeoutMs: 10_000,
        intervalMs: 20,
        timeoutMessage: 'the first build never ran',
      },
    );
    await handle.signal(republishRequested, { reason: 'brand edited' });
    await pollUntil(
      () => recorded.argsOf('publishSite').length,
      (n) => n === 2,
      {
        timeoutMs: 10_000,
        intervalMs: 20,
        timeoutMessage: 'the second request was not built',
      },
    );
    await handle.terminate('test over');
  });
  expect(recorded.argsOf('publishSite').map(([arg]) => arg.reasons)).toEqual([
    ['deployment scheduled'],
    ['brand edited'],
  ]);
});
