/**
 * Activities that keep a job's row current. Each is idempotent (activities run at least once) and never moves
 * a job out of a terminal state, so a late retry cannot resurrect a finished job.
 */
import { JobStep, type JobError, type JobProgress } from '../src/domain/jobs/job.entity.ts';
import * as jobRows from '../src/domain/jobs/job-rows.ts';
import { newId } from '../src/domain/shared/ids.ts';
import type { ActivityDeps } from './deps.ts';

/** Each write goes through job-rows.ts, where it is guarded by the transition table (job-status.ts). */
export function createJobActivities({ orm }: ActivityDeps) {
  return {
    async markJobRunning(jobId: string): Promise<void> {
      await jobRows.markJobRunning(orm.em.fork(), jobId);
    },

    async markJobInputRequired(jobId: string, message: string): Promise<void> {
      await jobRows.markJobInputRequired(orm.em.fork(), jobId, message);
    },

    async reportJobProgress(jobId: string, progress: JobProgress): Promise<void> {
      await jobRows.reportJobProgress(orm.em.fork(), jobId, progress);
    },

    async completeJob(jobId: string, result: Record<string, unknown>): Promise<void> {
      await jobRows.completeJob(orm.em.fork(), jobId, result);
    },

    async failJob(jobId: string, error: JobError): Promise<void> {
      await jobRows.failJob(orm.em.fork(), jobId, error);
    },

    async markJobCancelled(jobId: string): Promise<void> {
      await jobRows.markJobCancelled(orm.em.fork(), jobId);
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
