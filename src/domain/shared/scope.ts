/**
 * Workspace scoping: the one module that decides which workspace a unit of work can see.
 *
 * Every edge (the MCP server, the dashboard, the conversions API, the CLI, an activity) builds its scope with
 * `workspaceScope`. The scope's EntityManager carries the `workspace` filter's parameter, so every find, count,
 * update and delete of workspace-owned data through it is limited to that workspace by MikroORM itself: another
 * workspace's ids behave exactly like ids that do not exist, without a clause in the query. New rows get their
 * workspace from `ownedBy(scope)`.
 *
 * The backstop: `workspaceFilter` (installed in `db/orm.ts`) refuses to run a query of workspace-owned data on
 * an EntityManager that has no scope, unless the query says `ACROSS_WORKSPACES` — the few reads that must see
 * every workspace by design (serving a public site by host name, authenticating a credential, operator
 * sweeps). So forgetting the scope fails loudly in the first test that runs the path, instead of leaking.
 *
 * Raw SQL (analytics rollups, the site store) does not pass through the filter: those queries take the scope's
 * `workspaceId` as a bound parameter and are covered by the isolation tests.
 */
import type { EntityManager, EntityMetadata } from '@mikro-orm/postgresql';

/** The name of the MikroORM filter that limits workspace-owned entities to one workspace. */
export const WORKSPACE_FILTER = 'workspace';

/**
 * Find options for a query that must see every workspace on purpose (by host name, by credential hash, an
 * operator sweep). Each use is a decision someone can grep for.
 */
export const ACROSS_WORKSPACES = { filters: { [WORKSPACE_FILTER]: false } } as const;

/**
 * Who acts, as written in the audit log and on jobs: an API key, an OAuth client acting for a user, a signed-in
 * user, the operator CLI, or a workflow.
 */
export type Actor =
  `key:${string}` | `client:${string}/user:${string}` | `user:${string}` | 'operator' | `workflow:${string}`;

/** The one way to write each kind of actor. */
export const actors = {
  apiKey: (apiKeyId: string): Actor => `key:${apiKeyId}`,
  oauthClient: (clientId: string | null, userId: string | null): Actor =>
    `client:${clientId ?? 'unknown'}/user:${userId ?? 'unknown'}`,
  user: (userId: string): Actor => `user:${userId}`,
  operator: 'operator' as Actor,
  /** A workflow's activity acting for a job (`jobId`) or a named background process. */
  workflow: (jobIdOrName: string): Actor => `workflow:${jobIdOrName}`,
};

/** The unit of tenancy every service method receives first. Build it with `workspaceScope`. */
export interface WorkspaceScope {
  readonly workspaceId: string;
  /** An EntityManager of this unit of work, limited to `workspaceId` by the workspace filter. */
  readonly em: EntityManager;
  readonly actor: Actor;
}

/** Limits an EntityManager (a fork owned by the caller) to one workspace. */
function limitToWorkspace(em: EntityManager, workspaceId: string): EntityManager {
  em.setFilterParams(WORKSPACE_FILTER, { workspaceId });
  return em;
}

/**
 * A fork of `parent` limited to one workspace, for services whose entry points name the workspace in their
 * input (a credit posting, a workspace's own settings) rather than receiving a scope.
 */
export function forWorkspace(parent: EntityManager, workspaceId: string): EntityManager {
  return limitToWorkspace(parent.fork(), workspaceId);
}

/**
 * The one way to build a scope. `parent` is forked on first use, so work that never touches a unit of work
 * (the campaign list reads through the pool) does not pay for one.
 */
export function workspaceScope(parent: EntityManager, workspaceId: string, actor: Actor): WorkspaceScope {
  let em: EntityManager | undefined;
  return {
    workspaceId,
    actor,
    get em() {
      return (em ??= limitToWorkspace(parent.fork(), workspaceId));
    },
  };
}

/**
 * A fork that sees every workspace on purpose: operator sweeps, serving a public site by host name, tests that
 * inspect rows. Prefer `ACROSS_WORKSPACES` on the one query when only one query needs it.
 */
export function acrossWorkspaces(parent: EntityManager): EntityManager {
  const em = parent.fork();
  em.setFilterParams(WORKSPACE_FILTER, { acrossWorkspaces: true });
  return em;
}

/** The same scope on another EntityManager of the same unit of work (a transaction's, a fresh fork). */
export function withEntityManager(scope: WorkspaceScope, em: EntityManager): WorkspaceScope {
  return { workspaceId: scope.workspaceId, actor: scope.actor, em: limitToWorkspace(em, scope.workspaceId) };
}

/** The owner of a new workspace-owned row: spread it into `em.create(Entity, { ...ownedBy(scope), … })`. */
export function ownedBy(scope: Pick<WorkspaceScope, 'workspaceId'>): { workspace: string } {
  return { workspace: scope.workspaceId };
}

/** A query of workspace-owned data ran outside any scope (see the module comment). */
export class UnscopedQueryError extends Error {
  constructor(entityName: string) {
    super(
      `${entityName} is workspace-owned data: query it through a WorkspaceScope (domain/shared/scope.ts) or pass ` +
        'ACROSS_WORKSPACES when every workspace must be seen on purpose',
    );
    this.name = 'UnscopedQueryError';
  }
}

/**
 * The access entities: API keys, memberships and OAuth grant bindings are what a scope is built from (a key is
 * found by its hash, a person's workspaces by their memberships, a token's workspace by its grant) before any
 * workspace is known, so they are read across workspaces by design. The workspaces service and the OAuth
 * provider own them and name the workspace in every query they make of them.
 */
const ACCESS_ENTITIES = new Set(['ApiKey', 'Membership', 'OAuthGrantBinding']);

const ownership = new WeakMap<EntityMetadata, boolean>();

/** Workspace-owned: the entity has a `workspace` relation to the Workspace entity (access entities aside). */
function isWorkspaceOwned(meta: EntityMetadata): boolean {
  let owned = ownership.get(meta);
  if (owned === undefined) {
    const relation = meta.properties['workspace' as keyof typeof meta.properties];
    owned =
      relation !== undefined && relation.targetMeta?.className === 'Workspace' && !ACCESS_ENTITIES.has(meta.className);
    ownership.set(meta, owned);
  }
  return owned;
}

/**
 * The MikroORM filter behind every scope (registered for all entities in `db/orm.ts`): on a workspace-owned
 * entity it adds `workspace = <scope's workspace>`, and without a scope it refuses the query.
 */
export const workspaceFilter = {
  name: WORKSPACE_FILTER,
  default: true,
  // The parameter is optional for MikroORM: entities that no workspace owns run without one.
  args: false,
  cond(
    args: { workspaceId?: string; acrossWorkspaces?: true } | undefined,
    _type: string,
    em: EntityManager,
    _options: unknown,
    entityName?: string,
  ) {
    const meta = entityName ? em.getMetadata().getByClassName(entityName, false) : undefined;
    if (!meta || !isWorkspaceOwned(meta) || args?.acrossWorkspaces) return {};
    if (!args?.workspaceId) throw new UnscopedQueryError(meta.className);
    return { workspace: args.workspaceId };
  },
};
