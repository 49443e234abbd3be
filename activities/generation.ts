/**
 * The steps of a campaign generation (see `workflows/campaign-generation.ts`). Each step is exactly-once in
 * effect: its output is stored on the job (`job_steps`) and a retried step returns the stored output instead
 * of working again; the variants step writes its variants in the same transaction as its step row.
 *
 * Steps heartbeat while they work, so a dead worker is noticed within the heartbeat timeout and a
 * cancellation reaches them; the engines receive the activity's cancellation signal.
 */
import { Context } from '@temporalio/activity';
import type { CampaignBrief, CopyDraft } from '../src/domain/creative/text/copy-engine.ts';
import type { GenerationStep } from '../src/domain/credits/price-list.ts';
import type { GeneratedImage, StepOutputs } from '../src/domain/generation/generation.service.ts';
import { Job, JobStep } from '../src/domain/jobs/job.entity.ts';
import { ValidationError } from '../src/errors.ts';
import type { GenerationStepInput, GenerationStepSummary } from '../src/domain/jobs/workflow-inputs.ts';
import type { ActivityDeps } from './deps.ts';
import { createJobActivities } from './jobs.ts';
import { translateErrors } from './support/activity-errors.ts';
import { activityScope } from './support/scope.ts';
import { withHeartbeats } from './support/heartbeats.ts';

export function createGenerationActivities(deps: ActivityDeps) {
  const { orm, generation } = deps;
  const jobs = createJobActivities(deps);

  /**
   * The stored output of a step: this job's, else (for steps before a regeneration's start) the source job's,
   * following the chain of regenerations back (a regeneration from `copy` of a regeneration from `images`
   * finds the brief on the original generation).
   */
  async function outputOf<S extends GenerationStep>(
    input: GenerationStepInput,
    step: S,
  ): Promise<StepOutputs[S] | null> {
    const { em } = activityScope(orm, input);
    let jobId: string | null = input.jobId;
    for (let hops = 0; jobId && hops < 50; hops += 1) {
      const row = await em.findOne(JobStep, { job: jobId, name: step });
      if (row?.output) return row.output as unknown as StepOutputs[S];
      if (jobId === input.jobId) {
        jobId = input.sourceJobId;
        continue;
      }
      const job: Job | null = await em.findOne(Job, { id: jobId });
      jobId = (job?.input as { sourceJobId?: string | null } | undefined)?.sourceJobId ?? null;
    }
    return null;
  }

  async function required<S extends GenerationStep>(input: GenerationStepInput, step: S): Promise<StepOutputs[S]> {
    const output = await outputOf(input, step);
    if (!output)
      throw new ValidationError(
        `The ${step} step has no stored output to continue from; regenerate from an earlier step`,
      );
    return output;
  }

  const summarise = (step: GenerationStep, output: Record<string, unknown>): GenerationStepSummary => {
    if (step === 'variants') return { step, variantIds: (output as StepOutputs['variants']).variantIds };
    if (step === 'copy') return { step, items: (output as StepOutputs['copy']).drafts.length };
    if (step === 'images') return { step, items: (output as StepOutputs['images']).images.length };
    return { step };
  };

  return {
    async runGenerationStep(input: GenerationStepInput): Promise<GenerationStepSummary> {
      const context = Context.current();
      return translateErrors(() =>
        withHeartbeats(async (signal) => {
          const stored = await orm.em.fork().findOne(JobStep, { job: input.jobId, name: input.step });
          if (stored?.output) return summarise(input.step, stored.output);
          const ctx = await generation.loadContext(activityScope(orm, input), input.campaignId, {
            intent: input.intent,
            includeImages: input.includeImages,
            variantCount: input.variantCount,
            channels: input.channels,
            style: input.style,
          });
          let output: Record<string, unknown>;
          switch (input.step) {
            case 'brief':
              output = await generation.writeBrief(ctx, signal);
              break;
            case 'copy': {
              const { brief } = await required(input, 'brief');
              output = await generation.writeCopy(ctx, brief as CampaignBrief, signal);
              break;
            }
            case 'images': {
              const { brief } = await required(input, 'brief');
              const { drafts } = await required(input, 'copy');
              output = await generation.makeImages(
                ctx,
                {
                  jobId: input.jobId,
                  brief,
                  drafts: drafts as CopyDraft[],
                  onImage: (done, total) => context.heartbeat({ images: done, of: total }),
                },
                signal,
              );
              break;
            }
            case 'variants': {
              const { drafts } = await required(input, 'copy');
              const images = input.includeImages
                ? (((await outputOf(input, 'images'))?.images as GeneratedImage[] | undefined) ?? null)
                : null;
              const saved = await generation.saveVariants(activityScope(orm, input), {
                campaignId: input.campaignId,
                jobId: input.jobId,
                attempt: context.info.attempt,
                drafts,
                images,
              });
              return summarise('variants', saved as unknown as Record<string, unknown>);
            }
          }
          const recorded = await jobs.recordJobStep(input.jobId, input.step, context.info.attempt, output);
          return summarise(input.step, recorded ?? output);
        }),
      );
    },

    /**
     * Ends the generation on the campaign (status back from `generating`, the brief kept on success) and
     * republishes a live campaign whose variants changed.
     */
    async finishGeneration(input: {
      workspaceId: string;
      campaignId: string;
      jobId: string;
      outcome: 'succeeded' | 'failed' | 'cancelled';
    }): Promise<void> {
      const stored =
        input.outcome === 'succeeded'
          ? await orm.em.fork().findOne(JobStep, { job: input.jobId, name: 'brief' })
          : null;
      const brief = (stored?.output as StepOutputs['brief'] | null | undefined)?.brief ?? null;
      const scope = activityScope(orm, input);
      const { published } = await generation.endGeneration(scope, { ...input, brief });
      if (published && input.outcome === 'succeeded') {
        await deps.republish.requestRepublish(scope, `campaign ${input.campaignId} regenerated`);
      }
    },
  };
}
