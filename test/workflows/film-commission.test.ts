/**
 * filmCommissionWorkflow's branches with stub activities: approvals at both gates, revise loops at either
 * gate (the revised stage rerun with its notes and its own price captured), decisions the workflow refuses,
 * an approval deadline passing (timers capped by `workflow-timers.ts`), a failing stage and a cancellation at
 * a gate — each returning the unused credits.
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { WorkflowFailedError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { FilmCommissionInput } from '../../src/domain/jobs/workflow-inputs.ts';
import { decide, pendingGate, type FilmDecision, type FilmGate } from '../../workflows/film-commission.ts';
import { filmCommissionWorkflow } from '../../workflows/index.ts';
import { pollUntil } from '../support/poll.ts';
import { recordActivities, useWorkflowEnv, withWorker, workflowId } from '../support/workflow-env.ts';

let env: TestWorkflowEnvironment;
useWorkflowEnv((started) => (env = started));

const input: FilmCommissionInput = {
  jobId: 'job_f',
  workspaceId: 'ws_1',
  commissionId: 'film_1',
  prices: { script: 3, storyboard: 5, render: 10 },
  actor: 'user:1',
};

const studio = () =>
  recordActivities({
    writeFilmScript: async () => ({ scenes: 4 }),
    drawFilmStoryboard: async () => ({ frames: 8 }),
    renderFilm: async () => ({ key: 'films/film_1.mp4' }) as never,
  });

const ENDINGS = ['releaseJobCredits', 'completeJob', 'failJob', 'markJobCancelled'] as const;

type Handle = WorkflowHandle<typeof filmCommissionWorkflow>;

/** Waits until the film stops at `gate`, then sends the decision through the `decide` update. */
async function decideAt(handle: Handle, gate: FilmGate, decision: FilmDecision) {
  await pollUntil(
    () => handle.query(pendingGate),
    (pending) => pending === gate,
    // Longer than a workflow task's 10 s timeout: on a loaded machine the SDK core can drop a workflow task that
    // raced a query ("Trying to send a new WFT for a run which already has one!"), and the server only hands the
    // run out again once that task times out. Seen once in CI; the gate is still reached, just 10 s later.
    { timeoutMs: 30_000, intervalMs: 20, timeoutMessage: (last) => `the film waits at ${last}, not ${gate}` },
  );
  return handle.executeUpdate(decide, { args: [decision] });
}

const approve: FilmDecision = { decision: 'approve', by: 'user:1' };

test('approved at both gates: script, storyboard and render each run once and capture their price', async () => {
  const recorded = studio();
  const { result, answers } = await withWorker(env, recorded.activities, async (taskQueue) => {
    const handle = await env.client.workflow.start(filmCommissionWorkflow, {
      taskQueue,
      workflowId: workflowId('film'),
      args: [input],
    });
    const answers = [await decideAt(handle, 'storyboard', approve), await decideAt(handle, 'final', approve)];
    return { result: await handle.result(), answers };
  });

  expect(result).toEqual({ commissionId: 'film_1', revisions: 0, creditsCaptured: 18 });
  expect(answers).toEqual([
    { accepted: true, gate: 'storyboard' },
    { accepted: true, gate: 'final' },
  ]);
  expect(recorded.names(['writeFilmScript', 'drawFilmStoryboard', 'renderFilm'])).toEqual([
    'writeFilmScript',
    'drawFilmStoryboard',
    'renderFilm',
  ]);
  expect(recorded.argsOf('writeFilmScript')).toEqual([
    [{ workspaceId: 'ws_1', commissionId: 'film_1', jobId: 'job_f', revision: 0, notes: null }],
  ]);
  expect(recorded.argsOf('captureJobCredits').map(([arg]) => [arg.step, arg.amount])).toEqual([
    ['script-0', 3],
    ['storyboard-0', 5],
    ['render-0', 10],
  ]);
  expect(recorded.argsOf('setFilmStatus').map(([arg]) => arg.status)).toEqual([
    'scripting',
    'storyboarding',
    'awaiting_storyboard_approval',
    'rendering',
    'awaiting_final_approval',
    'completed',
  ]);
  expect(recorded.argsOf('markJobInputRequired')).toEqual([
    ['job_f', 'The storyboard is ready: approve it or revise with notes'],
    ['job_f', 'The film is ready: approve it or revise with notes'],
  ]);
  expect(recorded.names([...ENDINGS])).toEqual(['releaseJobCredits', 'completeJob']);
  expect(recorded.argsOf('completeJob')).toEqual([['job_f', result]]);
});

test('revise loops: each revision reruns its stage with the notes and captures the revision’s own credits', async () => {
  const recorded = studio();
  const result = await withWorker(env, recorded.activities, async (taskQueue) => {
    const handle = await env.client.workflow.start(filmCommissionWorkflow, {
      taskQueue,
      workflowId: workflowId('film-revise'),
      args: [input],
    });
    await decideAt(handle, 'storyboard', { decision: 'revise', notes: 'warmer light', credits: 2, by: 'user:1' });
    await decideAt(handle, 'storyboard', approve);
    await decideAt(handle, 'final', { decision: 'revise', notes: 'shorter ending', credits: 4, by: 'user:1' });
    await decideAt(handle, 'final', { decision: 'revise', notes: 'louder music', by: 'user:1' });
    await decideAt(handle, 'final', approve);
    return handle.result();
  });

  expect(result).toEqual({ commissionId: 'film_1', revisions: 3, creditsCaptured: 24 });
  expect(recorded.argsOf('writeFilmScript').map(([arg]) => [arg.revision, arg.notes])).toEqual([
    [0, null],
    [1, 'warmer light'],
  ]);
  expect(recorded.argsOf('drawFilmStoryboard').map(([arg]) => arg.revision)).toEqual([0, 1]);
  expect(recorded.argsOf('renderFilm').map(([arg]) => [arg.revision, arg.notes])).toEqual([
    [0, null],
    [1, 'shorter ending'],
    [2, 'louder music'],
  ]);
  // A revision without reserved credits captures nothing.
  expect(recorded.argsOf('captureJobCredits').map(([arg]) => [arg.step, arg.amount])).toEqual([
    ['script-0', 3],
    ['storyboard-0', 5],
    ['storyboard_revision-1', 2],
    ['render-0', 10],
    ['render_revision-1', 4],
  ]);
  expect(recorded.names([...ENDINGS])).toEqual(['releaseJobCredits', 'completeJob']);
});

test('refuses a decision when no approval is pending, and a revision without notes', async () => {
  const gate = Promise.withResolvers<void>();
  const recorded = recordActivities({
    writeFilmScript: async () => ({ scenes: 4 }),
    // Holds the film before its first gate until the test has tried to decide too early.
    drawFilmStoryboard: async () => {
      await gate.promise;
      return { frames: 8 };
    },
    renderFilm: async () => ({ key: 'films/film_1.mp4' }) as never,
  });
  await withWorker(env, recorded.activities, async (taskQueue) => {
    const handle = await env.client.workflow.start(filmCommissionWorkflow, {
      taskQueue,
      workflowId: workflowId('film-refuse'),
      args: [input],
    });
    await pollUntil(
      () => recorded.names(['drawFilmStoryboard']).length,
      (n) => n === 1,
      {
        timeoutMs: 10_000,
        intervalMs: 20,
        timeoutMessage: 'the storyboard never started',
      },
    );
    await expect(handle.executeUpdate(decide, { args: [approve] })).rejects.toThrow(WorkflowUpdateFailedError);
    gate.resolve();
    await expect(
      decideAt(handle, 'storyboard', { decision: 'revise', notes: '  ', by: 'user:1' }),
    ).rejects.toMatchObject({ cause: { message: 'A revision needs notes' } });
    // Neither refused decision was recorded: the film still waits at the storyboard.
    expect(await handle.query(pendingGate)).toBe('storyboard');
    await handle.terminate('test over');
  });
  expect(recorded.argsOf('writeFilmScript')).toHaveLength(1);
});

test('no decision before the deadline: the job fails with approval_timeout and the credits are returned', async () => {
  const recorded = studio();
  const error = await withWorker(env, recorded.activities, (taskQueue) =>
    env.client.workflow
      .execute(filmCommissionWorkflow, {
        taskQueue,
        workflowId: workflowId('film-timeout'),
        args: [input],
        // The 30-day approval deadline, capped to 200 ms by the test bundle's timer interceptor.
        memo: { timerCapMs: 200 },
      })
      .catch((caught: unknown) => caught),
  );

  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect((error as WorkflowFailedError).cause).toMatchObject({ type: 'approval_timeout' });
  expect(recorded.names(['renderFilm'])).toEqual([]);
  expect(recorded.names([...ENDINGS])).toEqual(['releaseJobCredits', 'failJob']);
  expect(recorded.argsOf('failJob')).toEqual([
    ['job_f', { code: 'approval_timeout', message: 'No decision on the storyboard within 30 days' }],
  ]);
  expect(recorded.argsOf('setFilmStatus').at(-1)).toEqual([
    { workspaceId: 'ws_1', commissionId: 'film_1', status: 'failed' },
  ]);
});

test('a failing stage fails the job with its code and returns the credits', async () => {
  const recorded = recordActivities({
    writeFilmScript: async () => {
      throw ApplicationFailure.create({ type: 'not_found', message: 'The product is gone' });
    },
  });
  const error = await withWorker(env, recorded.activities, (taskQueue) =>
    env.client.workflow
      .execute(filmCommissionWorkflow, { taskQueue, workflowId: workflowId('film-fail'), args: [input] })
      .catch((caught: unknown) => caught),
  );

  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect(recorded.names(['writeFilmScript', 'drawFilmStoryboard', 'captureJobCredits'])).toEqual(['writeFilmScript']);
  expect(recorded.names([...ENDINGS])).toEqual(['releaseJobCredits', 'failJob']);
  expect(recorded.argsOf('failJob')).toEqual([['job_f', { code: 'not_found', message: 'The product is gone' }]]);
  expect(recorded.argsOf('setFilmStatus').at(-1)).toEqual([
    { workspaceId: 'ws_1', commissionId: 'film_1', status: 'failed' },
  ]);
});

test('cancelled while waiting at a gate: the credits are returned and the job ends cancelled', async () => {
  const recorded = studio();
  const error = await withWorker(env, recorded.activities, async (taskQueue) => {
    const handle = await env.client.workflow.start(filmCommissionWorkflow, {
      taskQueue,
      workflowId: workflowId('film-cancel'),
      args: [input],
    });
    await decideAt(handle, 'storyboard', approve);
    await pollUntil(
      () => handle.query(pendingGate),
      (pending) => pending === 'final',
      { timeoutMs: 10_000, intervalMs: 20, timeoutMessage: 'the film never reached the final gate' },
    );
    await handle.cancel();
    return handle.result().catch((caught: unknown) => caught);
  });

  expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  expect(recorded.names([...ENDINGS])).toEqual(['releaseJobCredits', 'markJobCancelled']);
  expect(recorded.argsOf('setFilmStatus').at(-1)).toEqual([
    { workspaceId: 'ws_1', commissionId: 'film_1', status: 'cancelled' },
  ]);
  expect(recorded.argsOf('captureJobCredits').map(([arg]) => arg.step)).toEqual([
    'script-0',
    'storyboard-0',
    'render-0',
  ]);
});
