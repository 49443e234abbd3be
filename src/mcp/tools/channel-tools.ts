/**
 * The channel tools, generated per network from one definition: `query_<network>` (read-only: accounts, posts,
 * a post, its metrics, the remaining budget) and `manage_<network>` (validate, draft, schedule, publish_now,
 * reschedule, update, cancel, delete, retry). A network is an adapter (`domain/channels/`), not a copy of these
 * tools: its name, rules and measures come from its definition.
 *
 * Accounts are connected by a person in the dashboard; no tool connects one.
 */
import { z } from 'zod';
import { CHANNEL_METRICS, NETWORK_NAMES, type ChannelNetwork } from '../../domain/channels/channel-networks.ts';
import { POST_STATUSES, ACCOUNT_STATUSES } from '../../domain/channels/channel-status.ts';
import type { PostView } from '../../domain/channels/channel-views.ts';
import {
  channelPostKind,
  publishingActionOf,
  type PostOutcome,
  type PostValidation,
} from '../../domain/channels/channel-posts.service.ts';
import { NETWORK_POST_OPTIONS, NETWORK_RULES } from '../../domain/channels/network-rules.ts';
import { PostFields } from '../../domain/channels/post-content.ts';
import { IsoDateTime } from '../../domain/shared/schemas.ts';
import { count } from '../../views/count.ts';
import { channelToolNames } from '../channel-tool-names.ts';
import { defineAction, defineTool, type ToolDefinition, type ToolOutput } from '../define-tool.ts';
import {
  ChannelAccountOut,
  ChannelMetricsOut,
  ChannelPostOut,
  Ids,
  NextCursor,
  Paging,
  PostValidationOut,
  WorkspaceEcho,
} from '../schemas.ts';

const clip = (text: string, length = 80) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

function describePost(post: PostView): string {
  const when =
    post.status === 'scheduled'
      ? ` for ${post.scheduledAt}`
      : post.status === 'published'
        ? ` at ${post.publishedAt}: ${post.externalUrl}`
        : post.status === 'failed' && post.error
          ? ` (${post.error.code}: ${post.error.message})`
          : '';
  const metrics = post.metrics
    ? `; ${CHANNEL_METRICS.filter((name) => post.metrics![name] !== null)
        .map((name) => `${post.metrics![name]} ${name}`)
        .join(', ')}`
    : '';
  const ratio =
    typeof post.metrics?.upvoteRatio === 'number' ? `, ${Math.round(post.metrics.upvoteRatio * 100)}% upvoted` : '';
  const removed = post.removedBy
    ? ` It was removed on the network (by ${post.removedBy}): people no longer see it.`
    : '';
  return `Post ${post.id} is ${post.status}${when}: "${clip(post.text.replace(/\s+/g, ' '))}"${post.media.length ? ` with ${count(post.media.length, post.media.some((item) => item.mimeType.startsWith('video/')) ? 'video' : 'image')}` : ''}${metrics}${ratio}.${removed}`;
}

function describeValidation(validation: PostValidation): string {
  const head = validation.valid
    ? `Valid: ${validation.preview.length}/${validation.preview.limit} ${validation.preview.unit}.`
    : `Not valid (${count(validation.issues.length, 'issue')}): ${validation.issues.map((issue) => `${issue.field}: ${issue.message}`).join('; ')}.`;
  const warnings = validation.warnings.length
    ? ` Warnings: ${validation.warnings.map((warning) => warning.message).join('; ')}.`
    : '';
  return `${head}${warnings}`;
}

export function createChannelTools(network: ChannelNetwork): [ToolDefinition, ToolDefinition] {
  const networkName = NETWORK_NAMES[network];
  const rules = NETWORK_RULES[network];
  const names = channelToolNames(network);
  const kind = channelPostKind(network);
  const unknownMeasures = CHANNEL_METRICS.filter((name) => !rules.metrics.includes(name));

  const answer = (action: string, outcome: PostOutcome, lead: string): ToolOutput => ({
    structured: {
      action,
      post: outcome.post,
      ...(outcome.validation ? { validation: outcome.validation } : {}),
    },
    text: `${lead} ${describePost(outcome.post)}${
      outcome.job && !['published', 'failed'].includes(outcome.post.status)
        ? ` Follow it with ${names.read} get_post (job ${outcome.job.id}).`
        : ''
    }`,
    ...(outcome.job ? { job: outcome.job } : {}),
  });

  // --- query_<network> -------------------------------------------------------------------------------
  const readActions = ['accounts', 'posts', 'get_post', 'metrics', 'quota'] as const;
  const read = defineTool({
    name: names.read,
    toolset: 'channels',
    description: [
      `Read the workspace's connected ${networkName} accounts and their posts: status (draft, scheduled, publishing,`,
      'published, failed, deleted), why a post failed, where it was published, its engagement, and the network’s',
      `remaining rate budget. Read-only and free. ${networkName} reports ${rules.metrics.join(', ')}`,
      unknownMeasures.length ? `; ${unknownMeasures.join(' and ')} are unknown (null), never 0.` : '.',
      'Accounts are connected by a person in the dashboard (Channels), never by an agent: if none is connected, say so.',
    ].join(' '),
    annotations: {
      title: `Query ${networkName}`,
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    selector: 'action',
    input: z.object({
      action: z.enum(readActions).describe(readActions.join(' | ')),
      accountId: Ids.channelAccount.optional().describe('posts, quota: only this account.'),
      postId: Ids.channelPost.optional().describe('get_post, metrics (required).'),
      status: z
        .enum(POST_STATUSES)
        .optional()
        .describe('posts: only posts in this status (deleted ones only when asked).'),
      accountStatus: z.enum(ACCOUNT_STATUSES).optional().describe('accounts: only accounts in this status.'),
      campaignId: Ids.campaign.optional().describe('posts: only posts made from this campaign.'),
      ...Paging,
    }),
    output: z.looseObject({
      action: z.enum(readActions),
      accounts: z.array(ChannelAccountOut).optional(),
      posts: z.array(ChannelPostOut).optional(),
      post: ChannelPostOut.optional(),
      metrics: z
        .looseObject({
          totals: ChannelMetricsOut.nullable(),
          measuredAt: z.string().nullable(),
          daily: z.array(z.looseObject({ day: z.string() })),
          clicks: z.number(),
          conversions: z.number(),
        })
        .optional(),
      quotas: z.array(z.looseObject({ accountId: z.string(), handle: z.string() })).optional(),
      nextCursor: NextCursor,
    }),
    actions: {
      accounts: defineAction({
        summary: `connected ${networkName} accounts: handle, status (active, needs_reconnect, disconnected) and why, who connected it, last successful call.`,
        permission: 'workspace:read',
        input: z.object({
          action: z.literal('accounts'),
          accountStatus: z.enum(ACCOUNT_STATUSES).optional(),
          ...Paging,
        }),
        async run(ctx, args) {
          const page = await ctx.services.channelAccounts.list(ctx.scope, {
            network,
            status: args.accountStatus,
            cursor: args.cursor,
            limit: args.limit,
          });
          return {
            structured: { action: 'accounts', accounts: page.items, nextCursor: page.nextCursor },
            text: page.items.length
              ? page.items
                  .map(
                    (account) =>
                      `@${account.handle} (${account.id}): ${account.status}${account.statusReason ? ` — ${account.statusReason}` : ''}`,
                  )
                  .join('\n')
              : `No ${networkName} account is connected. A workspace admin connects one in the dashboard (Channels).`,
          };
        },
      }),
      posts: defineAction({
        summary: 'posts newest first; filters accountId, status, campaignId; cursor paging.',
        permission: 'workspace:read',
        input: z.object({
          action: z.literal('posts'),
          accountId: Ids.channelAccount.optional(),
          status: z.enum(POST_STATUSES).optional(),
          campaignId: Ids.campaign.optional(),
          ...Paging,
        }),
        async run(ctx, args) {
          const { action: _action, ...filters } = args;
          const page = await ctx.services.channelPosts.list(ctx.scope, network, filters);
          return {
            structured: { action: 'posts', posts: page.items, nextCursor: page.nextCursor },
            text: page.items.length ? page.items.map(describePost).join('\n') : 'No posts.',
          };
        },
      }),
      get_post: defineAction({
        summary: 'one post: text, link, images, status, error, where it was published, engagement.',
        permission: 'workspace:read',
        input: z.object({ action: z.literal('get_post'), postId: Ids.channelPost }),
        async run(ctx, args) {
          const post = await ctx.services.channelPosts.get(ctx.scope, network, args.postId);
          return { structured: { action: 'get_post', post }, text: describePost(post) };
        },
      }),
      metrics: defineAction({
        summary: `a published post's engagement: totals as last pulled, one snapshot per day, visits through its link and conversions.`,
        permission: 'workspace:read',
        input: z.object({ action: z.literal('metrics'), postId: Ids.channelPost }),
        async run(ctx, args) {
          const metrics = await ctx.services.channelPosts.metrics(ctx.scope, network, args.postId);
          return {
            structured: { action: 'metrics', metrics },
            text: metrics.totals
              ? `As of ${metrics.measuredAt}: ${CHANNEL_METRICS.map((name) => `${name} ${metrics.totals![name] ?? 'unknown'}`).join(', ')}; ${metrics.clicks} visits through its link, ${metrics.conversions} conversions.`
              : `Not measured yet (metrics are pulled every few minutes after publishing); ${metrics.clicks} visits through its link.`,
          };
        },
      }),
      quota: defineAction({
        summary: `the ${networkName} rate budget each account has left, as the network last reported it with its answers.`,
        permission: 'workspace:read',
        input: z.object({ action: z.literal('quota'), accountId: Ids.channelAccount.optional() }),
        async run(ctx, args) {
          const accounts = args.accountId
            ? [await ctx.services.channelAccounts.get(ctx.scope, args.accountId, network)]
            : (await ctx.services.channelAccounts.list(ctx.scope, { network, status: 'active', limit: 100 })).items;
          const quotas = accounts.map((account) => ({
            accountId: account.id,
            handle: account.handle,
            quota: account.quota,
          }));
          return {
            structured: { action: 'quota', quotas },
            text: quotas.length
              ? quotas
                  .map((entry) =>
                    entry.quota
                      ? `@${entry.handle}: ${entry.quota.remaining} of ${entry.quota.limit} left until ${entry.quota.resetAt} (as of ${entry.quota.observedAt})`
                      : `@${entry.handle}: no budget reported yet (the network reports it with each call)`,
                  )
                  .join('\n')
              : `No active ${networkName} account.`,
          };
        },
      }),
    },
  });

  // --- manage_<network> ------------------------------------------------------------------------------
  const writeActions = [
    'validate',
    'draft',
    'schedule',
    'publish_now',
    'reschedule',
    'update',
    'cancel',
    'delete',
    'retry',
  ] as const;
  const fields = PostFields.shape;
  // The network's own fields (a subreddit and flair, a privacy level, …) are top-level arguments like the rest
  // (flat schemas), gathered into the post's `options` before the service sees them.
  const optionShape = NETWORK_POST_OPTIONS[network].shape as Record<string, z.ZodType>;
  const optionNames = Object.keys(optionShape);
  const video = rules.maxVideos > 0 ? { videoJobId: fields.videoJobId } : {};
  const content = {
    variantId: fields.variantId,
    text: fields.text,
    includeLink: fields.includeLink,
    imageJobIds: fields.imageJobIds,
    ...video,
    useVariantImages: fields.useVariantImages,
    altTexts: fields.altTexts,
    langs: fields.langs,
    ...optionShape,
  };
  /** The arguments with the network's own fields moved into `options`. */
  const gatherOptions = <T extends Record<string, unknown>>(args: T): T => {
    const options: Record<string, unknown> = {};
    const rest: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(args)) {
      if (optionNames.includes(name)) {
        if (value !== undefined) options[name] = value;
      } else rest[name] = value;
    }
    return (Object.keys(options).length ? { ...rest, options } : rest) as T;
  };
  const newPost = { accountId: fields.accountId.optional(), ...content };
  /** A post named by id, or a new one from its content and account: never both. */
  const targetRule = (
    args: { postId?: string; accountId?: string } & Record<string, unknown>,
    ctx: z.RefinementCtx,
  ) => {
    if (args.postId && args.accountId) {
      ctx.addIssue({
        code: 'custom',
        path: ['accountId'],
        message: 'give postId (an existing post) or accountId (a new one), not both',
      });
    }
    if (!args.postId && !args.accountId) {
      ctx.addIssue({
        code: 'custom',
        path: ['postId'],
        message: 'name the post (postId), or give accountId and the content of a new one',
      });
    }
    if (args.postId && Object.keys(content).some((key) => args[key] !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['postId'], message: 'change an existing post with action update first' });
    }
  };
  const splitTarget = <T extends { postId?: string; accountId?: string }>(args: T) => {
    const { postId, ...rest } = args as T & Record<string, unknown>;
    return postId ? { postId } : { fields: gatherOptions(rest) as unknown as z.input<typeof PostFields> };
  };
  const scheduledAt = IsoDateTime.describe('When to publish (ISO 8601 with offset).');

  const write = defineTool({
    name: names.write,
    toolset: 'channels',
    description: [
      `Post to ${networkName} from a connected account. A post is written directly (text) or made from a campaign`,
      'variant (variantId): its social caption and hashtags, else headline and body; an attributed link to the',
      "campaign's brand page (so visits and conversions count for the post); its images, or still renders",
      `(imageJobIds from render_video still)${rules.maxVideos > 0 ? ', or a video render (videoJobId)' : ''}.`,
      `${networkName}: at most ${rules.textLimit.toLocaleString('en-US')} ${rules.textUnit} with the link;`,
      rules.maxImages > 0
        ? `${count(rules.maxImages, 'image')} of at most ${rules.maxImageBytes.toLocaleString('en-US')} bytes each${rules.altTextLimit > 0 ? ', alt text for every image' : ''}.`
        : 'no images.',
      'Validate first (a dry run that changes nothing) and fix every issue it names. ASK THE USER TO CONFIRM before',
      'schedule, publish_now and retry (they put content on a public network under the brand’s name) and before',
      rules.deletePublished === false
        ? `delete (of a post not yet published; ${networkName}'s API cannot delete a published one). Scheduling and publishing run as a`
        : `delete (a published post is deleted on ${networkName} too; it cannot be undone). Scheduling and publishing run as a`,
      `job with a task handle; follow it with ${names.read} get_post.`,
      rules.editPublished ? '' : `${networkName} does not allow editing a published post: delete it and post again.`,
      rules.guidance ?? '',
    ]
      .filter(Boolean)
      .join(' '),
    annotations: {
      title: `Manage ${networkName}`,
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    },
    selector: 'action',
    input: z.object({
      action: z.enum(writeActions).describe(writeActions.join(' | ')),
      postId: Ids.channelPost
        .optional()
        .describe(
          'reschedule, update, cancel, delete, retry (required); validate, schedule, publish_now: an existing post.',
        ),
      accountId: Ids.channelAccount
        .optional()
        .describe(
          `draft (required); validate, schedule, publish_now: the account of a new post (see ${names.read} accounts).`,
        ),
      variantId: fields.variantId.describe('Make the post from this campaign variant (its copy, link and images).'),
      text: fields.text.describe(
        `The post's text (without the link, which is added). Required unless variantId is given.`,
      ),
      includeLink: fields.includeLink.describe("Add the variant's attributed link (default true with variantId)."),
      imageJobIds: fields.imageJobIds.describe('Still renders (render_video still) to attach, in order (job ids).'),
      ...(rules.maxVideos > 0
        ? {
            videoJobId: fields.videoJobId.describe(
              'A video render (render_video video or campaign, job id) to post instead of images.',
            ),
          }
        : {}),
      useVariantImages: fields.useVariantImages.describe(
        "Attach the variant's stored images (default true with variantId and no imageJobIds).",
      ),
      altTexts: fields.altTexts.describe('Alt text per image, in order (defaults describe the image).'),
      langs: fields.langs.describe('Languages of the text (BCP 47, e.g. ["en"]).'),
      ...optionShape,
      scheduledAt: scheduledAt
        .optional()
        .describe('schedule (required), reschedule (required), retry (optional: default now).'),
      expectedVersion: z
        .number()
        .int()
        .min(1)
        .optional()
        .describe("update: the post's version as you read it; refused if it changed since."),
    }),
    output: z.looseObject({
      action: z.enum(writeActions),
      post: ChannelPostOut.optional(),
      validation: PostValidationOut.optional(),
      workspace: WorkspaceEcho.optional(),
    }),
    jobResult: {
      kinds: [kind],
      async build(ctx, job) {
        const post = await ctx.services.channelPosts.get(ctx.scope, network, job.subjectId ?? '');
        return {
          structured: { action: publishingActionOf(job), post },
          text: describePost(post),
        };
      },
    },
    actions: {
      validate: defineAction({
        summary:
          'dry run: the post as it would be published (text with link, facets, length) and every issue; changes nothing.',
        permission: 'workspace:read',
        input: z
          .object({ action: z.literal('validate'), postId: Ids.channelPost.optional(), ...newPost })
          .superRefine(targetRule),
        async run(ctx, { action: _action, ...args }) {
          const validation = await ctx.services.channelPosts.validate(ctx.scope, network, gatherOptions(args) as never);
          return { structured: { action: 'validate', validation }, text: describeValidation(validation) };
        },
      }),
      draft: defineAction({
        summary: 'store a draft (accountId; text or variantId); returns it with its validation.',
        permission: 'content:write',
        input: z.object({ action: z.literal('draft'), accountId: fields.accountId, ...content }),
        async run(ctx, { action: _action, ...fields }) {
          const outcome = await ctx.services.channelPosts.draft(ctx.scope, network, gatherOptions(fields) as never);
          return answer(
            'draft',
            outcome,
            outcome.validation?.valid ? 'Draft saved.' : `Draft saved; ${describeValidation(outcome.validation!)}`,
          );
        },
      }),
      schedule: defineAction({
        summary:
          'schedule a draft or failed post (postId), or a new one, for scheduledAt; it must be valid. Confirm first.',
        permission: 'content:write',
        input: z
          .object({ action: z.literal('schedule'), postId: Ids.channelPost.optional(), scheduledAt, ...newPost })
          .superRefine(targetRule),
        async run(ctx, { action: _action, scheduledAt: at, ...args }) {
          const outcome = await ctx.services.channelPosts.schedule(ctx.scope, network, {
            scheduledAt: at,
            ...splitTarget(args),
          });
          return answer('schedule', outcome, 'Scheduled.');
        },
      }),
      publish_now: defineAction({
        summary: 'publish a draft, failed or scheduled post (postId), or a new one, now. Confirm first.',
        permission: 'content:write',
        input: z
          .object({ action: z.literal('publish_now'), postId: Ids.channelPost.optional(), ...newPost })
          .superRefine(targetRule),
        async run(ctx, { action: _action, ...args }) {
          const outcome = await ctx.services.channelPosts.publishNow(ctx.scope, network, splitTarget(args));
          return answer('publish_now', outcome, 'Publishing.');
        },
      }),
      reschedule: defineAction({
        summary: 'move a scheduled post to scheduledAt (refused once it is being published).',
        permission: 'content:write',
        input: z.object({ action: z.literal('reschedule'), postId: Ids.channelPost, scheduledAt }),
        async run(ctx, args) {
          const outcome = await ctx.services.channelPosts.reschedule(ctx.scope, network, args);
          return answer('reschedule', outcome, 'Rescheduled.');
        },
      }),
      update: defineAction({
        summary: `change a draft, scheduled or failed post's content (text, variantId, images, includeLink, langs${optionNames.length ? `, ${optionNames.join(', ')}` : ''}); optional expectedVersion.`,
        permission: 'content:write',
        input: z.object({
          action: z.literal('update'),
          postId: Ids.channelPost,
          expectedVersion: z.number().int().min(1).optional(),
          ...content,
        }),
        async run(ctx, { action: _action, ...args }) {
          const outcome = await ctx.services.channelPosts.update(ctx.scope, network, gatherOptions(args) as never);
          return answer(
            'update',
            outcome,
            outcome.validation?.valid ? 'Updated.' : `Updated; ${describeValidation(outcome.validation!)}`,
          );
        },
      }),
      cancel: defineAction({
        summary: 'take a scheduled post off its schedule, back to draft (refused once it is being published).',
        permission: 'content:write',
        input: z.object({ action: z.literal('cancel'), postId: Ids.channelPost }),
        async run(ctx, args) {
          return answer(
            'cancel',
            await ctx.services.channelPosts.cancel(ctx.scope, network, args.postId),
            'Cancelled.',
          );
        },
      }),
      delete: defineAction({
        summary: `delete a post; a published one is deleted on ${networkName} too (cannot be undone). Confirm first.`,
        permission: 'content:write',
        input: z.object({ action: z.literal('delete'), postId: Ids.channelPost }),
        async run(ctx, args) {
          return answer('delete', await ctx.services.channelPosts.remove(ctx.scope, network, args.postId), 'Deleted.');
        },
      }),
      retry: defineAction({
        summary: 'publish a failed post again, now or at scheduledAt (still one post on the network). Confirm first.',
        permission: 'content:write',
        input: z.object({ action: z.literal('retry'), postId: Ids.channelPost, scheduledAt: scheduledAt.optional() }),
        async run(ctx, args) {
          return answer('retry', await ctx.services.channelPosts.retry(ctx.scope, network, args), 'Retrying.');
        },
      }),
    },
  });

  return [read, write];
}
