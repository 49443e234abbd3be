/**
 * Activities that keep a job's row current. Each is idempotent (activities run at least once) and never moves
 * a job out of a terminal state, so a late retry cannot resurrect a finished job.
 */
import { JobStep, type JobError, type JobProgress } from '../src/domain/jobs/job.entity.ts';
import * as jobRows from '../src/domain/jobs/job-rows.ts';
import { newId } from '../src/domain/shared/ids.ts';
import { acrossWorkspaces } from '../src/domain/shared/scope.ts';
import type { JobOutcome } from '../src/observability/metrics.ts';
import type { ActivityDeps } from './deps.ts';

/** Each write goes through job-rows.ts, where it is guarded by the transition table (job-status.ts). */
export function createJobActivities({ orm, metrics }: ActivityDeps) {
  /** Counted only by the write that moved the row, so an activity retried after it counts nothing. */
  const count = (outcome: JobOutcome, job: jobRows.FinishedJob | null) => {
    if (job) metrics.jobFinished(job.kind, outcome, (job.finishedAt.getTime() - job.createdAt.getTime()) / 1000);
  };
  /**
   * A workflow keeps its own job's row, addressed by the job's id (unique across workspaces, created in the
   * workspace's scope when the job started); its workflow input carries no scope for these calls.
   */
  const jobRowsEm = () => acrossWorkspaces(orm.em);
  return {
    async markJobRunning(jobId: string): Promise<void> {
      await jobRows.markJobRunning(jobRowsEm(), jobId);
    },

    async markJobInputRequired(jobId: string, message: string): Promise<void> {
      await jobRows.markJobInputRequired(jobRowsEm(), jobId, message);
    },

    async reportJobProgress(jobId: string, progress: JobProgress): Promise<void> {
      await jobRows.reportJobProgress(jobRowsEm(), jobId, progress);
    },

    async completeJob(jobId: string, result: Record<string, unknown>): Promise<void> {
      count('succeeded', await jobRows.completeJob(jobRowsEm(), jobId, result));
    },

    async failJob(jobId: string, error: JobError): Promise<void> {
      count('failed', await jobRows.failJob(jobRowsEm(), jobId, error));
    },

    async markJobCancelled(jobId: string): Promise<void> {
      count('cancelled', await jobRows.markJobCancelled(jobRowsEm(), jobId));
    },

    /**
     * Stores a completed step's output once. A second call for the same step (an activity retry) keeps the
     * first output and returns it, so a step's effects are recorded exactly once.
     */
    async recordJobStep(
      jobId: string,
      name: string,
      attempt: number,
      output: Record<string, unknown> | null,
    ): Promise<Record<string, unknown> | null> {
      const em = orm.em.fork();
      await em
        .createQueryBuilder(JobStep)
        .insert({ id: newId('jobStep'), job: jobId, name, attempt, output, completedAt: new Date() })
        .onConflict(['job', 'name'])
        .ignore()
        .execute();
      const step = await em.findOneOrFail(JobStep, { job: jobId, name });
      return step.output ?? null;
    },
  };
}
