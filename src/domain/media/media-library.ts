/**
 * The workspace's generated media in one list, with where each is used: the images on campaign variants, the
 * outputs of finished render jobs (stills and videos) and the cuts of completed films. The platform keeps no
 * separate media index: each file is recorded where it was made (a variant's `imageRefs`, a render job's
 * result, a film commission's output), so this reads those three places, newest first.
 *
 * No MCP tool lists media; the console's media page reads this directly (a read, so nothing to audit).
 */
import { raw } from '@mikro-orm/core';
import { Campaign } from '../campaigns/campaign.entity.ts';
import { Variant } from '../campaigns/variant.entity.ts';
import { FilmCommission } from '../films/film-commission.entity.ts';
import { Job } from '../jobs/job.entity.ts';
import { RENDER_KIND } from '../renders/renders.service.ts';
import type { RenderOutput, RenderRequest } from '../renders/render.types.ts';
import type { WorkspaceScope } from '../shared/scope.ts';

export type MediaSource = 'variant_image' | 'render' | 'film';

export interface MediaItem {
  source: MediaSource;
  url: string;
  /** `image/png`, `video/mp4`…; null for a variant image given by address only. */
  mimeType: string | null;
  /** A short description: the image's alt text, the render's mode, the film's title. */
  label: string;
  width: number | null;
  height: number | null;
  durationSeconds: number | null;
  createdAt: string;
  /** Where it is used; null when it belongs to no campaign (a template render without one). */
  usedIn: { campaignId: string; campaignName: string; variantId: string | null; variantName: string | null } | null;
}

/** At most this many of each source are read (newest first): the page shows the most recent media. */
export const MEDIA_PER_SOURCE = 100;

export async function listWorkspaceMedia(scope: WorkspaceScope): Promise<MediaItem[]> {
  const [variantItems, renderItems, filmItems] = await Promise.all([
    variantImages(scope),
    renderOutputs(scope),
    filmCuts(scope),
  ]);
  return [...variantItems, ...renderItems, ...filmItems].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

async function variantImages(scope: WorkspaceScope): Promise<MediaItem[]> {
  const em = scope.em.fork();
  // The newest variants that have images, and only the columns shown: a page of media must not hydrate every
  // recent variant's copy and its campaign (that was most of the page's time on a large workspace).
  const variants = await em.find(
    Variant,
    {
      deletedAt: null,
      campaign: { deletedAt: null },
      [raw((alias) => `jsonb_array_length(${alias}.image_refs)`)]: { $gt: 0 },
    },
    {
      fields: ['id', 'name', 'imageRefs', 'updatedAt', 'campaign.id', 'campaign.name'],
      orderBy: { updatedAt: 'desc', id: 'desc' },
      limit: MEDIA_PER_SOURCE,
    },
  );
  return variants
    .flatMap((variant) =>
      variant.imageRefs.map<MediaItem>((image) => ({
        source: 'variant_image',
        url: image.url,
        mimeType: null,
        label: image.alt ?? `Image of ${variant.name}`,
        width: null,
        height: null,
        durationSeconds: null,
        createdAt: variant.updatedAt.toISOString(),
        usedIn: {
          campaignId: variant.campaign.id,
          campaignName: variant.campaign.getEntity().name,
          variantId: variant.id,
          variantName: variant.name,
        },
      })),
    )
    .slice(0, MEDIA_PER_SOURCE);
}

async function renderOutputs(scope: WorkspaceScope): Promise<MediaItem[]> {
  const em = scope.em.fork();
  const jobs = await em.find(
    Job,
    { kind: RENDER_KIND, status: 'succeeded' },
    {
      fields: ['id', 'input', 'result', 'finishedAt', 'createdAt'],
      orderBy: { finishedAt: 'desc', id: 'desc' },
      limit: MEDIA_PER_SOURCE,
    },
  );
  const outputs = jobs.flatMap((job) => {
    const output = (job.result as { output?: RenderOutput } | null)?.output;
    const request = (job.input as { request?: RenderRequest }).request;
    return output ? [{ job, output, request }] : [];
  });
  const names = await namesOf(
    scope,
    outputs.map(({ request }) => request ?? null),
  );
  return outputs.map(({ job, output, request }) => {
    const campaignId = request && 'campaignId' in request ? request.campaignId : null;
    const variantId = request && 'variantId' in request ? request.variantId : null;
    const campaignName = campaignId ? names.campaigns.get(campaignId) : undefined;
    return {
      source: 'render',
      url: output.url,
      mimeType: output.mimeType,
      label: request
        ? `${request.mode === 'still' ? `Still (${request.format})` : request.mode === 'video' ? `Video (${request.templateId})` : 'Campaign video'}`
        : 'Render',
      width: output.width,
      height: output.height,
      durationSeconds: output.durationSeconds,
      createdAt: (job.finishedAt ?? job.createdAt).toISOString(),
      usedIn:
        campaignId && campaignName
          ? {
              campaignId,
              campaignName,
              variantId,
              variantName: variantId ? (names.variants.get(variantId) ?? null) : null,
            }
          : null,
    };
  });
}

async function filmCuts(scope: WorkspaceScope): Promise<MediaItem[]> {
  const em = scope.em.fork();
  const films = await em.find(
    FilmCommission,
    { output: { $ne: null } },
    { populate: ['campaign'], orderBy: { updatedAt: 'desc', id: 'desc' }, limit: MEDIA_PER_SOURCE },
  );
  return films.flatMap((film) => {
    if (!film.output) return [];
    const campaign = film.campaign?.getEntity();
    return [
      {
        source: 'film' as const,
        url: film.output.url,
        mimeType: film.output.mimeType,
        label: film.title,
        width: film.output.width,
        height: film.output.height,
        durationSeconds: film.output.durationSeconds,
        createdAt: film.updatedAt.toISOString(),
        usedIn: campaign
          ? { campaignId: campaign.id, campaignName: campaign.name, variantId: null, variantName: null }
          : null,
      },
    ];
  });
}

/** Campaign and variant names of render requests, each read once. */
async function namesOf(scope: WorkspaceScope, requests: (RenderRequest | null)[]) {
  const campaignIds = new Set<string>();
  const variantIds = new Set<string>();
  for (const request of requests) {
    if (request && 'campaignId' in request && request.campaignId) campaignIds.add(request.campaignId);
    if (request && 'variantId' in request && request.variantId) variantIds.add(request.variantId);
  }
  const em = scope.em.fork();
  const [campaigns, variants] = await Promise.all([
    campaignIds.size ? em.find(Campaign, { id: { $in: [...campaignIds] } }) : [],
    variantIds.size ? em.find(Variant, { id: { $in: [...variantIds] } }) : [],
  ]);
  return {
    campaigns: new Map(campaigns.map((campaign) => [campaign.id, campaign.name])),
    variants: new Map(variants.map((variant) => [variant.id, variant.name])),
  };
}
