/**
 * First-run demo data for `npm start`: one person, one workspace, one API key and some credits, so a fresh
 * clone can be tried with curl and an MCP client at once. Runs only when the database has no users.
 */
import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { CreditsService } from '../domain/credits/credits.service.ts';
import { User } from '../domain/workspaces/user.entity.ts';
import type { WorkspacesService } from '../domain/workspaces/workspaces.service.ts';

export interface DemoSeed {
  email: string;
  password: string;
  workspaceId: string;
  workspaceName: string;
  apiKey: string;
}

export const DEMO_EMAIL = 'demo@example.com';
export const DEMO_CREDITS = 1_000;

export async function seedDemoIfEmpty(
  orm: MikroORM,
  services: { workspaces: WorkspacesService; credits: CreditsService },
): Promise<DemoSeed | null> {
  const em = orm.em.fork();
  if ((await em.count(User, {})) > 0) return null;
  const password = randomBytes(12).toString('base64url');
  const user = await services.workspaces.createUser(em, { email: DEMO_EMAIL, name: 'Demo User', password });
  const workspace = await services.workspaces.createWorkspace(em, { name: 'Demo workspace', ownerUserId: user.id });
  const { secret } = await services.workspaces.createApiKey(em, workspace.id, {
    name: 'Demo key (npm start)',
    role: 'owner',
    createdByUserId: user.id,
  });
  await services.credits.grant(em, {
    workspaceId: workspace.id,
    amount: DEMO_CREDITS,
    idempotencyKey: `demo-seed:${workspace.id}`,
    description: 'demo credits from the first `npm start`',
    actor: 'operator',
  });
  return { email: user.email, password, workspaceId: workspace.id, workspaceName: workspace.name, apiKey: secret };
}

/**
 * The demo person's first workspace (null once they or it are gone): the start banner names it in the CLI
 * commands it suggests, so they can be run as printed.
 */
export async function findDemoWorkspace(
  orm: MikroORM,
  services: { workspaces: WorkspacesService },
): Promise<{ id: string; name: string } | null> {
  const em = orm.em.fork();
  const user = await em.findOne(User, { email: DEMO_EMAIL });
  if (!user) return null;
  const [first] = await services.workspaces.listForUser(em, user.id);
  return first ? { id: first.workspace.id, name: first.workspace.name } : null;
}
