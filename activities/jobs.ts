/**
 * Activities that keep a job's row current. Each is idempotent (activities run at least once) and never moves
 * a job out of a terminal state, so a late retry cannot resurrect a finished job.
 */
import { Job, JobStep, type JobError, type JobProgress } from '../src/domain/jobs/job.entity.ts';
import { statusesThatMayBecome, TERMINAL_JOB_STATUSES } from '../src/domain/jobs/job-status.ts';
import { newId } from '../src/domain/shared/ids.ts';
import type { ActivityDeps } from './deps.ts';

/** Each update below is guarded by the transition table (job-status.ts), evaluated by the database. */
const MAY_BECOME_RUNNING = statusesThatMayBecome('running');
const MAY_BECOME_INPUT_REQUIRED = statusesThatMayBecome('input_required');
const MAY_SUCCEED = statusesThatMayBecome('succeeded');
const MAY_FAIL = statusesThatMayBecome('failed');
const MAY_BE_CANCELLED = statusesThatMayBecome('cancelled');

export function createJobActivities({ orm }: ActivityDeps) {
  return {
    async markJobRunning(jobId: string): Promise<void> {
      const em = orm.em.fork();
      await em.nativeUpdate(
        Job,
        { id: jobId, status: { $in: MAY_BECOME_RUNNING } },
        { status: 'running', startedAt: new Date(), updatedAt: new Date() },
      );
    },

    async markJobInputRequired(jobId: string, message: string): Promise<void> {
      const em = orm.em.fork();
      await em.nativeUpdate(
        Job,
        { id: jobId, status: { $in: MAY_BECOME_INPUT_REQUIRED } },
        { status: 'input_required', progress: { fraction: 0, message }, updatedAt: new Date() },
      );
    },

    async reportJobProgress(jobId: string, progress: JobProgress): Promise<void> {
      const em = orm.em.fork();
      // Progress is not a transition: any job still open may report it.
      await em.nativeUpdate(
        Job,
        { id: jobId, status: { $nin: [...TERMINAL_JOB_STATUSES] } },
        { progress, updatedAt: new Date() },
      );
    },

    async completeJob(jobId: string, result: Record<string, unknown>): Promise<void> {
      const em = orm.em.fork();
      const now = new Date();
      await em.nativeUpdate(
        Job,
        { id: jobId, status: { $in: MAY_SUCCEED } },
        { status: 'succeeded', result, progress: { fraction: 1 }, finishedAt: now, updatedAt: now },
      );
    },

    async failJob(jobId: string, error: JobError): Promise<void> {
      const em = orm.em.fork();
      const now = new Date();
      await em.nativeUpdate(
        Job,
        { id: jobId, status: { $in: MAY_FAIL } },
        { status: 'failed', error, finishedAt: now, updatedAt: now },
      );
    },

    async markJobCancelled(jobId: string): Promise<void> {
      const em = orm.em.fork();
      const now = new Date();
      await em.nativeUpdate(
        Job,
        { id: jobId, status: { $in: MAY_BE_CANCELLED } },
        { status: 'cancelled', finishedAt: now, updatedAt: now },
      );
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
