/**
 * Deployments: a published campaign placed in a surface zone, with a priority and an optional schedule. Every
 * change republishes the brand site.
 */
import { CompiledQuery } from 'kysely';
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

/** What is live in a zone: how many campaigns, and the most recently deployed few of them. */
export interface ZoneLiveCampaigns {
  count: number;
  latest: { id: string; name: string }[];
}

/**
 * What is live in each of `zoneIds`, in one grouped read: the count of active deployments and the `perZone`
 * most recent of them with their campaign's name. For a page listing zones (the console's surfaces), which
 * would otherwise read and hydrate every active deployment of the workspace to show a few names per zone.
 */
export async function liveCampaignsByZone(
  scope: WorkspaceScope,
  zoneIds: readonly string[],
  perZone: number,
): Promise<Map<string, ZoneLiveCampaigns>> {
  const live = new Map<string, ZoneLiveCampaigns>();
  if (!zoneIds.length) return live;
  // Raw SQL for the window functions; scoped explicitly by the workspace, as the ORM's filter would.
  const { rows } = await scope.em
    .getConnection()
    .getClient()
    .executeQuery<{ zone_id: string; campaign_id: string; name: string; total: string }>(
      CompiledQuery.raw(
        `select zone_id, campaign_id, name, total from (
           select d.zone_id, c.id as campaign_id, c.name, count(*) over (partition by d.zone_id) as total,
             row_number() over (partition by d.zone_id order by d.created_at desc, d.id desc) as n
           from deployments d join campaigns c on c.id = d.campaign_id and c.workspace_id = d.workspace_id
           where d.workspace_id = $1 and d.status = 'active' and d.zone_id = any($2::varchar[])
         ) ranked where n <= $3 order by zone_id, n`,
        [scope.workspaceId, [...zoneIds], perZone],
      ),
    );
  for (const row of rows) {
    let zone = live.get(row.zone_id);
    if (!zone) live.set(row.zone_id, (zone = { count: Number(row.total), latest: [] }));
    zone.latest.push({ id: row.campaign_id, name: row.name });
  }
  return live;
}
