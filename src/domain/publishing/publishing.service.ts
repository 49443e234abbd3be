/**
 * Republishing: changes that alter the brand site (publish, deploy, variant saves, brand updates) signal the
 * workspace's republish workflow, which debounces bursts of changes and writes the next site publication.
 * The request is one Temporal call (signal-with-start); if Temporal is unreachable the change itself still
 * stands and the next change republishes it.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from '../../logger.ts';
import type { RepublishPort } from '../campaigns/campaigns.service.ts';
import type { WorkspaceScope } from '../shared/scope.ts';
import { JobKindKey, WorkspaceIdKey } from '../../temporal/search-attributes.ts';
import { PUBLICATION_FORMAT } from './site-snapshot.ts';

export const REPUBLISH_SIGNAL = 'republishRequested';

export function republishWorkflowId(workspaceId: string): string {
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

/**
 * Asks for a republish of every site whose latest publication was written under an older
 * `PUBLICATION_FORMAT`, so pages stored before a rule changed (say, before the objective became internal)
 * are replaced without waiting for the brand's next change. Runs when the API starts; the republish
 * workflow coalesces the requests of several instances starting at once. Returns the workspaces asked.
 */
export async function republishOutdatedSites(deps: {
  em: EntityManager;
  republish: RepublishPort;
  log: Logger;
}): Promise<string[]> {
  const rows: Array<{ workspace_id: string }> = await deps.em.getConnection().execute(
    `select workspace_id from (
       select distinct on (workspace_id) workspace_id, format from site_publications order by workspace_id, version desc
     ) latest where format < ?`,
    [PUBLICATION_FORMAT],
  );
  const workspaceIds = rows.map((row) => row.workspace_id);
  for (const workspaceId of workspaceIds) {
    await deps.republish.requestRepublish(
      { workspaceId, em: deps.em, actor: 'operator' },
      `publication format ${PUBLICATION_FORMAT}`,
    );
  }
  if (workspaceIds.length) {
    deps.log.info({ workspaces: workspaceIds.length }, 'republishing sites published under an older format');
  }
  return workspaceIds;
}
