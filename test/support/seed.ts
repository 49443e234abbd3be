/** One of every campaign-domain entity in a workspace, created through the real services. */
import { CHANNEL_NETWORKS, NETWORK_NAMES, type ChannelNetwork } from '../../src/domain/channels/channel-networks.ts';
import type { Container } from '../../src/container.ts';
import { ChannelAccount } from '../../src/domain/channels/channel-account.entity.ts';
import { ChannelPost } from '../../src/domain/channels/channel-post.entity.ts';
import { FilmCommission } from '../../src/domain/films/film-commission.entity.ts';
import { Job } from '../../src/domain/jobs/job.entity.ts';
import { newTaskId } from '../../src/domain/jobs/task-ids.ts';
import { acrossWorkspaces, type WorkspaceScope, workspaceScope, actors } from '../../src/domain/shared/scope.ts';
import type { Tenant } from './factories.ts';

export interface SeededWorkspace {
  productId: string;
  /** Published, with two variants and one active deployment. */
  campaignId: string;
  variantId: string;
  secondVariantId: string;
  /** A draft campaign with one variant (not published). */
  draftCampaignId: string;
  draftVariantId: string;
  surfaceId: string;
  zoneId: string;
  /** An empty zone on the same surface. */
  freeZoneId: string;
  deploymentId: string;
  /** A finished render job (row only) and a film commission waiting at the storyboard gate (row only). */
  jobId: string;
  commissionId: string;
  /**
   * A connected Bluesky account that needs reconnecting (so nothing reaches a network), and a draft post of it
   * made from the published campaign's variant (rows only).
   */
  /** The Bluesky account and draft (`channels.bluesky`). */
  channelAccountId: string;
  channelPostId: string;
  /** Every network's seeded account and draft. */
  channels: Record<ChannelNetwork, { accountId: string; postId: string }>;
}

export function scopeOf(container: Container, tenant: Tenant): WorkspaceScope {
  return workspaceScope(container.orm.em, tenant.workspaceId, actors.operator);
}

export async function seedWorkspace(container: Container, tenant: Tenant, label = 'Seed'): Promise<SeededWorkspace> {
  const { products, campaigns, surfaces } = container.services;
  const scope = scopeOf(container, tenant);
  const product = await products.create(scope, {
    title: `${label} linen shirt`,
    description: 'Breathable linen.',
    price: 49.5,
    currency: 'EUR',
    images: ['https://cdn.example.test/shirt.jpg'],
  });
  const campaign = await campaigns.create(scope, {
    name: `${label} summer`,
    objective: 'Sell shirts',
    productIds: [product.id],
  });
  const variant = await campaigns.createVariant(scope, campaign.id, {
    headline: 'Stay cool',
    body: 'Linen for hot days.',
    callToAction: 'Shop now',
  });
  const second = await campaigns.createVariant(scope, campaign.id, {
    headline: 'Feel light',
    body: 'Weightless linen.',
    callToAction: 'See more',
  });
  await campaigns.publish(scope, campaign.id);
  const draft = await campaigns.create(scope, { name: `${label} autumn` });
  const draftVariant = await campaigns.createVariant(scope, draft.id, {
    headline: 'Layer up',
    body: 'Autumn knits.',
    callToAction: 'Browse',
  });
  const surface = await surfaces.createSurface(scope, { name: `${label} home`, kind: 'brand_page', path: '/home' });
  const zone = await surfaces.createZone(scope, { surfaceId: surface.id, name: 'Hero', key: 'hero', kind: 'hero' });
  const freeZone = await surfaces.createZone(scope, {
    surfaceId: surface.id,
    name: 'Card',
    key: 'card-1',
    kind: 'card',
  });
  const deployment = await campaigns.deploy(scope, { campaignId: campaign.id, zoneId: zone.id });
  // Long-job rows, written directly: the matrix needs their ids, not a worker to produce them.
  const em = acrossWorkspaces(container.orm.em);
  const job = em.create(Job, {
    workspace: tenant.workspaceId,
    taskId: newTaskId(),
    kind: 'render',
    status: 'succeeded',
    workflowId: `render:${tenant.workspaceId}:${label}`,
    runId: null,
    subjectId: campaign.id,
    input: { request: { mode: 'still', campaignId: campaign.id, variantId: variant.id, format: 'landscape' } },
    progress: { fraction: 1 },
    result: null,
    error: null,
    createdBy: 'test:seed',
    startedAt: new Date(),
    finishedAt: new Date(),
    cancelRequestedAt: null,
  });
  const film = em.create(FilmCommission, {
    workspace: tenant.workspaceId,
    campaign: campaign.id,
    title: `${label} film`,
    brief: 'A short film about linen shirts in summer.',
    aspect: '16:9',
    durationSeconds: 15,
    status: 'awaiting_storyboard_approval',
    revision: 0,
    revisions: [],
    script: null,
    storyboard: null,
    output: null,
    jobId: null,
    createdBy: 'test:seed',
  });
  // One account (without credentials) and one draft per network, so every channel tool has ids to act on.
  const channels = {} as Record<ChannelNetwork, { accountId: string; postId: string }>;
  for (const network of CHANNEL_NETWORKS) {
    const account = em.create(ChannelAccount, {
      workspace: tenant.workspaceId,
      network,
      kind: network === 'meta' ? 'facebook_page' : null,
      externalId:
        network === 'bluesky'
          ? `did:plc:${label.toLowerCase()}${tenant.workspaceId.slice(-8).toLowerCase()}`
          : `${network}:${label.toLowerCase()}${tenant.workspaceId.slice(-8).toLowerCase()}`,
      handle: network === 'bluesky' ? `${label.toLowerCase()}.bsky.social` : `${label.toLowerCase()}-${network}`,
      displayName: `${label} on ${NETWORK_NAMES[network]}`,
      status: 'needs_reconnect',
      statusReason: 'Seeded without credentials.',
      credentials: null,
      accessExpiresAt: null,
      connectedBy: 'test:seed',
      connectedAt: new Date(),
    });
    const post = em.create(ChannelPost, {
      workspace: tenant.workspaceId,
      account,
      network,
      status: 'draft',
      campaign: campaign.id,
      variant: variant.id,
      text: `${label} post`,
      link: null,
      media: [],
      langs: [],
      recordKey: network === 'bluesky' ? '3kseed22222a2' : `seed${network}22222a2`,
      createdBy: 'test:seed',
    });
    channels[network] = { accountId: account.id, postId: post.id };
  }
  await em.flush();
  return {
    channelAccountId: channels.bluesky.accountId,
    channelPostId: channels.bluesky.postId,
    channels,
    jobId: job.id,
    commissionId: film.id,
    productId: product.id,
    campaignId: campaign.id,
    variantId: variant.id,
    secondVariantId: second.id,
    draftCampaignId: draft.id,
    draftVariantId: draftVariant.id,
    surfaceId: surface.id,
    zoneId: zone.id,
    freeZoneId: freeZone.id,
    deploymentId: deployment.id,
  };
}

/**
 * A fingerprint of every campaign-domain row of a workspace: counts plus the latest change. Equal
 * fingerprints before and after a call mean the call changed nothing (the audit log is excluded: refused
 * and failed mutations are recorded there by design).
 */
export async function domainFingerprint(container: Container, workspaceId: string): Promise<string> {
  const rows = await container.orm.em.getConnection().execute<Record<string, unknown>[]>(
    `select 'campaigns' t, count(*) n, max(updated_at)::text latest, string_agg(status::text || coalesce(deleted_at::text, ''), ',' order by id) s from campaigns where workspace_id = ?
     union all select 'variants', count(*), max(updated_at)::text, string_agg(version::text || coalesce(deleted_at::text, ''), ',' order by id) from variants where workspace_id = ?
     union all select 'variant_versions', count(*), max(vv.created_at)::text, null from variant_versions vv join variants v on v.id = vv.variant_id where v.workspace_id = ?
     union all select 'deployments', count(*), max(updated_at)::text, string_agg(status::text, ',' order by id) from deployments where workspace_id = ?
     union all select 'products', count(*), max(updated_at)::text, string_agg(coalesce(deleted_at::text, ''), ',' order by id) from products where workspace_id = ?
     union all select 'surfaces', count(*), max(updated_at)::text, null from surfaces where workspace_id = ?
     union all select 'zones', count(*), max(created_at)::text, null from zones where workspace_id = ?
     union all select 'brands', count(*), max(updated_at)::text, max(version)::text from brands where workspace_id = ?
     union all select 'campaign_products', count(*), null, string_agg(cp.product_id, ',' order by cp.campaign_id, cp.product_id) from campaign_products cp join campaigns c on c.id = cp.campaign_id where c.workspace_id = ?
     union all select 'jobs', count(*), max(updated_at)::text, string_agg(status::text, ',' order by id) from jobs where workspace_id = ?
     union all select 'film_commissions', count(*), max(updated_at)::text, string_agg(status::text, ',' order by id) from film_commissions where workspace_id = ?
     union all select 'credit_quotes', count(*), max(created_at)::text, string_agg(coalesce(used_at::text, ''), ',' order by id) from credit_quotes where workspace_id = ?
     union all select 'credit_ledger_entries', count(*), max(created_at)::text, null from credit_ledger_entries where workspace_id = ?
     union all select 'channel_accounts', count(*), max(updated_at)::text, string_agg(status::text, ',' order by id) from channel_accounts where workspace_id = ?
     union all select 'channel_posts', count(*), max(updated_at)::text, string_agg(status::text || version::text, ',' order by id) from channel_posts where workspace_id = ?`,
    Array(15).fill(workspaceId),
  );
  return JSON.stringify(rows);
}
