/**
 * The job mechanism every long job goes through: a `Job` row plus a Temporal workflow under a business
 * workflow id.
 *
 * Starting: under a per-key advisory lock, a job that is still active on the same key is returned as is
 * (agents poll, they do not restart); otherwise a new row is written and its workflow started with the
 * conflict policy "use existing". The row then claims the run id Temporal returned. If that run still belongs
 * to the previous job on the key (its row is already terminal but the run is a few milliseconds from closing),
 * the claim is refused by the unique (workflow id, run id) constraint and the start is retried.
 *
 * Reading: status and progress come from the row, which activities keep current; no read touches Temporal.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { setTimeout as sleep } from 'node:timers/promises';
import { NotFoundError, UnavailableError } from '../../errors.ts';
import { newId } from '../shared/ids.ts';
import type { WorkspaceScope } from '../shared/scope.ts';
import { workflowIdFor } from './workflow-ids.ts';
import type { JobLauncher } from './job-launcher.ts';
import { claimRun, failUnstartedJob, insertQueuedJob, recordCancelRequest, recordRunClosed } from './job-rows.ts';
import { TERMINAL_JOB_STATUSES, type JobStatus } from './job-status.ts';
import { Job } from './job.entity.ts';
import type { JobWorkflow, JobWorkflowArgs, JobWorkflowInputs } from './workflow-inputs.ts';
import { lockForTransaction } from '../../db/transaction-lock.ts';
import { inSpan } from '../../tracing/spans.ts';
import { NO_METRICS, type JobOutcome, type Metrics } from '../../observability/metrics.ts';

export interface StartJobRequest<W extends JobWorkflow = JobWorkflow> {
  /** Job kind, also the first part of the workflow id and the `JobKind` search attribute. */
  kind: string;
  /** Registered workflow function name; it fixes the type of `input`. */
  workflowType: W;
  /** A pre-allocated job id (credits are reserved under it before the job starts). */
  jobId?: string;
  /** Business key within the workspace, e.g. the campaign id: one active job per key. */
  businessKey: string;
  subjectId?: string | null;
  campaignId?: string | null;
  /** Stored on the row and passed to the workflow (with `jobId` and `workspaceId` added). */
  input: JobWorkflowArgs<W>;
  summary: string;
}

export interface JobView {
  id: string;
  /** The MCP task id of the job (task handles and `tasks/get`). */
  taskId: string;
  kind: string;
  status: JobStatus;
  progress: Job['progress'];
  result: Job['result'];
  error: Job['error'];
  subjectId: string | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  cancelRequestedAt: string | null;
}

/** What a job's view is made of: a Job entity, or the same columns read without one (a status poll). */
export type JobViewSource = Pick<
  Job,
  | 'id'
  | 'taskId'
  | 'kind'
  | 'status'
  | 'progress'
  | 'result'
  | 'error'
  | 'subjectId'
  | 'createdAt'
  | 'updatedAt'
  | 'startedAt'
  | 'finishedAt'
  | 'cancelRequestedAt'
>;

export function toJobView(job: JobViewSource): JobView {
  return {
    id: job.id,
    taskId: job.taskId,
    kind: job.kind,
    status: job.status,
    progress: job.progress,
    result: job.result ?? null,
    error: job.error ?? null,
    subjectId: job.subjectId ?? null,
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
    cancelRequestedAt: job.cancelRequestedAt?.toISOString() ?? null,
  };
}

/** How long a start waits for the previous run on the same key to close before giving up. */
const CLAIM_ATTEMPTS = 50;
const CLAIM_BACKOFF_MS = 100;

export function createJobsService(deps: {
  launcher: JobLauncher;
  /**
   * Where starts are counted, and the ends no workflow wrote (a start that failed, a run that closed unrecorded);
   * the worker counts the others (activities/jobs.ts).
   */
  metrics?: Pick<Metrics, 'jobStarted' | 'jobFinished'>;
}) {
  const { launcher } = deps;
  const metrics = deps.metrics ?? NO_METRICS;

  /**
   * Brings a row that claims to be active in line with Temporal when its run has closed without the workflow
   * recording the outcome (terminated by an operator, or lost to retention).
   */
  async function reconcile(tx: EntityManager, job: Job): Promise<boolean> {
    if (!job.runId) return false;
    const state = await launcher.describe(job.workflowId, job.runId);
    if (state === 'running') return false;
    await recordRunClosed(tx, job, state);
    // A run that ended without its workflow writing the row (terminated, timed out, lost): its end is counted here.
    metrics.jobFinished(
      job.kind,
      job.status as JobOutcome,
      ((job.finishedAt ?? new Date()).getTime() - job.createdAt.getTime()) / 1000,
    );
    return true;
  }

  /** `tx` is a transaction of the caller's scope, so only that workspace's jobs are seen. */
  async function findActive(tx: EntityManager, workflowId: string): Promise<Job | null> {
    return tx.findOne(
      Job,
      { workflowId, status: { $nin: [...TERMINAL_JOB_STATUSES] } },
      { orderBy: { createdAt: 'desc' } },
    );
  }

  /**
   * The first half of a start, inside the caller's transaction `tx`: under the key's advisory lock, the job
   * still active on the key (`reused`; or, when its starter died before starting the workflow, that job with
   * `reused: false`, for `launch` to finish), else a new `queued` row.
   */
  async function prepare<W extends JobWorkflow>(
    tx: EntityManager,
    scope: WorkspaceScope,
    request: StartJobRequest<W>,
  ): Promise<{ job: Job; reused: boolean }> {
    const workflowId = workflowIdFor(request.kind, scope.workspaceId, request.businessKey);
    await lockForTransaction(tx, `job:${workflowId}`);
    const active = await findActive(tx, workflowId);
    if (active && !(await reconcile(tx, active))) {
      // A row without a run id means its starter died between writing the row and starting the
      // workflow; starting again under the same job id completes what it began.
      return { job: active, reused: active.runId !== null };
    }
    const job = await insertQueuedJob(tx, {
      id: request.jobId ?? newId('job'),
      workspaceId: scope.workspaceId,
      kind: request.kind,
      workflowId,
      subjectId: request.subjectId ?? null,
      input: request.input as Record<string, unknown>,
      createdBy: scope.actor,
    });
    return { job, reused: false };
  }

  /**
   * Fails a row whose workflow was never started (still `queued`, bound to no run): left as it is, it would
   * stand in for a job that never runs, and every later start on its key would return it.
   */
  async function abandon(scope: WorkspaceScope, job: Job): Promise<void> {
    if (await failUnstartedJob(scope.em.fork(), job.id)) {
      metrics.jobFinished(job.kind, 'failed', (Date.now() - job.createdAt.getTime()) / 1000);
    }
  }

  /**
   * The second half, after `prepare` committed: starts the workflow and binds the row to its run. `reused`
   * when another starter bound the row to a different run first (that run is the job). When no workflow was
   * started for the row (Temporal unreachable, or the key's previous run never closed), the row is failed
   * before the error is rethrown.
   */
  async function launch<W extends JobWorkflow>(
    scope: WorkspaceScope,
    job: Job,
    request: StartJobRequest<W>,
  ): Promise<{ job: Job; reused: boolean }> {
    // The span the workflow's start (and so, through Temporal, the job's activities) hangs under.
    return inSpan(
      `job.launch ${request.kind}`,
      { 'campaign.job.kind': request.kind, 'temporal.workflow.type': request.workflowType },
      async (span) => {
        const launched = await claimNewRun(scope, job, request);
        span?.setAttribute('campaign.job.reused', launched.reused);
        return launched;
      },
    );
  }

  /** `launch` itself: start the workflow, then bind the row to the run (retried while the key's run closes). */
  async function claimNewRun<W extends JobWorkflow>(
    scope: WorkspaceScope,
    job: Job,
    request: StartJobRequest<W>,
  ): Promise<{ job: Job; reused: boolean }> {
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
      let runId: string;
      try {
        ({ runId } = await launcher.start({
          workflowType: request.workflowType,
          workflowId: job.workflowId,
          // The starter's arguments plus the identity only this service knows: the workflow's whole input.
          input: { ...request.input, jobId: job.id, workspaceId: scope.workspaceId } as JobWorkflowInputs[W],
          workspaceId: scope.workspaceId,
          kind: request.kind,
          campaignId: request.campaignId ?? null,
          summary: request.summary,
        }));
      } catch (error) {
        await abandon(scope, job);
        throw error;
      }
      try {
        const em = scope.em.fork();
        const claimedAt = new Date();
        if (await claimRun(em, job.id, runId, claimedAt)) {
          // The row as written, bound to its run (not read back: the caller reports the job as started).
          job.runId = runId;
          job.updatedAt = claimedAt;
          metrics.jobStarted(job.kind);
          return { job, reused: false };
        }
        // Another starter already bound this row to a different run: that run is the job.
        const fresh = await em.findOneOrFail(Job, { id: job.id });
        return { job: fresh, reused: true };
      } catch (error) {
        if (!(error instanceof UniqueConstraintViolationException)) throw error;
        // The run belongs to the previous job on this key and is about to close; try again shortly.
        await sleep(CLAIM_BACKOFF_MS);
      }
    }
    // Every start answered with the previous job's run: none was started for this row.
    await abandon(scope, job);
    throw new UnavailableError(
      `The previous job on ${job.workflowId} has not finished closing; retry in a few seconds`,
    );
  }

  return {
    /**
     * Starts a job, or returns the active job on the same business key. `reused` tells which happened.
     */
    async start<W extends JobWorkflow>(
      scope: WorkspaceScope,
      request: StartJobRequest<W>,
    ): Promise<{ job: Job; reused: boolean }> {
      const decision = await scope.em.fork().transactional((tx) => prepare(tx, scope, request));
      if (decision.reused) return decision;
      return launch(scope, decision.job, request);
    },

    /** `start` in two halves, for callers that write their own rows in the same transaction as the job's. */
    prepare,
    launch,

    /** Reads a job of the caller's workspace; another workspace's job id is "not found". */
    async get(scope: WorkspaceScope, jobId: string): Promise<Job> {
      const job = await scope.em.findOne(Job, { id: jobId });
      if (!job) throw new NotFoundError('Job', jobId);
      return job;
    },

    /** The most recent job of a kind on a subject (e.g. the latest generation of a campaign). */
    async latestFor(scope: WorkspaceScope, kind: string, subjectId: string): Promise<Job | null> {
      return scope.em.findOne(Job, { kind, subjectId }, { orderBy: { createdAt: 'desc', id: 'desc' } });
    },

    /** The most recent job of a kind on a subject that succeeded (a regeneration continues from it). */
    async latestSucceeded(scope: WorkspaceScope, kind: string, subjectId: string): Promise<Job | null> {
      return scope.em.findOne(
        Job,
        { kind, subjectId, status: 'succeeded' },
        { orderBy: { createdAt: 'desc', id: 'desc' } },
      );
    },

    /** A job by its MCP task id, in the caller's workspace only (another workspace's task is "not found"). */
    async getByTaskId(scope: WorkspaceScope, taskId: string): Promise<Job | null> {
      return scope.em.findOne(Job, { taskId });
    },

    /**
     * Requests cooperative cancellation. The row records the request at once; the workflow decides the final
     * state (it may still complete). Cancelling a finished job changes nothing.
     */
    async requestCancel(scope: WorkspaceScope, jobId: string): Promise<Job> {
      const em = scope.em.fork();
      const job = await em.findOne(Job, { id: jobId });
      if (!job) throw new NotFoundError('Job', jobId);
      if (TERMINAL_JOB_STATUSES.includes(job.status)) return job;
      await recordCancelRequest(em, job);
      // Refreshed by recordCancelRequest: a job that ended meanwhile has no run left to cancel.
      if (job.runId && !TERMINAL_JOB_STATUSES.includes(job.status)) await launcher.cancel(job.workflowId, job.runId);
      return job;
    },
  };
}

export type JobsService = ReturnType<typeof createJobsService>;
