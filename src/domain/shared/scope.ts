import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The unit of tenancy every service method receives first. Repositories add `workspace: scope.workspaceId`
 * to every query, so another workspace's ids behave exactly like ids that do not exist.
 */
export interface WorkspaceScope {
  workspaceId: string;
  /** A forked EntityManager owned by the current request or activity. */
  em: EntityManager;
  /** Audit actor: `key:<id>`, `client:<id>/user:<id>`, `user:<id>`, `operator`, `workflow:<id>`. */
  actor: string;
}
