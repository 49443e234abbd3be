/**
 * The activities of a channel post's publishing run (`workflows/channel-post.ts`) and of the metrics schedule.
 *
 * The row writes (begin, record, fail, unschedule, reschedule) are short and idempotent: each is a guarded
 * status move through `post-rows.ts` (audited there), and a retry that finds the move already made changes
 * nothing. Publishing itself talks to the network; it is idempotent too, because the network stores the post
 * under its fixed record key.
 */
import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import { ChannelPost, type PostError } from '../src/domain/channels/channel-post.entity.ts';
import { pullChannelMetrics, type MetricsPullResult } from '../src/domain/channels/channel-metrics.ts';
import { contentOf } from '../src/domain/channels/post-content.ts';
import { movePost, unscheduling } from '../src/domain/channels/post-rows.ts';
import { claimAllowance } from '../src/domain/channels/daily-allowance.ts';
import { jpegCopyOf } from '../src/domain/media/jpeg-copies.ts';
import { ConflictError, NotFoundError, RateLimitedError } from '../src/errors.ts';
import type { ActivityDeps } from './deps.ts';
import { translateErrors } from './support/activity-errors.ts';
import { withHeartbeats } from './support/heartbeats.ts';
import { activityScope } from './support/scope.ts';

interface PostRef {
  workspaceId: string;
  postId: string;
  jobId: string;
}

export function createChannelActivities(deps: ActivityDeps) {
  const { orm, audit, channels, studio, metrics } = deps;
  const actorOf = (input: PostRef) => `workflow:${input.jobId}`;

  return {
    /** The post's time has come: `scheduled` → `publishing`, its network time fixed once. False if it is no longer scheduled. */
    async beginChannelPublishing(input: PostRef): Promise<boolean> {
      return translateErrors(async () => {
        const scope = activityScope(orm, input);
        const post = await scope.em.findOne(ChannelPost, { id: input.postId });
        if (!post) throw new NotFoundError('Post', input.postId);
        if (post.status === 'publishing' || post.status === 'published') return true; // a retry of this activity
        const moved = await movePost(scope.em, audit, {
          postId: post.id,
          to: 'publishing',
          from: ['scheduled'],
          set: { firstAttemptAt: post.firstAttemptAt ?? new Date() },
          actor: actorOf(input),
          details: { jobId: input.jobId },
        });
        return moved !== null;
      });
    },

    /**
     * Publishes the post under its record key and returns where it went. A rate limit comes back as a
     * non-retryable `rate_limited` failure carrying the wait (the workflow sleeps it off without spending an
     * attempt); a network that does not answer is retried by the activity's retry policy.
     */
    async publishChannelPost(input: PostRef): Promise<{ externalId: string; externalUrl: string }> {
      return translateErrors(() =>
        withHeartbeats(async () => {
          const scope = activityScope(orm, input);
          const post = await scope.em.findOne(ChannelPost, { id: input.postId }, { populate: ['account'] });
          if (!post) throw new NotFoundError('Post', input.postId);
          if (post.status === 'published' && post.externalId && post.externalUrl) {
            return { externalId: post.externalId, externalUrl: post.externalUrl };
          }
          if (post.status !== 'publishing') throw new ConflictError(`The post is ${post.status}, not being published`);
          const account = post.account.getEntity();
          const context = Context.current();
          // The latest saved progress: a publish run again after a token refresh (`withClient`) resumes from
          // what the first try saved, not from what this attempt started with.
          let progress = post.publishProgress ?? null;
          try {
            // A network's daily allowance (Instagram's 50 posts) is counted from the platform's own rows; the post
            // takes its place before it is sent.
            const rules = channels.adapters.get(account.network).rules;
            await claimAllowance(scope.em, account, rules, post.id, new Date());
            const sent = await channels.access.withClient(scope, account, (client) =>
              client.publish({
                content: contentOf(post),
                recordKey: post.recordKey,
                createdAt: post.firstAttemptAt ?? post.createdAt,
                loadMedia: async (key) => {
                  const stored = await studio.media.get(key);
                  if (!stored) throw new NotFoundError('Media', key);
                  return stored.bytes;
                },
                mediaUrl: (key) => channels.mediaLinks.linkFor(key),
                jpegCopy: (key) => jpegCopyOf(studio.media, key),
                progress,
                // Written before the adapter's next call, so the attempt after a crash resumes from it.
                saveProgress: async (next) => {
                  progress = next;
                  await scope.em
                    .fork()
                    .nativeUpdate(ChannelPost, { id: post.id, status: 'publishing' }, { publishProgress: next });
                },
                heartbeat: () => context.heartbeat(),
              }),
            );
            metrics.channelPost(account.network, 'attempt_sent');
            return sent;
          } catch (error) {
            // Each attempt that did not get through, by why: the workflow waits a rate limit out or retries.
            metrics.channelPost(
              account.network,
              error instanceof RateLimitedError ? 'attempt_rate_limited' : 'attempt_failed',
            );
            if (!(error instanceof RateLimitedError)) throw error;
            throw ApplicationFailure.create({
              type: 'rate_limited',
              message: error.message,
              nonRetryable: true,
              details: [error.details],
            });
          }
        }),
      );
    },

    /** `publishing` → `published`, with the network's id and URL. */
    async recordChannelPostPublished(input: PostRef & { externalId: string; externalUrl: string }): Promise<void> {
      await translateErrors(async () => {
        const scope = activityScope(orm, input);
        const moved = await movePost(scope.em, audit, {
          postId: input.postId,
          to: 'published',
          from: ['publishing'],
          set: { externalId: input.externalId, externalUrl: input.externalUrl, publishedAt: new Date(), error: null },
          actor: actorOf(input),
          details: { jobId: input.jobId, externalId: input.externalId },
        });
        if (moved) metrics.channelPost(moved.post.network, 'published');
      });
    },

    /** The run failed: the post is `failed`, with the error people and agents are shown. */
    async failChannelPost(input: PostRef & { error: { code: string; message: string } }): Promise<void> {
      await translateErrors(async () => {
        const scope = activityScope(orm, input);
        const error: PostError = { ...input.error, at: new Date().toISOString() };
        const moved = await movePost(scope.em, audit, {
          postId: input.postId,
          to: 'failed',
          from: ['scheduled', 'publishing'],
          set: { error },
          actor: actorOf(input),
          details: { jobId: input.jobId, code: input.error.code },
        });
        if (moved) metrics.channelPost(moved.post.network, 'failed');
      });
    },

    /**
     * Off the schedule: back to `draft`, or `failed` with `failure` (its account was disconnected). Returns the
     * post's status afterwards (null when it was no longer scheduled).
     */
    async unscheduleChannelPost(
      input: PostRef & { actor: string; failure: { code: string; message: string } | null },
    ): Promise<string | null> {
      return translateErrors(async () => {
        const scope = activityScope(orm, input);
        const moved = await movePost(
          scope.em,
          audit,
          unscheduling({
            postId: input.postId,
            actor: input.actor,
            failure: input.failure,
            at: new Date(),
            details: { jobId: input.jobId },
          }),
        );
        return moved?.post.status ?? null;
      });
    },

    /** The run's new time, on the row (while the post is still scheduled), audited. */
    async setChannelPostSchedule(input: PostRef & { scheduledAt: string; actor: string }): Promise<void> {
      await translateErrors(async () => {
        const scope = activityScope(orm, input);
        await movePost(scope.em, audit, {
          postId: input.postId,
          to: 'scheduled',
          from: ['scheduled'],
          set: { scheduledAt: new Date(input.scheduledAt) },
          actor: input.actor,
          auditAction: 'channel_post.rescheduled',
          details: { jobId: input.jobId, scheduledAt: input.scheduledAt },
        });
      });
    },

    /** One run of the metrics schedule: every recent post's engagement, account by account. */
    async pullChannelMetrics(input: { maxAgeDays?: number } = {}): Promise<MetricsPullResult> {
      const context = Context.current();
      return pullChannelMetrics({
        orm,
        access: channels.access,
        maxAgeDays: input.maxAgeDays ?? deps.channelMetricsMaxAgeDays,
        onAccount: () => context.heartbeat(),
      });
    },
  };
}
