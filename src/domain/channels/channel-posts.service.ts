/**
 * Channel posts: drafted, validated, scheduled, published, rescheduled, edited, cancelled, deleted and retried,
 * for every network through its adapter. The service holds the rules; a post's publishing run is a job (a
 * `Job` row and one Temporal workflow, `workflows/channel-post.ts`) that waits for the post's time on a durable
 * timer and publishes it exactly once. Changes to a waiting run (reschedule, publish now, cancel) are Temporal
 * updates the workflow validates, so a post that has started publishing can no longer be moved or cancelled.
 *
 * Validation runs before anything is stored or started: a post the network would refuse is never scheduled,
 * and a dry run (`validate`) changes nothing.
 */
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { Campaign } from '../campaigns/campaign.entity.ts';
import { Variant } from '../campaigns/variant.entity.ts';
import type { JobLauncher } from '../jobs/job-launcher.ts';
import type { Job } from '../jobs/job.entity.ts';
import { isTerminalJobStatus } from '../jobs/job-status.ts';
import type { JobsService } from '../jobs/jobs.service.ts';
import type { ChannelPostInput } from '../jobs/workflow-inputs.ts';
import type { MediaStore } from '../media/media-store.ts';
import { newId } from '../shared/ids.ts';
import {
  afterCursor,
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  ORDER_NEWEST_FIRST,
  toPage,
  type Page,
} from '../shared/pagination.ts';
import { ownedBy, type WorkspaceScope } from '../shared/scope.ts';
import { accountContextOf, type ChannelAccess } from './channel-access.ts';
import { findAccount } from './channel-accounts.service.ts';
import { ChannelAccount } from './channel-account.entity.ts';
import type { PostContent, PostOptions, ValidationIssue, ValidationResult } from './channel-adapter.ts';
import type { ChannelAdapters } from './adapters.ts';
import { NETWORK_NAMES, type ChannelNetwork } from './channel-networks.ts';
import { ChannelPost } from './channel-post.entity.ts';
import { EDITABLE_POST_STATUSES, PENDING_POST_STATUSES, type PostStatus } from './channel-status.ts';
import { ACCOUNT_KIND_NAMES, normaliseMetrics, toPostView, type PostView } from './channel-views.ts';
import { readPostHistory } from './channel-metrics.ts';
import {
  contentOf,
  resolveContent,
  type ContentDeps,
  type PostFieldsInput,
  type PostOptionsInput,
} from './post-content.ts';
import { movePost, movePostOrFail, unscheduling } from './post-rows.ts';
import { dailyAllowance, refuseOverAllowance } from './daily-allowance.ts';

/** The job kind of a network's publishing runs (one kind per network: each belongs to that network's tool). */
export function channelPostKind(network: string): string {
  return `${network}_post`;
}

/** The actions of a channel tool that start a post's publishing run. */
export type PublishingAction = ChannelPostInput['action'];

/** The action that started a publishing run's job (runs started before it was recorded count as publish_now). */
export function publishingActionOf(job: Job): PublishingAction {
  const action = (job.input as Partial<ChannelPostInput>).action;
  return action === 'schedule' || action === 'retry' ? action : 'publish_now';
}

/** The furthest ahead a post can be scheduled. */
const MAX_SCHEDULE_AHEAD_DAYS = 365;
/** A time this close behind now counts as now (clocks and round trips differ a little). */
const PAST_TOLERANCE_MS = 60_000;

export interface ChannelPostsDeps extends ContentDeps {
  adapters: ChannelAdapters;
  access: ChannelAccess;
  jobs: JobsService;
  launcher: JobLauncher;
  audit: AuditService;
  media: Pick<MediaStore, 'get' | 'urlFor'>;
  /** How a publishing run retries a network that does not answer. */
  publishing: { attempts: number; retrySeconds: number };
  now?: () => Date;
}

export interface ListPostsInput {
  accountId?: string;
  status?: PostStatus;
  campaignId?: string;
  cursor?: string;
  limit?: number;
}

/** A dry run's answer: what the network would say, and what the post would be. */
export interface PostValidation extends ValidationResult {
  accountId: string;
  media: { mimeType: string; bytes: number; width: number; height: number; alt: string }[];
  link: PostContent['link'];
}

export interface PostOutcome {
  post: PostView;
  /** The publishing run, when this call started one or changed a waiting one. */
  job: Job | null;
  validation?: PostValidation;
}

export type ChannelPostsService = ReturnType<typeof createChannelPostsService>;

export function createChannelPostsService(deps: ChannelPostsDeps) {
  const now = deps.now ?? (() => new Date());
  const view = (post: ChannelPost) => toPostView(post, (key) => deps.media.urlFor(key));
  const networkName = (network: string) => NETWORK_NAMES[network as ChannelNetwork] ?? network;

  async function findPost(scope: WorkspaceScope, network: string, postId: string): Promise<ChannelPost> {
    const post = await scope.em.findOne(ChannelPost, { id: postId, network }, { populate: ['account'] });
    if (!post) throw new NotFoundError('Post', postId);
    return post;
  }

  /**
   * The network's own fields of a post (`PostOptions`), checked against its adapter's definition: `given`
   * over `previous` (an edit changes only what it names; `null` clears a field). Unknown fields are refused.
   */
  function optionsFor(network: string, given: PostOptionsInput | undefined, previous: PostOptions = {}): PostOptions {
    const merged: Record<string, unknown> = { ...previous };
    for (const [name, value] of Object.entries(given ?? {})) {
      if (value === null) delete merged[name];
      else if (value !== undefined) merged[name] = value;
    }
    const parsed = deps.adapters.get(network).postOptions.strict().safeParse(merged);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => ({
        field: issue.path.length ? issue.path.join('.') : ((issue as { keys?: string[] }).keys ?? []).join(', '),
        message: issue.message,
      }));
      throw new ValidationError(
        `The ${networkName(network)} fields are not valid: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join('; ')}`,
        { issues },
      );
    }
    return parsed.data as PostOptions;
  }

  /** `publish_now` with the account's daily allowance used up (Instagram's 50): refused, naming when it frees. */
  async function refuseWhenAllowanceUsed(scope: WorkspaceScope, account: ChannelAccount): Promise<void> {
    const at = now();
    const rules = deps.adapters.get(account.network).rules;
    refuseOverAllowance(await dailyAllowance(scope.em, account, rules, at), account, at);
  }

  async function reread(scope: WorkspaceScope, postId: string): Promise<ChannelPost> {
    return scope.em.fork().findOneOrFail(ChannelPost, { id: postId }, { populate: ['account'] });
  }

  /** Checks of the platform's own: the account can post, and the attributed link leads to a live page. */
  async function platformIssues(
    scope: WorkspaceScope,
    account: ChannelAccount,
    resolved: { content: PostContent; campaignId: string | null; variantId: string | null },
  ): Promise<ValidationIssue[]> {
    const issues: ValidationIssue[] = [];
    if (account.status === 'disconnected') {
      issues.push({
        field: 'accountId',
        rule: 'account_disconnected',
        message: `The account @${account.handle} is disconnected: a workspace admin connects it again in the dashboard (Channels)`,
      });
    } else if (account.status === 'needs_reconnect') {
      issues.push({
        field: 'accountId',
        rule: 'account_needs_reconnect',
        message: `The account @${account.handle} needs reconnecting (${account.statusReason ?? 'its sign-in was refused'}): a workspace admin reconnects it in the dashboard (Channels)`,
      });
    }
    if (resolved.content.link && resolved.campaignId && resolved.variantId) {
      const campaign = await scope.em.findOne(Campaign, { id: resolved.campaignId });
      const variant = await scope.em.findOne(Variant, { id: resolved.variantId });
      if (campaign?.status !== 'published') {
        issues.push({
          field: 'variantId',
          rule: 'campaign_not_published',
          message: `The post's link leads to the campaign's page, which is not live: publish the campaign first (manage_campaigns publish), or post without the link (includeLink false)`,
        });
      } else if (variant?.status !== 'active' || variant.deletedAt) {
        issues.push({
          field: 'variantId',
          rule: 'variant_not_active',
          message:
            'The variant is paused or deleted, so the brand site does not show it: activate it first, or post without the link',
        });
      }
    }
    return issues;
  }

  /** The network's verdict (with its live checks when the account can sign in) plus the platform's. */
  async function check(
    scope: WorkspaceScope,
    account: ChannelAccount,
    resolved: { content: PostContent; campaignId: string | null; variantId: string | null },
  ): Promise<PostValidation> {
    const adapter = deps.adapters.get(account.network);
    let result: ValidationResult = adapter.validateOffline(resolved.content, accountContextOf(account));
    let current = account;
    if (account.status === 'active') {
      try {
        result = await deps.access.withClient(scope, account, (client) => client.validate(resolved.content));
      } catch (error) {
        // The network's live checks (mentions) are a bonus: without them the offline verdict stands, and says
        // so. The account may have just turned out to need reconnecting: the platform's checks see it.
        if (!(error instanceof AppError)) throw error;
        result = {
          ...result,
          warnings: [
            ...result.warnings,
            {
              field: 'accountId',
              rule: 'network_unchecked',
              message: `${networkName(account.network)} could not be asked: ${error.message}`,
            },
          ],
        };
        current = (await scope.em.fork().findOne(ChannelAccount, { id: account.id })) ?? account;
      }
    }
    const issues = [...result.issues, ...(await platformIssues(scope, current, resolved))];
    const allowance = await dailyAllowance(scope.em, account, adapter.rules, now());
    if (allowance && allowance.used >= allowance.limit) {
      result = {
        ...result,
        warnings: [
          ...result.warnings,
          {
            field: 'accountId',
            rule: 'daily_limit_reached',
            message: `@${account.handle} has published ${allowance.limit} posts through the API in the last 24 hours, ${account.kind ? (ACCOUNT_KIND_NAMES[account.kind] ?? networkName(account.network)) : networkName(account.network)}'s limit: the next can go out at ${allowance.freesAt.toISOString()} (publish_now is refused until then; a post scheduled earlier waits until then)`,
          },
        ],
      };
    }
    return {
      ...result,
      valid: issues.length === 0,
      issues,
      accountId: account.id,
      link: resolved.content.link,
      media: resolved.content.media.map(({ mimeType, bytes, width, height, alt }) => ({
        mimeType,
        bytes,
        width,
        height,
        alt,
      })),
    };
  }

  /** `check` of a stored post, as it stands. */
  function checkStored(scope: WorkspaceScope, post: ChannelPost): Promise<PostValidation> {
    return check(scope, post.account.getEntity(), {
      content: contentOf(post),
      campaignId: post.campaign?.id ?? null,
      variantId: post.variant?.id ?? null,
    });
  }

  function refuse(validation: PostValidation, doing: string): never {
    throw new ValidationError(
      `The post cannot be ${doing}: ${validation.issues.map((issue) => issue.message).join('; ')}`,
      { issues: validation.issues.map(({ field, rule, message }) => ({ field, rule, message })) },
    );
  }

  function parseTime(value: string | Date, field: string): Date {
    const at = value instanceof Date ? value : new Date(value);
    if (Number.isNaN(at.getTime())) {
      throw new ValidationError(`${field} must be an ISO 8601 date-time`, {
        issues: [{ field, message: 'is not a date-time' }],
      });
    }
    const current = now().getTime();
    if (at.getTime() < current - PAST_TOLERANCE_MS) {
      throw new ValidationError(`${field} ${at.toISOString()} is in the past: pick a later time, or publish now`, {
        issues: [{ field, message: 'is in the past' }],
      });
    }
    if (at.getTime() > current + MAX_SCHEDULE_AHEAD_DAYS * 86_400_000) {
      throw new ValidationError(`${field} is more than ${MAX_SCHEDULE_AHEAD_DAYS} days ahead`, {
        issues: [{ field, message: `at most ${MAX_SCHEDULE_AHEAD_DAYS} days ahead` }],
      });
    }
    return at;
  }

  /** A new draft from `fields` (validated offline, stored even when the network would refuse it as it is). */
  async function createDraft(
    scope: WorkspaceScope,
    network: string,
    fields: PostFieldsInput,
    mustBeValid: string | null,
  ): Promise<{ post: ChannelPost; validation: PostValidation }> {
    const account = await findAccount(scope, fields.accountId, network);
    if (account.status === 'disconnected') {
      throw new ConflictError(`The account @${account.handle} is disconnected; connect it again to post with it`);
    }
    const postId = newId('channelPost');
    const resolved = await resolveContent(deps, scope, postId, {
      ...fields,
      options: optionsFor(network, fields.options),
    });
    const validation = await check(scope, account, resolved);
    if (mustBeValid && !validation.valid) refuse(validation, mustBeValid);
    const adapter = deps.adapters.get(network);
    const post = scope.em.create(ChannelPost, {
      id: postId,
      ...ownedBy(scope),
      account,
      network,
      status: 'draft',
      campaign: resolved.campaignId,
      variant: resolved.variantId,
      text: resolved.content.text,
      link: resolved.content.link,
      media: resolved.content.media,
      langs: resolved.content.langs,
      options: resolved.content.options,
      publishProgress: null,
      scheduledAt: null,
      recordKey: adapter.newRecordKey(now()),
      firstAttemptAt: null,
      externalId: null,
      externalUrl: null,
      publishedAt: null,
      attempts: 0,
      error: null,
      metrics: null,
      metricsUpdatedAt: null,
      jobId: null,
      version: 1,
      createdBy: scope.actor,
      deletedAt: null,
    });
    await scope.em.flush();
    await deps.audit.record(scope.em, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'channel_post.draft',
      targetType: 'channel_post',
      targetId: post.id,
      details: { to: 'draft', network, accountId: account.id, variantId: resolved.variantId },
    });
    return { post, validation };
  }

  /**
   * Starts the post's publishing run for `at` (its status moves to `scheduled` first, and back if none starts).
   * `action` is what asked for the run; the job keeps it so that an MCP task of the run resolves to that
   * action's answer.
   */
  async function startRun(
    scope: WorkspaceScope,
    post: ChannelPost,
    at: Date,
    action: PublishingAction,
  ): Promise<PostOutcome> {
    const from = post.status;
    await movePostOrFail(
      scope.em,
      deps.audit,
      {
        postId: post.id,
        to: 'scheduled',
        from: ['draft', 'failed'],
        // A new run starts its multi-step publish afresh (an earlier run's container may have failed or expired);
        // a post the earlier run did get out is found by the adapter's look-up instead.
        set: {
          scheduledAt: at,
          attempts: post.attempts + 1,
          error: null,
          publishProgress: null,
          allowanceClaimedAt: null,
        },
        actor: scope.actor,
        details: { scheduledAt: at.toISOString() },
      },
      (status) => `The post is ${status}; only a draft or a failed post can be scheduled`,
    );
    let job: Job;
    try {
      ({ job } = await deps.jobs.start(scope, {
        kind: channelPostKind(post.network),
        workflowType: 'channelPostWorkflow',
        businessKey: post.id,
        subjectId: post.id,
        input: {
          postId: post.id,
          network: post.network,
          action,
          scheduledAt: at.toISOString(),
          publishAttempts: deps.publishing.attempts,
          publishRetrySeconds: deps.publishing.retrySeconds,
          actor: scope.actor,
        },
        summary: `Publish ${networkName(post.network)} post ${post.id} at ${at.toISOString()}`,
      }));
    } catch (error) {
      await movePost(scope.em, deps.audit, {
        postId: post.id,
        to: from === 'failed' ? 'failed' : 'draft',
        from: ['scheduled'],
        set: {
          scheduledAt: null,
          error: {
            code: 'start_failed',
            message: 'The publishing run could not be started; try again',
            at: now().toISOString(),
          },
        },
        actor: scope.actor,
        details: { reason: 'start_failed' },
      });
      throw error;
    }
    await scope.em.fork().nativeUpdate(ChannelPost, { id: post.id }, { jobId: job.id });
    return { post: view(await reread(scope, post.id)), job };
  }

  /** The open publishing run of a post, or null when it has none (it ended, or never started). */
  async function openRun(scope: WorkspaceScope, post: ChannelPost): Promise<Job | null> {
    if (!post.jobId) return null;
    const job = await deps.jobs.get(scope, post.jobId).catch(() => null);
    return job && !isTerminalJobStatus(job.status) && job.runId ? job : null;
  }

  /** Sends an update to the post's waiting run; `null` when it has no run left to ask. */
  async function askRun<R>(
    scope: WorkspaceScope,
    post: ChannelPost,
    name: 'reschedule' | 'publishNow' | 'cancel',
    arg: Record<string, unknown>,
  ): Promise<{ job: Job; result: R } | null> {
    const job = await openRun(scope, post);
    if (!job) return null;
    const answer = await deps.launcher.update<R>(job.workflowId, job.runId!, name, { ...arg, by: scope.actor });
    if (!answer.accepted) {
      if (answer.reason === 'the job has ended') return null;
      throw new ConflictError(`The post's publishing run refused: ${answer.reason}`);
    }
    return { job, result: answer.result };
  }

  /**
   * Takes a scheduled post off its schedule: back to draft, or to `failed` with `failure` (its account was
   * disconnected). Through its run when it has one, else on the row.
   */
  async function unschedule(
    scope: WorkspaceScope,
    post: ChannelPost,
    failure?: { code: string; message: string },
  ): Promise<Job | null> {
    const asked = await askRun(scope, post, 'cancel', failure ? { failure } : {});
    if (asked) return asked.job;
    await movePostOrFail(
      scope.em,
      deps.audit,
      unscheduling({ postId: post.id, actor: scope.actor, failure: failure ?? null, at: now() }),
      (status) => `The post is ${status}, not scheduled`,
    );
    return null;
  }

  return {
    /** Newest first (one network's, or every network's with `null`); deleted posts only when asked for by status. */
    async list(scope: WorkspaceScope, network: string | null, input: ListPostsInput = {}): Promise<Page<PostView>> {
      const limit = input.limit ?? DEFAULT_PAGE_SIZE;
      // A filter naming an account or campaign that is not there is a mistake to report, not an empty page.
      if (input.accountId) await findAccount(scope, input.accountId, network);
      if (input.campaignId && !(await scope.em.count(Campaign, { id: input.campaignId }))) {
        throw new NotFoundError('Campaign', input.campaignId);
      }
      const rows = await scope.em.find(
        ChannelPost,
        {
          ...(network ? { network } : {}),
          ...(input.accountId ? { account: input.accountId } : {}),
          ...(input.campaignId ? { campaign: input.campaignId } : {}),
          ...(input.status ? { status: input.status } : { status: { $ne: 'deleted' } }),
          ...afterCursor(decodeCursor(input.cursor)),
        },
        { orderBy: ORDER_NEWEST_FIRST, limit: limit + 1 },
      );
      return toPage(rows, limit, view);
    },

    async get(scope: WorkspaceScope, network: string, postId: string): Promise<PostView> {
      return view(await findPost(scope, network, postId));
    },

    /** The row itself, for edges that render more than the view (the dashboard's account names). */
    findPost,

    /** A dry run: the post as it would be published and every reason it would be refused. Changes nothing. */
    async validate(
      scope: WorkspaceScope,
      network: string,
      input: { postId: string } | PostFieldsInput,
    ): Promise<PostValidation> {
      if ('postId' in input && input.postId) {
        const post = await findPost(scope, network, input.postId);
        return checkStored(scope, post);
      }
      const fields = input as PostFieldsInput;
      const account = await findAccount(scope, fields.accountId, network);
      return check(
        scope,
        account,
        await resolveContent(deps, scope, newId('channelPost'), {
          ...fields,
          options: optionsFor(network, fields.options),
        }),
      );
    },

    /** A post's engagement: its totals as last pulled, its daily snapshots, its link's visits and conversions. */
    async metrics(scope: WorkspaceScope, network: string, postId: string) {
      const post = await findPost(scope, network, postId);
      const history = await readPostHistory(scope, post.id);
      return {
        postId: post.id,
        totals: post.metrics ? normaliseMetrics(post.metrics) : null,
        measuredAt: post.metricsUpdatedAt?.toISOString() ?? null,
        ...history,
      };
    },

    /** Stores a draft; its validation is returned with it (a draft may still be incomplete). */
    async draft(scope: WorkspaceScope, network: string, fields: PostFieldsInput): Promise<PostOutcome> {
      const { post, validation } = await createDraft(scope, network, fields, null);
      return { post: view(await reread(scope, post.id)), job: null, validation };
    },

    /**
     * Schedules a draft or failed post (`postId`), or a new one made from `fields`, for `scheduledAt`. The post
     * must pass validation; the answer carries the publishing run's job.
     */
    async schedule(
      scope: WorkspaceScope,
      network: string,
      input: { postId?: string; scheduledAt: string; fields?: PostFieldsInput },
    ): Promise<PostOutcome> {
      const at = parseTime(input.scheduledAt, 'scheduledAt');
      if (input.postId) {
        const post = await findPost(scope, network, input.postId);
        if (post.status === 'scheduled') {
          throw new ConflictError('The post is already scheduled: use reschedule to move it', { status: post.status });
        }
        const validation = await checkStored(scope, post);
        if (!validation.valid) refuse(validation, 'scheduled');
        return { ...(await startRun(scope, post, at, 'schedule')), validation };
      }
      if (!input.fields) throw new ValidationError('Name the post (postId), or give its content and accountId');
      const { post, validation } = await createDraft(scope, network, input.fields, 'scheduled');
      return { ...(await startRun(scope, post, at, 'schedule')), validation };
    },

    /** Publishes now: a draft or failed post, a new one, or a scheduled one ahead of its time. */
    async publishNow(
      scope: WorkspaceScope,
      network: string,
      input: { postId?: string; fields?: PostFieldsInput },
    ): Promise<PostOutcome> {
      if (input.postId) {
        const post = await findPost(scope, network, input.postId);
        if (post.status === 'scheduled') {
          const asked = await askRun(scope, post, 'publishNow', {});
          if (asked) return { post: view(await reread(scope, post.id)), job: asked.job };
        }
        const validation = await checkStored(scope, post);
        if (!validation.valid) refuse(validation, 'published');
        await refuseWhenAllowanceUsed(scope, post.account.getEntity());
        return { ...(await startRun(scope, post, now(), 'publish_now')), validation };
      }
      if (!input.fields) throw new ValidationError('Name the post (postId), or give its content and accountId');
      await refuseWhenAllowanceUsed(scope, await findAccount(scope, input.fields.accountId, network));
      const { post, validation } = await createDraft(scope, network, input.fields, 'published');
      return { ...(await startRun(scope, post, now(), 'publish_now')), validation };
    },

    /** Moves a scheduled post to another time (its waiting run takes the new time). */
    async reschedule(
      scope: WorkspaceScope,
      network: string,
      input: { postId: string; scheduledAt: string },
    ): Promise<PostOutcome> {
      const at = parseTime(input.scheduledAt, 'scheduledAt');
      const post = await findPost(scope, network, input.postId);
      if (post.status !== 'scheduled') {
        throw new ConflictError(`The post is ${post.status}; only a scheduled post can be rescheduled`, {
          status: post.status,
        });
      }
      const asked = await askRun(scope, post, 'reschedule', { scheduledAt: at.toISOString() });
      if (!asked) throw new ConflictError('The post has no waiting publishing run; cancel it and schedule it again');
      return { post: view(await reread(scope, post.id)), job: asked.job };
    },

    /**
     * Changes a draft, scheduled or failed post's content. A scheduled post must stay valid (its run publishes
     * what the row says at its time). `expectedVersion` refuses an edit based on an older read.
     */
    async update(
      scope: WorkspaceScope,
      network: string,
      input: Omit<PostFieldsInput, 'accountId'> & { postId: string; expectedVersion?: number },
    ): Promise<PostOutcome> {
      const post = await findPost(scope, network, input.postId);
      const adapter = deps.adapters.get(network);
      if (!EDITABLE_POST_STATUSES.includes(post.status)) {
        const why =
          post.status === 'published' && !adapter.rules.editPublished
            ? `${networkName(network)} does not allow editing a published post: delete it and publish a new one`
            : `a ${post.status} post cannot be edited`;
        throw new ConflictError(`The post is ${post.status}: ${why}`, { status: post.status });
      }
      if (input.expectedVersion !== undefined && input.expectedVersion !== post.version) {
        throw new ConflictError(
          `The post changed since you read it (version ${post.version}, not ${input.expectedVersion}): read it again and redo the edit`,
          { version: post.version },
        );
      }
      const { postId: _postId, expectedVersion: _expected, ...changes } = input;
      const resolved = await resolveContent(
        deps,
        scope,
        post.id,
        { ...changes, options: optionsFor(network, changes.options, post.options) },
        {
          content: contentOf(post),
          variantId: post.variant?.id ?? null,
        },
      );
      const validation = await check(scope, post.account.getEntity(), resolved);
      if (post.status === 'scheduled' && !validation.valid) refuse(validation, 'changed while it is scheduled');
      const changed = await scope.em.fork().nativeUpdate(
        ChannelPost,
        { id: post.id, version: post.version, status: { $in: [...EDITABLE_POST_STATUSES] } },
        {
          text: resolved.content.text,
          link: resolved.content.link,
          media: resolved.content.media,
          langs: resolved.content.langs,
          options: resolved.content.options,
          campaign: resolved.campaignId,
          variant: resolved.variantId,
          version: post.version + 1,
          updatedAt: now(),
        },
      );
      if (changed !== 1) {
        throw new ConflictError('The post changed while it was being edited (it may be publishing now): read it again');
      }
      await deps.audit.record(scope.em, {
        workspaceId: scope.workspaceId,
        actor: scope.actor,
        action: 'channel_post.update',
        targetType: 'channel_post',
        targetId: post.id,
        details: { network, status: post.status, version: post.version + 1 },
      });
      return { post: view(await reread(scope, post.id)), job: null, validation };
    },

    /** Takes a scheduled post off its schedule, back to draft. */
    async cancel(scope: WorkspaceScope, network: string, postId: string): Promise<PostOutcome> {
      const post = await findPost(scope, network, postId);
      if (post.status !== 'scheduled') {
        throw new ConflictError(`The post is ${post.status}; only a scheduled post can be cancelled`, {
          status: post.status,
        });
      }
      const job = await unschedule(scope, post);
      return { post: view(await reread(scope, post.id)), job };
    },

    /**
     * Deletes a post: a published one on the network first (then here), a scheduled one off its schedule first.
     * A post being published cannot be deleted until it is. Deleting a deleted post changes nothing.
     */
    async remove(scope: WorkspaceScope, network: string, postId: string): Promise<PostOutcome> {
      const post = await findPost(scope, network, postId);
      if (post.status === 'deleted') return { post: view(post), job: null };
      if (post.status === 'publishing') {
        throw new ConflictError('The post is being published right now; delete it once it is published', {
          status: post.status,
        });
      }
      if (post.status === 'published' && deps.adapters.get(network).rules.deletePublished === false) {
        throw new ConflictError(
          `${networkName(network)}'s API cannot delete a published post: delete it in the ${networkName(network)} app (@${post.account.getEntity().handle}). The platform keeps it as published, with its metrics.`,
          { status: post.status },
        );
      }
      if (post.status === 'scheduled') await unschedule(scope, post);
      if (post.status === 'published' && post.externalId) {
        await deps.access.withClient(scope, post.account.getEntity(), (client) => client.remove(post.externalId!));
      }
      await movePostOrFail(
        scope.em,
        deps.audit,
        {
          postId: post.id,
          to: 'deleted',
          set: { deletedAt: now() },
          actor: scope.actor,
          details: post.externalId ? { externalId: post.externalId, deletedOnNetwork: true } : {},
        },
        (status) => `The post is ${status} and cannot be deleted now`,
      );
      return { post: view(await reread(scope, post.id)), job: null };
    },

    /** Publishes a failed post again, now or at `scheduledAt` (under the same record key: still one post). */
    async retry(
      scope: WorkspaceScope,
      network: string,
      input: { postId: string; scheduledAt?: string },
    ): Promise<PostOutcome> {
      const post = await findPost(scope, network, input.postId);
      if (post.status !== 'failed') {
        throw new ConflictError(`The post is ${post.status}; only a failed post can be retried`, {
          status: post.status,
        });
      }
      const at = input.scheduledAt ? parseTime(input.scheduledAt, 'scheduledAt') : now();
      const validation = await checkStored(scope, post);
      if (!validation.valid) refuse(validation, 'retried');
      return { ...(await startRun(scope, post, at, 'retry')), validation };
    },

    /**
     * Stops every scheduled post of an account (it is being disconnected): each fails with `reason`, so the
     * person sees why it did not go out and can retry it once the account is back. Posts already publishing
     * cannot be stopped; they are named.
     */
    async stopPending(
      scope: WorkspaceScope,
      accountId: string,
      reason: { code: string; message: string },
    ): Promise<{ stopped: string[]; publishing: string[] }> {
      const pending = await scope.em.find(
        ChannelPost,
        { account: accountId, status: { $in: [...PENDING_POST_STATUSES] } },
        { populate: ['account'] },
      );
      const stopped: string[] = [];
      const publishing: string[] = [];
      for (const post of pending) {
        if (post.status === 'publishing') {
          publishing.push(post.id);
          continue;
        }
        try {
          await unschedule(scope, post, reason);
          stopped.push(post.id);
        } catch (error) {
          // It started publishing in the meantime: it goes out (or fails on the disconnected account).
          if (!(error instanceof ConflictError)) throw error;
          publishing.push(post.id);
        }
      }
      return { stopped, publishing };
    },

    view,
  };
}
