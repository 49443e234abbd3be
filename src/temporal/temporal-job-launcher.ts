import { WorkflowIdConflictPolicy, type Client } from '@temporalio/client';
import type { JobLauncher, StartWorkflowRequest, WorkflowState } from '../domain/jobs/job-launcher.ts';
import type { JobWorkflow, JobWorkflowInputs } from '../domain/jobs/workflow-inputs.ts';
import type * as workflows from '../../workflows/index.ts';
import { CampaignIdKey, JobKindKey, WorkspaceIdKey } from './search-attributes.ts';

const STATE: Record<string, WorkflowState> = {
  RUNNING: 'running',
  PAUSED: 'running',
  CONTINUED_AS_NEW: 'running',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
};

function isNotFound(error: unknown): boolean {
  return (error as { name?: string }).name === 'WorkflowNotFoundError';
}

/**
 * Compile-time proof that each job workflow's registered function takes exactly the input the launcher sends:
 * a workflow whose parameter drifts from `JobWorkflowInputs` fails the typecheck here.
 */
type Matches<W extends JobWorkflow> =
  [JobWorkflowInputs[W]] extends Parameters<(typeof workflows)[W]>
    ? Parameters<(typeof workflows)[W]> extends [JobWorkflowInputs[W]]
      ? true
      : false
    : false;
const WORKFLOW_INPUTS_MATCH: { [W in JobWorkflow]: Matches<W> } = {
  campaignGenerationWorkflow: true,
  renderWorkflow: true,
  filmCommissionWorkflow: true,
  productImportWorkflow: true,
  selftestWorkflow: true,
  channelPostWorkflow: true,
};
void WORKFLOW_INPUTS_MATCH;

/** `JobLauncher` over a Temporal client. Every start carries the operator search attributes and a summary. */
export function createTemporalJobLauncher(client: Client, taskQueue: string): JobLauncher {
  return {
    async start<W extends JobWorkflow>(request: StartWorkflowRequest<W>) {
      const handle = await client.workflow.start<(typeof workflows)[W]>(request.workflowType, {
        taskQueue,
        workflowId: request.workflowId,
        // Generic `W` defers `Parameters<…>`; WORKFLOW_INPUTS_MATCH above proves the two agree for every W.
        args: [request.input] as Parameters<(typeof workflows)[W]>,
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        typedSearchAttributes: [
          { key: WorkspaceIdKey, value: request.workspaceId },
          { key: JobKindKey, value: request.kind },
          ...(request.campaignId ? [{ key: CampaignIdKey, value: request.campaignId }] : []),
        ],
        staticSummary: request.summary,
      });
      return { runId: handle.firstExecutionRunId };
    },

    async describe(workflowId, runId) {
      try {
        const description = await client.workflow.getHandle(workflowId, runId).describe();
        return STATE[description.status.name] ?? 'running';
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },

    async update<R>(workflowId: string, runId: string, name: string, arg: unknown) {
      try {
        const result = await client.workflow
          .getHandle(workflowId, runId)
          .executeUpdate<R, [unknown]>(name, { args: [arg] });
        return { accepted: true as const, result };
      } catch (error) {
        if (isNotFound(error)) return { accepted: false as const, reason: 'the job has ended' };
        // WorkflowUpdateFailedError: the validator or handler refused; its cause carries the workflow's reason.
        if ((error as { name?: string }).name === 'WorkflowUpdateFailedError') {
          const cause = (error as { cause?: { message?: string } }).cause;
          return { accepted: false as const, reason: cause?.message ?? 'the job refused the request' };
        }
        throw error;
      }
    },

    async cancel(workflowId, runId) {
      try {
        await client.workflow.getHandle(workflowId, runId).cancel();
      } catch (error) {
        if (isNotFound(error)) return;
        throw error;
      }
    },
  };
}
