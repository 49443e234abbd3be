/**
 * Every write of a `Job` row's status, progress, result or error, in one place, so that the guards that keep
 * a finished job finished are read (and changed) together. Reads stay with their callers.
 *
 * Writes from activities are conditional updates (`status in (…)` from the transition table in
 * job-status.ts), evaluated by the database, so a late activity retry loses the race there rather than in
 * memory. The writes of the jobs service work on a row it has just read: a new row and the reconcile of an
 * active row happen under the key's advisory lock, and the run claim and the start failure are guarded by the
 * run id.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { WorkflowState } from './job-launcher.ts';
import { statusesThatMayBecome, TERMINAL_JOB_STATUSES, type JobStatus } from './job-status.ts';
import { Job, type JobError, type JobProgress } from './job.entity.ts';
import { ownedBy } from '../shared/scope.ts';

const MAY_BECOME_RUNNING = statusesThatMayBecome('running');
const MAY_BECOME_INPUT_REQUIRED = statusesThatMayBecome('input_required');
const MAY_SUCCEED = statusesThatMayBecome('succeeded');
const MAY_FAIL = statusesThatMayBecome('failed');
const MAY_BE_CANCELLED = statusesThatMayBecome('cancelled');
const MAY_BE_CANCEL_REQUESTED = statusesThatMayBecome('cancel_requested');
/** A long activity reports its step's progress only while the job runs (not once it waits or is cancelling). */
const MAY_REPORT_STEP_PROGRESS: JobStatus[] = ['queued', 'running'];

// --- Written by the jobs service -----------------------------------------------------------------------

export interface NewJobRow {
  id: string;
  workspaceId: string;
  kind: string;
  workflowId: string;
  subjectId: string | null;
  input: Record<string, unknown>;
  createdBy: string;
}

/** A new `queued` row bound to no run yet, flushed in `tx` (the caller holds the key's advisory lock). */
export async function insertQueuedJob(tx: EntityManager, row: NewJobRow): Promise<Job> {
  const job = tx.create(Job, {
    id: row.id,
    ...ownedBy(row),
    kind: row.kind,
    status: 'queued',
    workflowId: row.workflowId,
    runId: null,
    subjectId: row.subjectId,
    input: row.input,
    progress: { fraction: 0 },
    result: null,
    error: null,
    createdBy: row.createdBy,
  });
  await tx.flush();
  return job;
}

/**
 * Binds the row to the run Temporal returned, unless it is already bound to another run. False when another
 * starter bound it first. Throws the unique (workflow id, run id) violation when the run still belongs to the
 * previous job on the key.
 */
export async function claimRun(em: EntityManager, jobId: string, runId: string, claimedAt: Date): Promise<boolean> {
  const claimed = await em.nativeUpdate(
    Job,
    { id: jobId, $or: [{ runId: null }, { runId }] },
    { runId, updatedAt: claimedAt },
  );
  return claimed === 1;
}

/** Fails a row whose workflow was never started (still `queued`, bound to no run); false if it was not one. */
export async function failUnstartedJob(em: EntityManager, jobId: string): Promise<boolean> {
  const failedAt = new Date();
  const changed = await em.nativeUpdate(
    Job,
    { id: jobId, runId: null, status: 'queued' },
    {
      status: 'failed',
      error: { code: 'start_failed', message: 'The job could not be started; try again.' },
      finishedAt: failedAt,
      updatedAt: failedAt,
    },
  );
  return changed === 1;
}

const CLOSED_TO_STATUS: Record<Exclude<WorkflowState, 'running'>, JobStatus> = {
  completed: 'succeeded',
  failed: 'failed',
  cancelled: 'cancelled',
  terminated: 'failed',
  timed_out: 'failed',
};

/**
 * Records on an active row, read in `tx` under the key's advisory lock, that its run closed without the
 * workflow recording the outcome (`null`: the run is gone, lost to retention).
 */
export async function recordRunClosed(
  tx: EntityManager,
  job: Job,
  state: Exclude<WorkflowState, 'running'> | null,
): Promise<void> {
  job.status = state ? CLOSED_TO_STATUS[state] : 'failed';
  job.finishedAt = new Date();
  if (job.status === 'failed' && !job.error) {
    job.error = { code: `workflow_${state ?? 'lost'}`, message: `The job's workflow ended as ${state ?? 'unknown'}` };
  }
  await tx.flush();
}

/** Marks an open row, read in `em`, `cancel_requested` the first time a cancellation is asked for. */
/**
 * Records a cancellation request in one guarded statement: the job may have ended (its workflow writes the
 * row from another process) between the caller reading it and this write, and a terminal row must stay as the
 * workflow left it. `job` is refreshed from the row afterwards.
 */
export async function recordCancelRequest(em: EntityManager, job: Job): Promise<void> {
  const now = new Date();
  await em.nativeUpdate(
    Job,
    { id: job.id, status: { $in: MAY_BE_CANCEL_REQUESTED }, cancelRequestedAt: null },
    { status: 'cancel_requested', cancelRequestedAt: now, updatedAt: now },
  );
  await em.refresh(job);
}

// --- Written by the workflows' activities (each idempotent: activities run at least once) -------------

export async function markJobRunning(em: EntityManager, jobId: string): Promise<void> {
  await em.nativeUpdate(
    Job,
    { id: jobId, status: { $in: MAY_BECOME_RUNNING } },
    { status: 'running', startedAt: new Date(), updatedAt: new Date() },
  );
}

export async function markJobInputRequired(em: EntityManager, jobId: string, message: string): Promise<void> {
  await em.nativeUpdate(
    Job,
    { id: jobId, status: { $in: MAY_BECOME_INPUT_REQUIRED } },
    { status: 'input_required', progress: { fraction: 0, message }, updatedAt: new Date() },
  );
}

/** Progress is not a transition: any job still open may report it. */
export async function reportJobProgress(em: EntityManager, jobId: string, progress: JobProgress): Promise<void> {
  await em.nativeUpdate(
    Job,
    { id: jobId, status: { $nin: [...TERMINAL_JOB_STATUSES] } },
    { progress, updatedAt: new Date() },
  );
}

/** A long activity's progress within its step (see activities/support/progress.ts for the throttle). */
export async function reportStepProgress(em: EntityManager, jobId: string, progress: JobProgress): Promise<void> {
  await em.nativeUpdate(
    Job,
    { id: jobId, status: { $in: MAY_REPORT_STEP_PROGRESS } },
    { progress, updatedAt: new Date() },
  );
}

/**
 * The job a terminal write just finished (null when the write changed nothing: a retried activity, or a job
 * already terminal), for counting each job's end once.
 */
export interface FinishedJob {
  kind: string;
  createdAt: Date;
  finishedAt: Date;
}

async function finishedJob(em: EntityManager, jobId: string, changed: number, at: Date): Promise<FinishedJob | null> {
  if (changed !== 1) return null;
  const job = await em.findOne(Job, { id: jobId }, { fields: ['kind', 'createdAt'] });
  return job ? { kind: job.kind, createdAt: job.createdAt, finishedAt: at } : null;
}

export async function completeJob(
  em: EntityManager,
  jobId: string,
  result: Record<string, unknown>,
): Promise<FinishedJob | null> {
  const now = new Date();
  const changed = await em.nativeUpdate(
    Job,
    { id: jobId, status: { $in: MAY_SUCCEED } },
    { status: 'succeeded', result, progress: { fraction: 1 }, finishedAt: now, updatedAt: now },
  );
  return finishedJob(em, jobId, changed, now);
}

export async function failJob(em: EntityManager, jobId: string, error: JobError): Promise<FinishedJob | null> {
  const now = new Date();
  const changed = await em.nativeUpdate(
    Job,
    { id: jobId, status: { $in: MAY_FAIL } },
    { status: 'failed', error, finishedAt: now, updatedAt: now },
  );
  return finishedJob(em, jobId, changed, now);
}

export async function markJobCancelled(em: EntityManager, jobId: string): Promise<FinishedJob | null> {
  const now = new Date();
  const changed = await em.nativeUpdate(
    Job,
    { id: jobId, status: { $in: MAY_BE_CANCELLED } },
    { status: 'cancelled', finishedAt: now, updatedAt: now },
  );
  return finishedJob(em, jobId, changed, now);
}
