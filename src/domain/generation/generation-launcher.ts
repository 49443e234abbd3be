/**
 * The request side of a campaign generation: quote, then commit.
 *
 * Without a quote id the call spends nothing and returns a quote. With one: the quote is redeemed (credits
 * reserved under a pre-allocated job id), the campaign moves to `generating` and the generation workflow is
 * started under the campaign's business key. A second start for a campaign whose generation is running
 * returns that job and spends nothing (agents poll, they do not restart). If anything fails after the
 * reservation, the reservation is released before the error reaches the caller.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { runPrepared, timestampOrNull, type PreparedStatement } from '../../db/prepared.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { CampaignsService } from '../campaigns/campaigns.service.ts';
import type { CreditsService } from '../credits/credits.service.ts';
import { generationLines, type GenerationStep } from '../credits/price-list.ts';
import type { QuotesService, QuoteView } from '../credits/quotes.service.ts';
import { toJobView, type JobsService, type JobViewSource, type StartJobRequest } from '../jobs/jobs.service.ts';
import type { JobWorkflowArgs } from '../jobs/workflow-inputs.ts';
import type { Job, JobError, JobProgress } from '../jobs/job.entity.ts';
import type { JobStatus } from '../jobs/job-status.ts';
import { newId } from '../shared/ids.ts';
import type { WorkspaceScope } from '../shared/scope.ts';
import type { GenerationRegenerateInput, GenerationStartInput } from './generation-schemas.ts';
import { stepsFrom, type GenerationService } from './generation.service.ts';

export const GENERATION_KIND = 'campaign_generation';

/** Inside the start's transaction: the campaign already has a job, so this start rolls back. */
class CampaignHasJob extends Error {
  readonly found: { job: Job; reused: boolean };
  readonly campaignId: string;
  constructor(found: { job: Job; reused: boolean }, campaignId: string) {
    super('the campaign already has a job');
    this.found = found;
    this.campaignId = campaignId;
  }
}

/** The generation's status as agents read it (`query_campaigns generation_status`). */
export interface GenerationStatusView {
  jobId: string;
  taskId: string;
  campaignId: string;
  mode: 'start' | 'regenerate';
  /** `complete` when the variants are ready; also queued, in_progress, input_required, cancelling, failed, cancelled. */
  status: 'queued' | 'in_progress' | 'input_required' | 'cancelling' | 'complete' | 'failed' | 'cancelled';
  step: string | null;
  progress: number;
  message: string | null;
  steps: GenerationStep[];
  variantIds: string[];
  creditsCaptured: number | null;
  error: { code: string; message: string } | null;
  createdAt: string;
  finishedAt: string | null;
  /** How often to poll, in milliseconds. */
  pollIntervalMs: number;
}

const STATUS: Record<JobStatus, GenerationStatusView['status']> = {
  queued: 'queued',
  running: 'in_progress',
  input_required: 'input_required',
  cancel_requested: 'cancelling',
  succeeded: 'complete',
  failed: 'failed',
  cancelled: 'cancelled',
};

export function toGenerationStatus(job: JobViewSource & Pick<Job, 'input'>): GenerationStatusView {
  const view = toJobView(job);
  const input = job.input ?? {};
  const result = (view.result ?? {}) as { variantIds?: string[]; creditsCaptured?: number };
  return {
    jobId: view.id,
    taskId: view.taskId,
    campaignId: view.subjectId ?? '',
    mode: (input as { mode?: 'start' | 'regenerate' }).mode ?? 'start',
    status: STATUS[view.status],
    step: view.progress.step ?? null,
    progress: view.progress.fraction,
    message: view.progress.message ?? null,
    steps: ((input as { steps?: GenerationStep[] }).steps ?? []) as GenerationStep[],
    variantIds: result.variantIds ?? [],
    creditsCaptured: typeof result.creditsCaptured === 'number' ? result.creditsCaptured : null,
    error: view.error ?? null,
    createdAt: view.createdAt,
    finishedAt: view.finishedAt,
    pollIntervalMs: 2000,
  };
}

/**
 * `query_campaigns generation_status`, polled by agents every few seconds: whether the campaign is a live one
 * of the workspace ($3) and its latest generation job, in one named statement on a pooled connection. $1 the
 * job kind, $2 the campaign id. `campaign_id` is null when there is no such campaign, `id` when it has never
 * been generated. Read outside any transaction (a poll is read-only), with no EntityManager: the columns are
 * the job view's own.
 */
const GENERATION_STATUS: PreparedStatement = {
  name: 'generation-status',
  text: `select c.id as campaign_id, j.id, j.task_id, j.kind, j.status, j.progress, j.result, j.error, j.subject_id,
                j.input, j.created_at, j.updated_at, j.started_at, j.finished_at, j.cancel_requested_at
           from campaigns c
           left join lateral (
             select * from jobs
              where jobs.workspace_id = c.workspace_id and jobs.kind = $1 and jobs.subject_id = c.id
              order by jobs.created_at desc, jobs.id desc
              limit 1) j on true
          where c.id = $2 and c.workspace_id = $3 and c.deleted_at is null`,
};

interface GenerationStatusRow {
  campaign_id: string;
  id: string | null;
  task_id: string;
  kind: string;
  status: JobStatus;
  progress: JobProgress;
  result: Record<string, unknown> | null;
  error: JobError | null;
  subject_id: string | null;
  input: Record<string, unknown>;
  /** Timestamps arrive as PostgreSQL's text (the ORM's pool keeps them raw) and are parsed as the ORM does. */
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  cancel_requested_at: string | null;
}

function fromStatusRow(row: GenerationStatusRow & { id: string }): JobViewSource & Pick<Job, 'input'> {
  return {
    id: row.id,
    taskId: row.task_id,
    kind: row.kind,
    status: row.status,
    progress: row.progress,
    result: row.result,
    error: row.error,
    subjectId: row.subject_id,
    input: row.input,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    startedAt: timestampOrNull(row.started_at),
    finishedAt: timestampOrNull(row.finished_at),
    cancelRequestedAt: timestampOrNull(row.cancel_requested_at),
  };
}

type GenerationStart = StartJobRequest<'campaignGenerationWorkflow'>;

export type LaunchOutcome =
  | { status: 'quote_required'; quote: QuoteView }
  | { status: 'started' | 'already_running'; job: Job; campaignId: string };

export function createGenerationLauncher(deps: {
  /** Lends the status poll its connection pool, so a poll needs no request EntityManager. */
  orm: MikroORM;
  jobs: JobsService;
  quotes: QuotesService;
  credits: CreditsService;
  campaigns: CampaignsService;
  generation: GenerationService;
}) {
  const { jobs, quotes, credits, campaigns, generation } = deps;

  async function activeGeneration(scope: WorkspaceScope, campaignId: string): Promise<Job | null> {
    const latest = await jobs.latestFor(scope, GENERATION_KIND, campaignId);
    return latest && !['succeeded', 'failed', 'cancelled'].includes(latest.status) ? latest : null;
  }

  /** Releases a reservation made for a job that did not start (or was a duplicate). */
  async function refund(scope: WorkspaceScope, jobId: string) {
    await credits.releaseRemaining(scope.em, {
      workspaceId: scope.workspaceId,
      idempotencyKey: `${jobId}:release`,
      reference: jobId,
      description: 'the job did not start; credits returned',
      actor: scope.actor,
    });
  }

  /**
   * Starts a prepared generation's workflow; when it cannot start, the job's credits are returned and the
   * campaign goes back to where it was before the error is rethrown.
   */
  async function launchOrUndo(scope: WorkspaceScope, job: Job, request: GenerationStart, campaignId: string) {
    try {
      return await jobs.launch(scope, job, request);
    } catch (error) {
      await refund(scope, job.id);
      await generation.endGeneration(scope, { campaignId, outcome: 'failed' });
      throw error;
    }
  }

  async function launch(
    scope: WorkspaceScope,
    input: {
      operation: string;
      args: Record<string, unknown>;
      quoteId: string | undefined;
      mode: 'start' | 'regenerate';
      fromStep: GenerationStep;
      campaignId: string | null;
      /** Creates the campaign already generating (so it needs no `beginGeneration`); returns its id. */
      createCampaign: ((scope: WorkspaceScope) => Promise<string>) | null;
      intent: string;
      includeImages: boolean;
      variantCount: number;
      channels: string[];
      style: string | null;
      sourceJobId: string | null;
    },
  ): Promise<LaunchOutcome> {
    if (input.campaignId) {
      const running = await activeGeneration(scope, input.campaignId);
      if (running) return { status: 'already_running', job: running, campaignId: input.campaignId };
    }
    const lines = generationLines({
      fromStep: input.fromStep,
      includeImages: input.includeImages,
      variantCount: input.variantCount,
    });
    if (!input.quoteId)
      return { status: 'quote_required', quote: await quotes.quote(scope, input.operation, input.args, lines) };

    const jobId = newId('job');
    const request = (campaignId: string): GenerationStart => ({
      jobId,
      kind: GENERATION_KIND,
      workflowType: 'campaignGenerationWorkflow',
      businessKey: campaignId,
      subjectId: campaignId,
      campaignId,
      input: {
        campaignId,
        mode: input.mode,
        fromStep: input.fromStep,
        steps: stepsFrom(input.fromStep, input.includeImages),
        prices: Object.fromEntries(lines.map((line) => [line.step, line.credits])),
        intent: input.intent,
        includeImages: input.includeImages,
        variantCount: input.variantCount,
        channels: input.channels,
        style: input.style,
        sourceJobId: input.sourceJobId,
        actor: scope.actor,
      },
      summary: `${input.mode === 'start' ? 'Generate' : `Regenerate from ${input.fromStep}`} campaign ${campaignId}`,
    });

    // One transaction: the quote is redeemed, the campaign created or moved to `generating`, and the job row
    // written, or none of it happens. An active job found on the campaign rolls it all back: nothing is spent.
    let prepared: { job: Job; campaignId: string };
    try {
      prepared = await scope.em.fork().transactional(async (tx) => {
        const txScope: WorkspaceScope = { ...scope, em: tx };
        await quotes.redeemIn(tx, txScope, {
          quoteId: input.quoteId!,
          operation: input.operation,
          args: input.args,
          reference: jobId,
        });
        let campaignId = input.campaignId;
        if (campaignId) await generation.beginGeneration(txScope, campaignId);
        else campaignId = await input.createCampaign!(txScope);
        const decision = await jobs.prepare(tx, txScope, request(campaignId));
        if (decision.job.id !== jobId) throw new CampaignHasJob(decision, campaignId);
        return { job: decision.job, campaignId };
      });
    } catch (error) {
      if (!(error instanceof CampaignHasJob)) throw error;
      // Running, or left by a starter that died before starting its workflow: that job is launched now, with
      // its own stored input and credits.
      const { found, campaignId } = error;
      const job = found.reused
        ? found.job
        : (
            await launchOrUndo(
              scope,
              found.job,
              // The row was written by an earlier start of this same workflow, with this input type.
              { ...request(campaignId), input: found.job.input as JobWorkflowArgs<'campaignGenerationWorkflow'> },
              campaignId,
            )
          ).job;
      return { status: 'already_running', job, campaignId };
    }

    const { job, reused } = await launchOrUndo(scope, prepared.job, request(prepared.campaignId), prepared.campaignId);
    if (reused) {
      await refund(scope, jobId);
      return { status: 'already_running', job, campaignId: prepared.campaignId };
    }
    return { status: 'started', job, campaignId: prepared.campaignId };
  }

  return {
    activeGeneration,

    /** Starts (or quotes) a generation; `input` was parsed with `GenerationStartSchema` by the caller. */
    async start(scope: WorkspaceScope, input: GenerationStartInput): Promise<LaunchOutcome> {
      const { quoteId, ...args } = input;
      let channels: string[] | undefined = args.channels;
      if (args.campaignId) {
        const campaign = await campaigns.get(scope, args.campaignId);
        if (campaign.status === 'archived')
          throw new ConflictError(
            'The campaign is archived; restore it (update with status "ready") before generating',
          );
        channels ??= campaign.channels;
      } else if (args.productIds?.length) {
        // Fail before quoting when a product is unknown, so a quote never covers a call that cannot run.
        await campaigns.assertProducts(scope, args.productIds);
      }
      return launch(scope, {
        operation: 'generate_campaign.start',
        args,
        quoteId,
        mode: 'start',
        fromStep: 'brief',
        campaignId: args.campaignId ?? null,
        createCampaign: args.campaignId
          ? null
          : async (txScope) =>
              (
                await campaigns.create(
                  txScope,
                  {
                    name: args.name ?? args.intent.slice(0, 80),
                    objective: args.intent,
                    productIds: args.productIds ?? [],
                    channels: args.channels ?? ['web'],
                  },
                  { generating: true },
                )
              ).id,
        intent: args.intent,
        includeImages: args.includeImages ?? true,
        variantCount: args.variantCount ?? 3,
        channels: channels ?? ['web'],
        style: args.style ?? null,
        sourceJobId: null,
      });
    },

    /** Re-runs (or quotes) a generation from a step; `input` was parsed with `GenerationRegenerateSchema`. */
    async regenerate(scope: WorkspaceScope, input: GenerationRegenerateInput): Promise<LaunchOutcome> {
      const { quoteId, ...args } = input;
      const campaign = await campaigns.get(scope, args.campaignId);
      if (campaign.status === 'archived')
        throw new ConflictError('The campaign is archived; restore it before regenerating');
      const previous = await jobs.latestSucceeded(scope, GENERATION_KIND, args.campaignId);
      if (!previous && args.fromStep !== 'brief') {
        throw new ValidationError(
          `The campaign has no completed generation to continue from ${args.fromStep}; use fromStep "brief" or mode "start"`,
        );
      }
      const earlier = (previous?.input ?? {}) as {
        intent?: string;
        includeImages?: boolean;
        variantCount?: number;
        channels?: string[];
      };
      return launch(scope, {
        operation: 'generate_campaign.regenerate',
        args,
        quoteId,
        mode: 'regenerate',
        fromStep: args.fromStep,
        campaignId: args.campaignId,
        createCampaign: null,
        intent: args.intent ?? earlier.intent ?? campaign.objective ?? campaign.name,
        includeImages: args.includeImages ?? earlier.includeImages ?? true,
        variantCount: args.variantCount ?? earlier.variantCount ?? 3,
        channels: args.channels ?? earlier.channels ?? campaign.channels,
        style: args.style ?? null,
        sourceJobId: previous?.id ?? null,
      });
    },

    /**
     * The latest generation of a live campaign of the workspace, null when it was never generated, "not
     * found" for anyone else's or a deleted campaign. Agents poll this every few seconds: one statement reads
     * the campaign's existence and its latest job row together.
     */
    async status(scope: WorkspaceScope, campaignId: string): Promise<GenerationStatusView | null> {
      const [row] = await runPrepared<GenerationStatusRow>(deps.orm, GENERATION_STATUS, [
        GENERATION_KIND,
        campaignId,
        scope.workspaceId,
      ]);
      if (!row) throw new NotFoundError('Campaign', campaignId);
      if (row.id === null) return null;
      return toGenerationStatus(fromStatusRow({ ...row, id: row.id }));
    },
  };
}

export type GenerationLauncher = ReturnType<typeof createGenerationLauncher>;
