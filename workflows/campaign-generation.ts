/**
 * AI campaign generation: brief → copy → images → variants, one activity per step, each step's output stored
 * on the job so a regeneration can start from any step and reuse the earlier outputs.
 *
 * Credits: the quote's credits were reserved under the job id before the workflow started. After each step
 * the workflow captures exactly that step's price (idempotency key `<jobId>:capture:<step>`); whatever is
 * still held when the workflow ends — early by failure or cancellation — is released in a non-cancellable
 * scope, so a cancelled generation only pays for the steps it finished.
 *
 * Cancellation (`tasks/cancel`, or a cancel through the job) reaches the running step through its
 * heartbeats; the workflow then restores the campaign's status, releases the credits and ends `cancelled`.
 */
import { proxyActivities } from '@temporalio/workflow';
import { endJobAfterError } from './job-endings.ts';
import { bookkeepingActivities } from './bookkeeping.ts';
import type { Activities } from '../activities/index.ts';
import type { GenerationStep } from '../src/domain/credits/price-list.ts';
import type { CampaignGenerationInput, GenerationStepInput } from '../src/domain/jobs/workflow-inputs.ts';

export interface CampaignGenerationResult {
  [key: string]: unknown;
  campaignId: string;
  variantIds: string[];
  steps: GenerationStep[];
  creditsCaptured: number;
}

const creative = proxyActivities<Activities>({
  startToCloseTimeout: '10m',
  // Steps heartbeat while they work: a dead worker is noticed quickly, and cancellation is delivered.
  heartbeatTimeout: '10s',
  retry: {
    initialInterval: '1s',
    maximumInterval: '30s',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['validation_failed', 'not_found', 'conflict'],
  },
});

export async function campaignGenerationWorkflow(input: CampaignGenerationInput): Promise<CampaignGenerationResult> {
  const bookkeeping = bookkeepingActivities();
  const { jobId, workspaceId, campaignId } = input;
  let creditsCaptured = 0;
  let variantIds: string[] = [];
  // Inside the try: a workflow cancelled before its first activity must still refund and close its job.
  try {
    await bookkeeping.markJobRunning(jobId);
    for (const [index, step] of input.steps.entries()) {
      await bookkeeping.reportJobProgress(jobId, {
        fraction: index / input.steps.length,
        step,
        message: `${step}: working`,
      });
      const stepInput: GenerationStepInput = {
        jobId,
        workspaceId,
        campaignId,
        step,
        intent: input.intent,
        includeImages: input.includeImages,
        variantCount: input.variantCount,
        channels: input.channels,
        style: input.style,
        sourceJobId: input.sourceJobId,
        actor: input.actor,
      };
      const output = await creative.runGenerationStep(stepInput);
      if (output.variantIds) variantIds = output.variantIds;
      const price = input.prices[step] ?? 0;
      if (price > 0) {
        await bookkeeping.captureJobCredits({ workspaceId, jobId, step, amount: price, actor: input.actor });
        creditsCaptured += price;
      }
    }
    await bookkeeping.finishGeneration({ workspaceId, campaignId, jobId, outcome: 'succeeded' });
    await bookkeeping.releaseJobCredits({ workspaceId, jobId, actor: input.actor });
    const result: CampaignGenerationResult = { campaignId, variantIds, steps: input.steps, creditsCaptured };
    await bookkeeping.completeJob(jobId, result);
    return result;
  } catch (error) {
    return endJobAfterError({
      error,
      jobId,
      bookkeeping,
      fallback: {
        code: 'generation_failed',
        message: 'The generation failed; nothing more will be charged and unused credits were returned',
      },
      cleanUp: async (cancelled) => {
        await bookkeeping.releaseJobCredits({ workspaceId, jobId, actor: input.actor });
        await bookkeeping.finishGeneration({
          workspaceId,
          campaignId,
          jobId,
          outcome: cancelled ? 'cancelled' : 'failed',
        });
      },
    });
  }
}
