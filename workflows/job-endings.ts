/**
 * How every long-job workflow ends after an error: its own clean-up (refunds, status restores) and then the
 * job marked cancelled or failed, all in a non-cancellable scope so that a cancelled workflow still runs
 * them. The job's error is the activity's stable code and safe message when there is one, else the
 * workflow's generic failure; the original error is rethrown so Temporal records the real outcome.
 */
import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';

export interface JobEndings {
  markJobCancelled(jobId: string): Promise<void>;
  failJob(jobId: string, error: { code: string; message: string }): Promise<void>;
}

export async function endJobAfterError(input: {
  error: unknown;
  jobId: string;
  bookkeeping: JobEndings;
  /** The job's error when the cause carries no code of its own. */
  fallback: { code: string; message: string };
  cleanUp?: (cancelled: boolean) => Promise<void>;
}): Promise<never> {
  const cancelled = isCancellation(input.error);
  await CancellationScope.nonCancellable(async () => {
    await input.cleanUp?.(cancelled);
    if (cancelled) {
      await input.bookkeeping.markJobCancelled(input.jobId);
      return;
    }
    const cause = input.error instanceof ActivityFailure ? input.error.cause : input.error;
    await input.bookkeeping.failJob(
      input.jobId,
      cause instanceof ApplicationFailure
        ? { code: cause.type ?? input.fallback.code, message: cause.message }
        : input.fallback,
    );
  });
  throw input.error;
}
