/**
 * Self-test job: runs N timed steps in one long, heartbeating activity. See `activities/selftest.ts`.
 */
import { CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
import { bookkeepingActivities } from './bookkeeping.ts';
import type { Activities } from '../activities/index.ts';
import type { SelftestResult } from '../activities/selftest.ts';
import type { SelftestWorkflowInput } from '../src/domain/jobs/workflow-inputs.ts';

const work = proxyActivities<Activities>({
  startToCloseTimeout: '30m',
  // A worker that dies is noticed within one heartbeat timeout; the retry resumes from the last heartbeat.
  heartbeatTimeout: '5s',
  retry: { initialInterval: '500ms', maximumInterval: '5s', maximumAttempts: 10 },
});

export async function selftestWorkflow(input: SelftestWorkflowInput): Promise<SelftestResult> {
  const bookkeeping = bookkeepingActivities();
  await bookkeeping.markJobRunning(input.jobId);
  try {
    const result = await work.runSelftestSteps({ jobId: input.jobId, steps: input.steps, stepMs: input.stepMs });
    await bookkeeping.completeJob(input.jobId, result);
    return result;
  } catch (error) {
    if (isCancellation(error)) {
      // Cleanup must run even though the workflow's scope is cancelled.
      await CancellationScope.nonCancellable(() => bookkeeping.markJobCancelled(input.jobId));
    } else {
      await bookkeeping.failJob(input.jobId, {
        code: 'job_failed',
        message: error instanceof Error ? error.message : 'The self-test failed',
      });
    }
    throw error;
  }
}
