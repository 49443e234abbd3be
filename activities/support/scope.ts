/**
 * The scope an activity works in: the workspace its workflow was started for, acting as that job. Built the
 * same way as every other scope (domain/shared/scope.ts), so the workspace filter limits what it can touch.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { actors, workspaceScope, type WorkspaceScope } from '../../src/domain/shared/scope.ts';

export function activityScope(orm: MikroORM, input: { workspaceId: string; jobId?: string }): WorkspaceScope {
  return workspaceScope(orm.em, input.workspaceId, actors.workflow(input.jobId ?? 'unknown'));
}
