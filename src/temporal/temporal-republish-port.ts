/**
 * `RepublishPort` over a Temporal client: changes that alter the brand site (publish, deploy, variant saves,
 * brand updates) signal the workspace's republish workflow, which debounces bursts of changes and writes the
 * next site publication. The request is one Temporal call (signal-with-start); if Temporal is unreachable the
 * change itself still stands and the next change republishes it. Lives next to the job launcher: domain code
 * asks through the port and never talks to Temporal itself.
 */
import type { Client } from '@temporalio/client';
import type { RepublishPort } from '../domain/campaigns/campaigns.service.ts';
import type { WorkspaceScope } from '../domain/shared/scope.ts';
import type { Logger } from '../logger.ts';
import { JobKindKey, WorkspaceIdKey } from './search-attributes.ts';

const REPUBLISH_SIGNAL = 'republishRequested';

function republishWorkflowId(workspaceId: string): string {
  return `republish:${workspaceId}:site`;
}

export function createRepublishPort(deps: { client: Client; taskQueue: string; log: Logger }): RepublishPort {
  return {
    async requestRepublish(scope: WorkspaceScope, reason: string) {
      try {
        await deps.client.workflow.signalWithStart('republishWorkflow', {
          workflowId: republishWorkflowId(scope.workspaceId),
          taskQueue: deps.taskQueue,
          args: [{ workspaceId: scope.workspaceId }],
          signal: REPUBLISH_SIGNAL,
          signalArgs: [{ reason: reason.slice(0, 200) }],
          typedSearchAttributes: [
            { key: WorkspaceIdKey, value: scope.workspaceId },
            { key: JobKindKey, value: 'republish' },
          ],
          staticSummary: `Republish the brand site of ${scope.workspaceId}`,
        });
      } catch (error) {
        deps.log.warn(
          { err: error, workspaceId: scope.workspaceId, reason },
          'republish request failed; it will be retried by the next change',
        );
      }
    },
  };
}
