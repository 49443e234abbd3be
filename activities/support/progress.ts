/**
 * Writes a job's progress from inside a long activity, at most every `everyMs` (the row is what polls read,
 * so it must stay current, but ffmpeg reports many times a second).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { reportStepProgress } from '../../src/domain/jobs/job-rows.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';

export function createProgressWriter(orm: MikroORM, jobId: string, step: string, everyMs = 500) {
  let last = 0;
  let pending: Promise<unknown> = Promise.resolve();
  return {
    report(fraction: number, message: string): void {
      const now = Date.now();
      if (now - last < everyMs && fraction < 1) return;
      last = now;
      pending = pending.then(() =>
        // The job's own row, by its id (see activities/jobs.ts).
        reportStepProgress(acrossWorkspaces(orm.em), jobId, {
          fraction: Math.round(fraction * 1000) / 1000,
          step,
          message,
        }).catch(() => undefined),
      );
    },
    /** Waits for the last write (so a finished activity never races its own progress). */
    flush: () => pending,
  };
}
