/** Builders of real rows through the real services (no fixtures files). */
import { randomBytes } from 'node:crypto';
import type { Container } from '../../src/container.ts';
import type { Role } from '../../src/domain/workspaces/roles.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';

export interface Tenant {
  userId: string;
  email: string;
  workspaceId: string;
  workspaceName: string;
  apiKey: string;
  apiKeyId: string;
}

const unique = () => randomBytes(4).toString('hex');

export async function createTenant(
  container: Container,
  options: { name?: string; role?: Role; credits?: number; password?: string } = {},
): Promise<Tenant> {
  const { workspaces, credits } = container.services;
  const em = acrossWorkspaces(container.orm.em);
  const tag = unique();
  const user = await workspaces.createUser(em, {
    email: `owner-${tag}@example.test`,
    name: `Owner ${tag}`,
    password: options.password,
  });
  const workspace = await workspaces.createWorkspace(em, {
    name: options.name ?? `Workspace ${tag}`,
    ownerUserId: user.id,
  });
  const { key, secret } = await workspaces.createApiKey(em, workspace.id, {
    name: 'test key',
    role: options.role ?? 'owner',
    createdByUserId: user.id,
  });
  if (options.credits) {
    await credits.grant(em, {
      workspaceId: workspace.id,
      amount: options.credits,
      idempotencyKey: `test-grant:${workspace.id}`,
      actor: 'operator',
    });
  }
  return {
    userId: user.id,
    email: user.email,
    workspaceId: workspace.id,
    workspaceName: workspace.name,
    apiKey: secret,
    apiKeyId: key.id,
  };
}

/** Another API key in an existing workspace, with the given role (created by the workspace owner). */
export async function createKey(
  container: Container,
  tenant: Tenant,
  role: Role,
  name = `${role} key`,
): Promise<string> {
  const { secret } = await container.services.workspaces.createApiKey(
    acrossWorkspaces(container.orm.em),
    tenant.workspaceId,
    {
      name,
      role,
      createdByUserId: tenant.userId,
    },
  );
  return secret;
}
