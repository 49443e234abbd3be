/**
 * The port through which domain services start and steer long jobs. Implemented over Temporal in
 * `temporal/temporal-job-launcher.ts`; services never touch the Temporal client directly.
 */
import type { JobWorkflow, JobWorkflowInputs } from './workflow-inputs.ts';

export interface StartWorkflowRequest<W extends JobWorkflow = JobWorkflow> {
  workflowType: W;
  workflowId: string;
  /** The single argument of the workflow function. */
  input: JobWorkflowInputs[W];
  workspaceId: string;
  kind: string;
  campaignId?: string | null;
  /** One line shown in the Temporal UI, e.g. `Generate campaign "Autumn roast" (ws_…)`. */
  summary: string;
}

export type WorkflowState = 'running' | 'completed' | 'failed' | 'cancelled' | 'terminated' | 'timed_out';

export interface JobLauncher {
  /** Starts the workflow, or returns the open run with that id. Resolves with the run id. */
  start<W extends JobWorkflow>(request: StartWorkflowRequest<W>): Promise<{ runId: string }>;
  /** The state of one run, or null when Temporal no longer knows it (retention passed). */
  describe(workflowId: string, runId: string): Promise<WorkflowState | null>;
  /** Requests cooperative cancellation; a no-op for closed runs. */
  cancel(workflowId: string, runId: string): Promise<void>;
  /**
   * Sends a validated update to a running workflow and waits for its answer. A rejection by the workflow's
   * validator (or a closed run) is reported as `{ accepted: false, reason }`, never thrown.
   */
  update<R>(
    workflowId: string,
    runId: string,
    name: string,
    arg: unknown,
  ): Promise<{ accepted: true; result: R } | { accepted: false; reason: string }>;
}
