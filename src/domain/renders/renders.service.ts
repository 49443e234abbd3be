/**
 * The request side of renders: validate what to render, quote it, and on a redeemed quote start the render
 * workflow (each render is its own job). Progress reads come from the job row.
 */
import { z } from 'zod';
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { CampaignsService } from '../campaigns/campaigns.service.ts';
import { CampaignId, VariantId } from '../shared/schemas.ts';
import { Variant } from '../campaigns/variant.entity.ts';
import type { CreditsService } from '../credits/credits.service.ts';
import { renderLines } from '../credits/price-list.ts';
import type { QuotesService, QuoteView } from '../credits/quotes.service.ts';
import type { Job } from '../jobs/job.entity.ts';
import type { JobStatus } from '../jobs/job-status.ts';
import { toJobView, type JobsService } from '../jobs/jobs.service.ts';
import { newId } from '../shared/ids.ts';
import type { WorkspaceScope } from '../shared/scope.ts';
import { parseInput } from '../shared/validate.ts';
import { findTemplate } from '../video/templates.ts';
import type { RenderOutput, RenderRequest } from './render.types.ts';

export const RENDER_KIND = 'render';

export const RenderArgs = z.discriminatedUnion('mode', [
  z.object({
    mode: z.literal('video'),
    templateId: z.string().min(1, 'is required for mode video'),
    campaignId: CampaignId.optional(),
    variantId: VariantId.optional(),
  }),
  z.object({ mode: z.literal('campaign'), campaignId: CampaignId }),
  z.object({
    mode: z.literal('still'),
    campaignId: CampaignId,
    variantId: VariantId,
    format: z.enum(['landscape', 'square', 'story']).optional(),
  }),
]);

export interface RenderStatusView {
  jobId: string;
  taskId: string;
  mode: RenderRequest['mode'];
  status: 'queued' | 'rendering' | 'cancelling' | 'complete' | 'failed' | 'cancelled';
  progress: number;
  message: string | null;
  output: RenderOutput | null;
  error: { code: string; message: string } | null;
  createdAt: string;
  finishedAt: string | null;
  pollIntervalMs: number;
}

const STATUS: Record<JobStatus, RenderStatusView['status']> = {
  queued: 'queued',
  running: 'rendering',
  input_required: 'rendering',
  cancel_requested: 'cancelling',
  succeeded: 'complete',
  failed: 'failed',
  cancelled: 'cancelled',
};

export function toRenderStatus(job: Job): RenderStatusView {
  const view = toJobView(job);
  const request = (job.input as { request?: RenderRequest }).request;
  return {
    jobId: view.id,
    taskId: view.taskId,
    mode: request?.mode ?? 'video',
    status: STATUS[view.status],
    progress: view.progress.fraction,
    message: view.progress.message ?? null,
    output: ((view.result as { output?: RenderOutput } | null)?.output ?? null) as RenderOutput | null,
    error: view.error ?? null,
    createdAt: view.createdAt,
    finishedAt: view.finishedAt,
    pollIntervalMs: 2000,
  };
}

export type RenderOutcome = { status: 'quote_required'; quote: QuoteView } | { status: 'started'; job: Job };

export function createRendersService(deps: {
  jobs: JobsService;
  quotes: QuotesService;
  credits: CreditsService;
  campaigns: CampaignsService;
}) {
  const { jobs, quotes, credits, campaigns } = deps;

  async function activeVariantCount(scope: WorkspaceScope, campaignId: string): Promise<number> {
    return scope.em.count(Variant, {
      campaign: campaignId,
      deletedAt: null,
      status: 'active',
    });
  }

  async function assertVariant(scope: WorkspaceScope, campaignId: string, variantId: string) {
    const variant = await scope.em.findOne(Variant, { id: variantId, deletedAt: null });
    if (!variant || variant.campaign.id !== campaignId) throw new NotFoundError('Variant', variantId);
  }

  return {
    async render(scope: WorkspaceScope, raw: Record<string, unknown> & { quoteId?: string }): Promise<RenderOutcome> {
      const { quoteId, ...rest } = raw;
      const args = parseInput(RenderArgs, rest, 'render');
      let request: RenderRequest;
      let variantCount = 0;
      if (args.mode === 'video') {
        if (!findTemplate(args.templateId))
          throw new ValidationError(`Unknown template ${args.templateId}; list them with query_video templates`);
        if (args.variantId && !args.campaignId) throw new ValidationError('variantId needs its campaignId');
        if (args.campaignId) await campaigns.get(scope, args.campaignId);
        if (args.campaignId && args.variantId) await assertVariant(scope, args.campaignId, args.variantId);
        request = {
          mode: 'video',
          templateId: args.templateId,
          campaignId: args.campaignId ?? null,
          variantId: args.variantId ?? null,
        };
      } else if (args.mode === 'campaign') {
        await campaigns.get(scope, args.campaignId);
        variantCount = await activeVariantCount(scope, args.campaignId);
        if (variantCount === 0) throw new ValidationError('The campaign has no active variants to render');
        request = { mode: 'campaign', campaignId: args.campaignId };
      } else {
        await campaigns.get(scope, args.campaignId);
        await assertVariant(scope, args.campaignId, args.variantId);
        request = {
          mode: 'still',
          campaignId: args.campaignId,
          variantId: args.variantId,
          format: args.format ?? 'landscape',
        };
      }
      const lines = renderLines({
        mode: request.mode,
        templateId: request.mode === 'video' ? request.templateId : undefined,
        variantCount,
      });
      const operation = `render_video.${request.mode}`;
      if (!quoteId) return { status: 'quote_required', quote: await quotes.quote(scope, operation, rest, lines) };

      const jobId = newId('job');
      const { reserved } = await quotes.redeem(scope, { quoteId, operation, args: rest, reference: jobId });
      try {
        const { job } = await jobs.start(scope, {
          jobId,
          kind: RENDER_KIND,
          workflowType: 'renderWorkflow',
          businessKey: jobId,
          subjectId: 'campaignId' in request ? request.campaignId : null,
          campaignId: 'campaignId' in request ? request.campaignId : null,
          input: { request, credits: reserved, actor: scope.actor },
          summary: `Render ${request.mode}${'campaignId' in request && request.campaignId ? ` of ${request.campaignId}` : ''}`,
        });
        return { status: 'started', job };
      } catch (error) {
        await credits.releaseRemaining(scope.em, {
          workspaceId: scope.workspaceId,
          idempotencyKey: `${jobId}:release`,
          reference: jobId,
          description: 'the render did not start; credits returned',
          actor: scope.actor,
        });
        throw error;
      }
    },

    async progress(scope: WorkspaceScope, jobId: string): Promise<RenderStatusView> {
      const job = await jobs.get(scope, jobId);
      if (job.kind !== RENDER_KIND) throw new NotFoundError('Render job', jobId);
      return toRenderStatus(job);
    },
  };
}

export type RendersService = ReturnType<typeof createRendersService>;
