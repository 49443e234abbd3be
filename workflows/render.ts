/**
 * A render: a video from a template, a campaign video from its variants, or a still. One heartbeating
 * activity renders (ffmpeg's progress flows into the job row through heartbeats) and stores the output; the
 * workflow then captures the quoted credits once (`<jobId>:capture:render`). A worker killed mid-render is
 * noticed by the heartbeat timeout and the render runs again on another worker; the capture still happens
 * exactly once. Cancellation stops ffmpeg and releases the credits.
 */
import { proxyActivities } from '@temporalio/workflow';
import { endJobAfterError } from './job-endings.ts';
import { bookkeepingActivities } from './bookkeeping.ts';
import type { Activities } from '../activities/index.ts';
import type { RenderOutput } from '../src/domain/renders/render.types.ts';
import type { RenderWorkflowInput } from '../src/domain/jobs/workflow-inputs.ts';

const renderer = proxyActivities<Activities>({
  startToCloseTimeout: '30m',
  heartbeatTimeout: '10s',
  retry: {
    initialInterval: '1s',
    maximumInterval: '10s',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['validation_failed', 'not_found', 'conflict'],
  },
});

export async function renderWorkflow(input: RenderWorkflowInput): Promise<RenderOutput> {
  const bookkeeping = bookkeepingActivities();
  const { jobId, workspaceId } = input;
  // Inside the try: a workflow cancelled before its first activity must still refund and close its job.
  try {
    await bookkeeping.markJobRunning(jobId);
    const output = await renderer.renderMedia({ jobId, workspaceId, request: input.request });
    if (input.credits > 0)
      await bookkeeping.captureJobCredits({
        workspaceId,
        jobId,
        step: 'render',
        amount: input.credits,
        actor: input.actor,
      });
    await bookkeeping.releaseJobCredits({ workspaceId, jobId, actor: input.actor });
    await bookkeeping.completeJob(jobId, { output });
    return output;
  } catch (error) {
    return endJobAfterError({
      error,
      jobId,
      bookkeeping,
      fallback: { code: 'render_failed', message: 'The render failed; the credits were returned' },
      cleanUp: async () => {
        await bookkeeping.releaseJobCredits({ workspaceId, jobId, actor: input.actor });
      },
    });
  }
}
