/**
 * Deployments: a published campaign placed in a surface zone, with a priority and an optional schedule. Every
 * change republishes the brand site.
 */
import { ConflictError, NotFoundError } from '../../errors.ts';
import {
  afterCursor,
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  ORDER_NEWEST_FIRST,
  toPage,
  type Page,
} from '../shared/pagination.ts';
import { ownedBy, type WorkspaceScope } from '../shared/scope.ts';
import { parseInput } from '../shared/validate.ts';
import { Zone } from '../surfaces/surface.entity.ts';
import { findCampaign, type RepublishPort } from './campaigns.ts';
import { checkSchedule } from './campaign-status.ts';
import { iso } from './campaign-view.ts';
import {
  DeploymentFields,
  DeploymentUpdate,
  type DeploymentInput,
  type DeploymentUpdateInput,
} from './campaign-schemas.ts';
import { Deployment, type DEPLOYMENT_STATUSES } from './deployment.entity.ts';

export interface DeploymentView {
  id: string;
  campaignId: string;
  surfaceId: string;
  zoneId: string;
  status: string;
  priority: number;
  startsAt: string | null;
  endsAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export function toDeploymentView(deployment: Deployment): DeploymentView {
  return {
    id: deployment.id,
    campaignId: deployment.campaign.id,
    surfaceId: deployment.surface.id,
    zoneId: deployment.zone.id,
    status: deployment.status,
    priority: deployment.priority,
    startsAt: iso(deployment.startsAt),
    endsAt: iso(deployment.endsAt),
    createdAt: deployment.createdAt.toISOString(),
    updatedAt: deployment.updatedAt.toISOString(),
  };
}

export function createDeploymentOperations(deps: { republish: RepublishPort }) {
  return {
    async deploy(
      scope: WorkspaceScope,
      input: { campaignId: string; zoneId: string } & DeploymentInput,
    ): Promise<DeploymentView> {
      const data = parseInput(DeploymentFields, input, 'deployment');
      const campaign = await findCampaign(scope, input.campaignId);
      if (campaign.status !== 'published')
        throw new ConflictError(`Publish the campaign before deploying it (it is ${campaign.status})`);
      const zone = await scope.em.findOne(Zone, { id: input.zoneId }, { populate: ['surface'] });
      if (!zone) throw new NotFoundError('Zone', input.zoneId);
      const duplicate = await scope.em.findOne(Deployment, {
        campaign: campaign.id,
        zone: zone.id,
        status: { $ne: 'ended' },
      });
      if (duplicate)
        throw new ConflictError(
          `The campaign is already deployed to this zone (${duplicate.id}); use update_deployment`,
          { deploymentId: duplicate.id },
        );
      const startsAt = data.startsAt ? new Date(data.startsAt) : null;
      const endsAt = data.endsAt ? new Date(data.endsAt) : null;
      checkSchedule(startsAt, endsAt);
      const deployment = scope.em.create(Deployment, {
        ...ownedBy(scope),
        campaign,
        surface: zone.surface,
        zone,
        status: 'active',
        priority: data.priority ?? 0,
        startsAt,
        endsAt,
      });
      await scope.em.flush();
      await deps.republish.requestRepublish(scope, `campaign ${campaign.id} deployed to ${zone.id}`);
      return toDeploymentView(deployment);
    },

    async updateDeployment(
      scope: WorkspaceScope,
      deploymentId: string,
      input: DeploymentUpdateInput,
    ): Promise<DeploymentView> {
      const data = parseInput(DeploymentUpdate, input, 'deployment');
      const deployment = await scope.em.findOne(Deployment, { id: deploymentId });
      if (!deployment) throw new NotFoundError('Deployment', deploymentId);
      if (deployment.status === 'ended')
        throw new ConflictError('The deployment has ended; deploy the campaign again to place it anew');
      if (data.status !== undefined) deployment.status = data.status;
      if (data.priority !== undefined) deployment.priority = data.priority;
      if (data.startsAt !== undefined) deployment.startsAt = data.startsAt ? new Date(data.startsAt) : null;
      if (data.endsAt !== undefined) deployment.endsAt = data.endsAt ? new Date(data.endsAt) : null;
      checkSchedule(deployment.startsAt, deployment.endsAt);
      await scope.em.flush();
      await deps.republish.requestRepublish(scope, `deployment ${deployment.id} updated`);
      return toDeploymentView(deployment);
    },

    async listDeployments(
      scope: WorkspaceScope,
      input: {
        campaignId?: string;
        surfaceId?: string;
        status?: (typeof DEPLOYMENT_STATUSES)[number];
        cursor?: string;
        limit?: number;
      },
    ): Promise<Page<DeploymentView>> {
      if (input.campaignId) await findCampaign(scope, input.campaignId);
      const limit = input.limit ?? DEFAULT_PAGE_SIZE;
      const rows = await scope.em.find(
        Deployment,
        {
          ...(input.campaignId ? { campaign: input.campaignId } : {}),
          ...(input.surfaceId ? { surface: input.surfaceId } : {}),
          ...(input.status ? { status: input.status } : {}),
          ...afterCursor(decodeCursor(input.cursor)),
        },
        { orderBy: ORDER_NEWEST_FIRST, limit: limit + 1 },
      );
      return toPage(rows, limit, toDeploymentView);
    },
  };
}
