/**
 * One publishing run of a channel post: wait for the post's time on a durable timer, publish it exactly once,
 * record where it went.
 *
 * - **Waiting** survives restarts of workers and of the Temporal server: the timer is the server's. While the
 *   run waits, a person or an agent can move it (`reschedule`), bring it forward (`publishNow`) or take it off
 *   the schedule (`cancel`); each is a Temporal update the run validates, refused once publishing has begun.
 *   Cancelling the workflow itself (an MCP `tasks/cancel`) takes the post off the schedule the same way.
 * - **Publishing** cannot be cancelled half-way: once begun, it finishes or fails. The network stores the post
 *   under the record key the platform chose when the post was created, so an attempt repeated after a worker
 *   died — even after the network had accepted the post — writes the same record, not a second post.
 * - **Limits**: a network that does not answer is retried with exponential back-off (`publishRetrySeconds`,
 *   doubling, at most 10 minutes apart) up to `publishAttempts` times, then the post fails with the network's
 *   last answer. A rate limit is not a failure: the run sleeps on a durable timer until the time the network
 *   named, and tries again, without spending an attempt.
 */
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  defineQuery,
  defineUpdate,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import { bookkeepingActivities } from './bookkeeping.ts';
import type { Activities } from '../activities/index.ts';
import type { ChannelPostInput } from '../src/domain/jobs/workflow-inputs.ts';

export type PostRunStage = 'waiting' | 'publishing' | 'done';

export const reschedule = defineUpdate<{ scheduledAt: string }, [{ scheduledAt: string; by: string }]>('reschedule');
export const publishNow = defineUpdate<{ stage: PostRunStage }, [{ by: string }]>('publishNow');
export const cancel = defineUpdate<
  { status: string | null },
  [{ by: string; failure?: { code: string; message: string } }]
>('cancel');
export const stage = defineQuery<PostRunStage>('stage');

/** How many rate-limit waits one run sits out before it gives up (each as long as the network asks). */
const MAX_RATE_LIMIT_WAITS = 48;
const MAX_BACKOFF = '10 minutes';

export interface ChannelPostRunResult {
  postId: string;
  outcome: 'published' | 'unscheduled' | 'skipped';
  externalId?: string;
  externalUrl?: string;
}

export async function channelPostWorkflow(input: ChannelPostInput): Promise<ChannelPostRunResult> {
  const bookkeeping = bookkeepingActivities();
  const posts = proxyLocalActivities<Activities>({
    startToCloseTimeout: '30s',
    retry: { initialInterval: '500ms', maximumInterval: '10s' },
  });
  const network = proxyActivities<Activities>({
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: '10s',
    retry: {
      initialInterval: `${input.publishRetrySeconds}s`,
      backoffCoefficient: 2,
      maximumInterval: MAX_BACKOFF,
      maximumAttempts: input.publishAttempts,
      nonRetryableErrorTypes: [
        'validation_failed',
        'not_found',
        'conflict',
        'channel_refused',
        'channel_reconnect_required',
        'rate_limited',
      ],
    },
  });
  const { jobId, workspaceId, postId } = input;
  let due = Date.parse(input.scheduledAt);
  let current: PostRunStage = 'waiting';
  let stop: { by: string; failure?: { code: string; message: string } } | null = null;
  let unscheduledTo: string | null = null;

  const onlyWhileWaiting = () => {
    if (current !== 'waiting') {
      throw new Error('the post is already being published and can no longer be moved or cancelled');
    }
  };
  const waitingMessage = () => `Scheduled for ${new Date(due).toISOString()}`;

  setHandler(
    reschedule,
    async ({ scheduledAt, by }) => {
      // The row first, then the timer: the run never publishes at a time the row does not show.
      await posts.setChannelPostSchedule({ workspaceId, postId, jobId, scheduledAt, actor: by });
      due = Date.parse(scheduledAt);
      await bookkeeping.reportJobProgress(jobId, { fraction: 0, step: 'scheduled', message: waitingMessage() });
      return { scheduledAt };
    },
    {
      validator: ({ scheduledAt }) => {
        onlyWhileWaiting();
        if (Number.isNaN(Date.parse(scheduledAt))) throw new Error('scheduledAt is not a date-time');
      },
    },
  );
  setHandler(
    publishNow,
    async ({ by }) => {
      const at = new Date().toISOString();
      await posts.setChannelPostSchedule({ workspaceId, postId, jobId, scheduledAt: at, actor: by });
      due = Date.parse(at);
      // Answered once publishing has begun, so the caller reads the post as `publishing`.
      await condition(() => current !== 'waiting');
      return { stage: current };
    },
    { validator: (_request: { by: string }) => onlyWhileWaiting() },
  );
  setHandler(
    cancel,
    async (request) => {
      stop = request;
      await condition(() => current === 'done');
      return { status: unscheduledTo };
    },
    { validator: (_request: { by: string; failure?: { code: string; message: string } }) => onlyWhileWaiting() },
  );
  setHandler(stage, () => current);

  try {
    await bookkeeping.markJobRunning(jobId);
    await bookkeeping.reportJobProgress(jobId, { fraction: 0, step: 'scheduled', message: waitingMessage() });
    while (stop === null) {
      const target = due;
      const remaining = target - Date.now();
      if (remaining <= 0) break;
      await condition(() => stop !== null || due !== target, remaining);
    }

    if (stop !== null) {
      const request: { by: string; failure?: { code: string; message: string } } = stop;
      unscheduledTo = await posts.unscheduleChannelPost({
        workspaceId,
        postId,
        jobId,
        actor: request.by,
        failure: request.failure ?? null,
      });
      current = 'done';
      await bookkeeping.markJobCancelled(jobId);
      await condition(allHandlersFinished);
      return { postId, outcome: 'unscheduled' };
    }

    current = 'publishing';
    // Publishing, once begun, is not cancelled half-way: it finishes (recorded) or fails.
    const result = await CancellationScope.nonCancellable(async (): Promise<ChannelPostRunResult> => {
      const begun = await posts.beginChannelPublishing({ workspaceId, postId, jobId });
      if (!begun) {
        // The post was deleted or taken off the schedule the moment its time came.
        await bookkeeping.markJobCancelled(jobId);
        return { postId, outcome: 'skipped' };
      }
      await bookkeeping.reportJobProgress(jobId, { fraction: 0.5, step: 'publishing', message: 'Publishing' });
      for (let waits = 0; ; waits += 1) {
        try {
          const published = await network.publishChannelPost({ workspaceId, postId, jobId });
          await posts.recordChannelPostPublished({ workspaceId, postId, jobId, ...published });
          await bookkeeping.completeJob(jobId, { postId, ...published });
          return { postId, outcome: 'published', ...published };
        } catch (error) {
          const limited = rateLimitWait(error);
          if (limited === null || waits >= MAX_RATE_LIMIT_WAITS) throw error;
          await bookkeeping.reportJobProgress(jobId, {
            fraction: 0.5,
            step: 'rate_limited',
            // The limit's own words (Instagram's 50 a day names the time it frees up), then the wait.
            message: `${limited.reason ? `${limited.reason.replace(/[.\s]+$/, '')}. ` : "The network's rate limit is used up; "}Publishing again in ${limited.seconds} s`,
          });
          await sleep(limited.seconds * 1000);
        }
      }
    });
    current = 'done';
    return result;
  } catch (error) {
    current = 'done';
    const cancelled = isCancellation(error);
    const failure = cancelled ? null : failureOf(error, input);
    await CancellationScope.nonCancellable(async () => {
      if (cancelled) {
        unscheduledTo = await posts.unscheduleChannelPost({
          workspaceId,
          postId,
          jobId,
          actor: 'workflow:cancel',
          failure: null,
        });
        await bookkeeping.markJobCancelled(jobId);
      } else {
        await posts.failChannelPost({ workspaceId, postId, jobId, error: failure! });
        await bookkeeping.failJob(jobId, failure!);
      }
    });
    throw error;
  }
}

/** The wait a rate-limited attempt asks for (seconds) and why, or null when the error is something else. */
function rateLimitWait(error: unknown): { seconds: number; reason: string } | null {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (!(cause instanceof ApplicationFailure) || cause.type !== 'rate_limited') return null;
  const details = cause.details?.[0] as { retryAfterSeconds?: number } | undefined;
  return { seconds: Math.max(1, Math.ceil(details?.retryAfterSeconds ?? 60)), reason: cause.message };
}

/** The post's and the job's error: the activity's stable code and message, with how long it was tried. */
function failureOf(error: unknown, input: ChannelPostInput): { code: string; message: string } {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (!(cause instanceof ApplicationFailure)) {
    return { code: 'channel_post_failed', message: 'The post could not be published; retry it' };
  }
  const code = cause.type ?? 'channel_post_failed';
  if (code === 'unavailable') {
    return {
      code,
      message: `${cause.message} (gave up after ${input.publishAttempts} attempts; retry the post once the network answers)`,
    };
  }
  return { code, message: cause.message };
}
