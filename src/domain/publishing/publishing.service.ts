/**
 * Republishing: changes that alter the brand site ask for it through the `RepublishPort`
 * (`campaigns.service.ts`), which `temporal/temporal-republish-port.ts` implements over Temporal.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../logger.ts';
import type { RepublishPort } from '../campaigns/campaigns.service.ts';
import { PUBLICATION_FORMAT } from './site-snapshot.ts';
import { actors, workspaceScope } from '../shared/scope.ts';

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
    // Only old-format rows are read (their number stops growing once every site is republished), each checked
    // against the (workspace, version) index for a newer publication: start-up never sorts every version.
    `select p.workspace_id from site_publications p
      where p.format < ?
        and not exists (
          select 1 from site_publications newer where newer.workspace_id = p.workspace_id and newer.version > p.version
        )`,
    [PUBLICATION_FORMAT],
  );
  const workspaceIds = rows.map((row) => row.workspace_id);
  for (const workspaceId of workspaceIds) {
    await deps.republish.requestRepublish(
      workspaceScope(deps.em, workspaceId, actors.operator),
      `publication format ${PUBLICATION_FORMAT}`,
    );
  }
  if (workspaceIds.length) {
    deps.log.info({ workspaces: workspaceIds.length }, 'republishing sites published under an older format');
  }
  return workspaceIds;
}
