/**
 * The job pipeline's self-test: a job of N timed steps that exercises everything a real long job relies on —
 * the job row, progress reports, heartbeats, resumption after a worker dies, cancellation, and step outputs
 * recorded exactly once. Operators run it with `campaignctl jobs selftest`; the test suite kills workers
 * in the middle of it.
 */
import { Context, CancelledFailure } from '@temporalio/activity';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ActivityDeps } from './deps.ts';
import { createJobActivities } from './jobs.ts';

export interface SelftestInput {
  jobId: string;
  steps: number;
  stepMs: number;
}

export interface SelftestResult {
  [key: string]: unknown;
  steps: number;
  /** Temporal attempt of the activity that finished the run (2 or more after a worker died mid-way). */
  finishedOnAttempt: number;
  /** The step the last attempt resumed from (0 on a clean run). */
  resumedFromStep: number;
}

export function createSelftestActivities(deps: ActivityDeps) {
  const jobs = createJobActivities(deps);
  return {
    async runSelftestSteps(input: SelftestInput): Promise<SelftestResult> {
      const context = Context.current();
      const resumedFromStep = typeof context.info.heartbeatDetails === 'number' ? context.info.heartbeatDetails : 0;
      for (let step = resumedFromStep; step < input.steps; step += 1) {
        try {
          await sleep(input.stepMs, undefined, { signal: context.cancellationSignal });
        } catch (error) {
          if (context.cancellationSignal.aborted) throw new CancelledFailure('selftest cancelled');
          throw error;
        }
        await jobs.recordJobStep(input.jobId, `step-${step + 1}`, context.info.attempt, { step: step + 1 });
        await jobs.reportJobProgress(input.jobId, {
          fraction: (step + 1) / input.steps,
          step: `step-${step + 1}`,
          message: `completed step ${step + 1} of ${input.steps}`,
        });
        // The heartbeat carries the next step to run, so a retry on another worker resumes there.
        context.heartbeat(step + 1);
      }
      return { steps: input.steps, finishedOnAttempt: context.info.attempt, resumedFromStep };
    },
  };
}
