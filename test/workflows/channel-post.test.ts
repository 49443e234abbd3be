/**
 * channelPostWorkflow's branches with stub activities: waiting for the post's time and publishing once;
 * rescheduling, publishing now and cancelling while it waits (Temporal updates, refused once publishing has
 * begun); a rate limit waited out without spending an attempt; an unreachable network retried with back-off
 * and then failed with a clear error; a refusal that fails at once; a workflow cancellation while waiting and
 * while publishing (publishing is not cancelled half-way).
 */
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { ChannelPostInput } from '../../src/domain/jobs/workflow-inputs.ts';
import { cancel, publishNow, reschedule, stage } from '../../workflows/channel-post.ts';
import { channelPostWorkflow } from '../../workflows/index.ts';
import { pollUntil } from '../support/poll.ts';
import {
  recordActivities,
  useWorkflowEnv,
  withWorker,
  workflowId,
  type ActivityStubs,
} from '../support/workflow-env.ts';

type History = Awaited<
  ReturnType<ReturnType<TestWorkflowEnvironment['client']['workflow']['getHandle']>['fetchHistory']>
>;

/** The durations of the durable timers a run started, in ms. */
function timers(history: History): number[] {
  return (history.events ?? []).flatMap((event) => {
    const timeout = event.timerStartedEventAttributes?.startToFireTimeout;
    return timeout ? [Number(timeout.seconds ?? 0) * 1000 + Math.round((timeout.nanos ?? 0) / 1e6)] : [];
  });
}

let env: TestWorkflowEnvironment;
useWorkflowEnv((started) => (env = started));

const PUBLISHED = {
  externalId: 'at://did:plc:abc/app.bsky.feed.post/3kabc',
  externalUrl: 'https://bsky.app/profile/did:plc:abc/post/3kabc',
};

function input(overrides: Partial<ChannelPostInput> = {}): ChannelPostInput {
  return {
    jobId: 'job_p',
    workspaceId: 'ws_1',
    postId: 'chp_1',
    network: 'bluesky',
    action: 'schedule',
    scheduledAt: new Date(Date.now() + 500).toISOString(),
    publishAttempts: 3,
    publishRetrySeconds: 0.1,
    actor: 'user:1',
    ...overrides,
  };
}

const posting = (overrides: ActivityStubs = {}) =>
  recordActivities({
    beginChannelPublishing: async () => true,
    publishChannelPost: async () => PUBLISHED,
    recordChannelPostPublished: async () => undefined,
    failChannelPost: async () => undefined,
    unscheduleChannelPost: async (arg) => (arg.failure ? 'failed' : 'draft'),
    setChannelPostSchedule: async () => undefined,
    ...overrides,
  });

const ROW_WRITES = [
  'beginChannelPublishing',
  'publishChannelPost',
  'recordChannelPostPublished',
  'failChannelPost',
  'unscheduleChannelPost',
] as const;
const ENDINGS = ['completeJob', 'failJob', 'markJobCancelled'] as const;

/** A stub that blocks until released, resolving `started` when it is first called. */
function gate() {
  let release!: () => void;
  let started!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const began = new Promise<void>((resolve) => (started = resolve));
  return { release, began, started, released };
}

test('waits for its time, publishes once and records where the post went', async () => {
  let beganAt = 0;
  const recorded = posting({
    beginChannelPublishing: async () => {
      beganAt = Date.now();
      return true;
    },
  });
  let scheduledAt = 0;
  const { result, history } = await withWorker(env, recorded.activities, async (taskQueue) => {
    // Timed from the running worker (its start can take seconds on a busy machine), with room for the run's
    // bookkeeping before the timer, so the post's time is still ahead when the run reaches it.
    scheduledAt = Date.now() + 3000;
    const handle = await env.client.workflow.start(channelPostWorkflow, {
      taskQueue,
      workflowId: workflowId('post'),
      args: [input({ scheduledAt: new Date(scheduledAt).toISOString() })],
    });
    return { result: await handle.result(), history: await handle.fetchHistory() };
  });

  expect(result).toEqual({ postId: 'chp_1', outcome: 'published', ...PUBLISHED });
  // One durable timer up to the post's time, and publishing began no earlier.
  expect(timers(history)).toHaveLength(1);
  expect(beganAt).toBeGreaterThanOrEqual(scheduledAt);
  expect(recorded.names([...ROW_WRITES, ...ENDINGS])).toEqual([
    'beginChannelPublishing',
    'publishChannelPost',
    'recordChannelPostPublished',
    'completeJob',
  ]);
  expect(recorded.argsOf('recordChannelPostPublished')).toEqual([
    [{ workspaceId: 'ws_1', postId: 'chp_1', jobId: 'job_p', ...PUBLISHED }],
  ]);
  expect(recorded.argsOf('completeJob')).toEqual([['job_p', { postId: 'chp_1', ...PUBLISHED }]]);
});

test('reschedule and publish now move a waiting post; the row shows each new time first', async () => {
  const recorded = posting();
  const { answers, result } = await withWorker(env, recorded.activities, async (taskQueue) => {
    const handle = await env.client.workflow.start(channelPostWorkflow, {
      taskQueue,
      workflowId: workflowId('post-move'),
      args: [input({ scheduledAt: new Date(Date.now() + 3_600_000).toISOString() })],
    });
    const later = new Date(Date.now() + 7_200_000).toISOString();
    const moved = await handle.executeUpdate(reschedule, { args: [{ scheduledAt: later, by: 'user:2' }] });
    expect(await handle.query(stage)).toBe('waiting');
    const now = await handle.executeUpdate(publishNow, { args: [{ by: 'user:3' }] });
    return { answers: [moved, now], result: await handle.result() };
  });

  expect(answers[0]).toEqual({ scheduledAt: expect.any(String) });
  // Answered once publishing had begun.
  expect(answers[1]).toEqual({ stage: expect.stringMatching(/^(publishing|done)$/) });
  expect(result.outcome).toBe('published');
  expect(recorded.argsOf('setChannelPostSchedule').map(([arg]) => arg.actor)).toEqual(['user:2', 'user:3']);
  expect(recorded.names(['publishChannelPost'])).toEqual(['publishChannelPost']);
});

test('cancel takes a waiting post back to draft; nothing is published', async () => {
  const recorded = posting();
  const { answer, result } = await withWorker(env, recorded.activities, async (taskQueue) => {
    const handle = await env.client.workflow.start(channelPostWorkflow, {
      taskQueue,
      workflowId: workflowId('post-cancel'),
      args: [input({ scheduledAt: new Date(Date.now() + 3_600_000).toISOString() })],
    });
    const answer = await handle.executeUpdate(cancel, { args: [{ by: 'user:2' }] });
    return { answer, result: await handle.result() };
  });

  expect(answer).toEqual({ status: 'draft' });
  expect(result).toEqual({ postId: 'chp_1', outcome: 'unscheduled' });
  expect(recorded.names([...ROW_WRITES, ...ENDINGS])).toEqual(['unscheduleChannelPost', 'markJobCancelled']);
  expect(recorded.argsOf('unscheduleChannelPost')).toEqual([
    [{ workspaceId: 'ws_1', postId: 'chp_1', jobId: 'job_p', actor: 'user:2', failure: null }],
  ]);
});

test('a disconnected account stops a waiting post as failed, with the reason', async () => {
  const recorded = posting();
  const failure = { code: 'account_disconnected', message: 'Not published: the account was disconnected.' };
  const answer = await withWorker(env, recorded.activities, async (taskQueue) => {
    const handle = await env.client.workflow.start(channelPostWorkflow, {
      taskQueue,
      workflowId: workflowId('post-stop'),
      args: [input({ scheduledAt: new Date(Date.now() + 3_600_000).toISOString() })],
    });
    const answer = await handle.executeUpdate(cancel, { args: [{ by: 'user:2', failure }] });
    await handle.result();
    return answer;
  });
  expect(answer).toEqual({ status: 'failed' });
  expect(recorded.argsOf('unscheduleChannelPost')).toEqual([
    [{ workspaceId: 'ws_1', postId: 'chp_1', jobId: 'job_p', actor: 'user:2', failure }],
  ]);
});

test('once publishing has begun, reschedule, publish now and cancel are refused and change nothing', async () => {
  const publishing = gate();
  const recorded = posting({
    publishChannelPost: async () => {
      publishing.started();
      await publishing.released;
      return PUBLISHED;
    },
  });
  const { refusals, result } = await withWorker(env, recorded.activities, async (taskQueue) => {
    const handle = await env.client.workflow.start(channelPostWorkflow, {
      taskQueue,
      workflowId: workflowId('post-busy'),
      args: [input({ scheduledAt: new Date().toISOString() })],
    });
    await publishing.began;
    const refusals = await Promise.all([
      handle
        .executeUpdate(reschedule, { args: [{ scheduledAt: new Date(Date.now() + 60_000).toISOString(), by: 'u' }] })
        .catch((error: unknown) => error),
      handle.executeUpdate(publishNow, { args: [{ by: 'u' }] }).catch((error: unknown) => error),
      handle.executeUpdate(cancel, { args: [{ by: 'u' }] }).catch((error: unknown) => error),
    ]);
    publishing.release();
    return { refusals, result: await handle.result() };
  });
  for (const refusal of refusals) {
    expect(refusal).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((refusal as WorkflowUpdateFailedError).cause?.message).toBe(
      'the post is already being published and can no longer be moved or cancelled',
    );
  }
  expect(result.outcome).toBe('published');
  expect(recorded.names(['setChannelPostSchedule', 'unscheduleChannelPost'])).toEqual([]);
});

test('a rate limit is slept off as the network asks, without spending an attempt', async () => {
  let calls = 0;
  const recorded = posting({
    publishChannelPost: async () => {
      calls += 1;
      if (calls <= 2) {
        throw ApplicationFailure.create({
          type: 'rate_limited',
          message: "Bluesky's rate limit is used up",
          nonRetryable: true,
          details: [{ retryAfterSeconds: 1 }],
        });
      }
      return PUBLISHED;
    },
  });
  const { result, history } = await withWorker(env, recorded.activities, async (taskQueue) => {
    const handle = await env.client.workflow.start(channelPostWorkflow, {
      taskQueue,
      workflowId: workflowId('post-limit'),
      // One attempt only: were a rate limit an attempt, the post would fail.
      args: [input({ scheduledAt: new Date().toISOString(), publishAttempts: 1 })],
    });
    return { result: await handle.result(), history: await handle.fetchHistory() };
  });
  expect(result.outcome).toBe('published');
  expect(calls).toBe(3);
  // Two durable waits of the second the network named.
  expect(timers(history)).toEqual([1000, 1000]);
  const waits = recorded.argsOf('reportJobProgress').filter(([, progress]) => progress.step === 'rate_limited');
  expect(waits).toHaveLength(2);
  // The progress says the network's own words, then the wait.
  expect(waits[0]![1].message).toBe("Bluesky's rate limit is used up. Publishing again in 1 s");
  expect(recorded.names(['failChannelPost', 'failJob'])).toEqual([]);
});

test('an unreachable network is retried with back-off, then the post fails saying how long it was tried', async () => {
  const attempts: number[] = [];
  const recorded = posting({
    publishChannelPost: async () => {
      attempts.push(Date.now());
      throw ApplicationFailure.create({
        type: 'unavailable',
        message: 'Bluesky did not answer when asked to publish the post (no response); try again later',
      });
    },
  });
  const { failure, history } = await withWorker(env, recorded.activities, async (taskQueue) => {
    const handle = await env.client.workflow.start(channelPostWorkflow, {
      taskQueue,
      workflowId: workflowId('post-down'),
      args: [input({ scheduledAt: new Date().toISOString(), publishAttempts: 3, publishRetrySeconds: 0.3 })],
    });
    return { failure: await handle.result().catch((error: unknown) => error), history: await handle.fetchHistory() };
  });
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  expect(attempts).toHaveLength(3);
  // The back-off the run asked Temporal for: exponential from the configured first wait, capped, bounded.
  const scheduled = (history.events ?? []).find(
    (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'publishChannelPost',
  )!.activityTaskScheduledEventAttributes!;
  expect(scheduled.retryPolicy).toMatchObject({
    initialInterval: { nanos: 300_000_000 },
    backoffCoefficient: 2,
    maximumInterval: { seconds: expect.anything() },
    maximumAttempts: 3,
  });
  expect(Number(scheduled.retryPolicy!.maximumInterval!.seconds)).toBe(600);
  const error = {
    code: 'unavailable',
    message:
      'Bluesky did not answer when asked to publish the post (no response); try again later (gave up after 3 attempts; retry the post once the network answers)',
  };
  expect(recorded.argsOf('failChannelPost')).toEqual([
    [{ workspaceId: 'ws_1', postId: 'chp_1', jobId: 'job_p', error }],
  ]);
  expect(recorded.argsOf('failJob')).toEqual([['job_p', error]]);
  expect(recorded.names(['recordChannelPostPublished', 'completeJob'])).toEqual([]);
});

test('a refusal only a person can fix fails the post at the first attempt', async () => {
  let calls = 0;
  const recorded = posting({
    publishChannelPost: async () => {
      calls += 1;
      throw ApplicationFailure.create({
        type: 'channel_reconnect_required',
        message: 'The Bluesky account @brand.test cannot be used: its app password was revoked.',
        nonRetryable: true,
      });
    },
  });
  await withWorker(env, recorded.activities, async (taskQueue) => {
    const handle = await env.client.workflow.start(channelPostWorkflow, {
      taskQueue,
      workflowId: workflowId('post-refused'),
      args: [input({ scheduledAt: new Date().toISOString(), publishAttempts: 5 })],
    });
    await handle.result().catch(() => undefined);
  });
  expect(calls).toBe(1);
  expect(recorded.argsOf('failChannelPost').map(([arg]) => arg.error.code)).toEqual(['channel_reconnect_required']);
});

test('cancelling the workflow while it waits takes the post back to draft; while publishing, it still finishes', async () => {
  const waiting = posting();
  await withWorker(env, waiting.activities, async (taskQueue) => {
    const handle = await env.client.workflow.start(channelPostWorkflow, {
      taskQueue,
      workflowId: workflowId('post-tcancel'),
      args: [input({ scheduledAt: new Date(Date.now() + 3_600_000).toISOString() })],
    });
    await pollUntil(
      () => handle.query(stage),
      (current) => current === 'waiting',
      { timeoutMs: 30_000, intervalMs: 20, timeoutMessage: (current) => `the run is ${current}, not waiting` },
    );
    await handle.cancel();
    await handle.result().catch(() => undefined);
  });
  expect(waiting.names([...ROW_WRITES, ...ENDINGS])).toEqual(['unscheduleChannelPost', 'markJobCancelled']);
  expect(waiting.argsOf('unscheduleChannelPost')[0]![0]).toMatchObject({ actor: 'workflow:cancel', failure: null });

  const publishing = gate();
  const busy = posting({
    publishChannelPost: async () => {
      publishing.started();
      await publishing.released;
      return PUBLISHED;
    },
  });
  const result = await withWorker(env, busy.activities, async (taskQueue) => {
    const handle = await env.client.workflow.start(channelPostWorkflow, {
      taskQueue,
      workflowId: workflowId('post-tcancel-busy'),
      args: [input({ scheduledAt: new Date().toISOString() })],
    });
    await publishing.began;
    await handle.cancel();
    publishing.release();
    return handle.result();
  });
  expect(result.outcome).toBe('published');
  expect(busy.names([...ROW_WRITES, ...ENDINGS])).toEqual([
    'beginChannelPublishing',
    'publishChannelPost',
    'recordChannelPostPublished',
    'completeJob',
  ]);
});

test('a post deleted the moment its time came is skipped', async () => {
  const recorded = posting({ beginChannelPublishing: async () => false });
  const result = await withWorker(env, recorded.activities, async (taskQueue) => {
    const handle = await env.client.workflow.start(channelPostWorkflow, {
      taskQueue,
      workflowId: workflowId('post-gone'),
      args: [input({ scheduledAt: new Date().toISOString() })],
    });
    return handle.result();
  });
  expect(result).toEqual({ postId: 'chp_1', outcome: 'skipped' });
  expect(recorded.names([...ROW_WRITES, ...ENDINGS])).toEqual(['beginChannelPublishing', 'markJobCancelled']);
});
