/** The caller's workspace as an agent sees it (`get_platform_info topic=organization`, `svc://org/{id}`). */
import type { CreditsService, CreditBalance } from '../credits/credits.service.ts';
import { NotFoundError } from '../../errors.ts';
import type { WorkspaceScope } from '../shared/scope.ts';
import type { Role } from './roles.ts';
import { Workspace } from './workspace.entity.ts';

export interface OrganizationView {
  id: string;
  name: string;
  slug: string;
  /** The caller's role in this workspace. */
  role: Role;
  credits: CreditBalance;
  brandSiteUrl: string;
  createdAt: string;
}

export function createOrganizationService(deps: { credits: CreditsService; brandSiteUrl: (slug: string) => string }) {
  return {
    async get(scope: WorkspaceScope, role: Role): Promise<OrganizationView> {
      const workspace = await scope.em.findOne(Workspace, { id: scope.workspaceId });
      if (!workspace) throw new NotFoundError('Workspace', scope.workspaceId);
      return {
        id: workspace.id,
        name: workspace.name,
        slug: workspace.slug,
        role,
        credits: await deps.credits.balance(scope.em, workspace.id),
        brandSiteUrl: deps.brandSiteUrl(workspace.slug),
        createdAt: workspace.createdAt.toISOString(),
      };
    },
  };
}

export type OrganizationService = ReturnType<typeof createOrganizationService>;
