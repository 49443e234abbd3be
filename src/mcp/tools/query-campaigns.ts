import { z } from 'zod';
import { CAMPAIGN_STATUSES } from '../../domain/campaigns/campaign-status.ts';
import { DEPLOYMENT_STATUSES } from '../../domain/campaigns/deployment.entity.ts';
import { defineAction, defineTool } from '../define-tool.ts';
import { CampaignOut, DeploymentOut, GenerationOut, Ids, NextCursor, Paging, VariantOut } from '../schemas.ts';
import { INSPECTOR_META } from '../ui/inspector-meta.ts';

const ACTIONS = ['list', 'get', 'variants', 'deployments', 'generation_status'] as const;

export default defineTool({
  name: 'query_campaigns',
  toolset: 'campaigns',
  description: [
    "Read the workspace's campaigns, their variants and deployments, and the status of a campaign's AI generation.",
    'Read-only and free; no confirmation needed. Start here before changing anything with manage_campaigns.',
    'Lists are paginated: pass nextCursor back as cursor to continue.',
  ].join(' '),
  annotations: {
    title: 'Query campaigns',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  selector: 'action',
  input: z.object({
    action: z.enum(ACTIONS).describe(ACTIONS.join(' | ')),
    campaignId: Ids.campaign
      .optional()
      .describe('Required for get, variants and generation_status; optional filter for deployments.'),
    status: z.enum(CAMPAIGN_STATUSES).optional().describe('list: only campaigns in this status.'),
    productId: Ids.product.optional().describe('list: only campaigns promoting this product.'),
    search: z.string().max(200).optional().describe('list: case-insensitive match on the campaign name.'),
    includeHistory: z.boolean().optional().describe("variants: also return each variant's earlier versions."),
    surfaceId: Ids.surface.optional().describe('deployments: only deployments on this surface.'),
    deploymentStatus: z.enum(DEPLOYMENT_STATUSES).optional().describe('deployments: only in this status.'),
    ...Paging,
  }),
  output: z.looseObject({
    action: z.enum(ACTIONS),
    campaigns: z.array(CampaignOut).optional(),
    campaign: CampaignOut.optional(),
    variants: z.array(VariantOut).optional(),
    deployments: z.array(DeploymentOut).optional(),
    generation: GenerationOut.nullable().optional(),
    nextCursor: NextCursor,
  }),
  meta: INSPECTOR_META,
  actions: {
    list: defineAction({
      summary: 'campaigns newest first; filters status, productId, search.',
      permission: 'workspace:read',
      input: z.object({
        action: z.literal('list'),
        status: z.enum(CAMPAIGN_STATUSES).optional(),
        productId: Ids.product.optional(),
        search: z.string().max(200).optional(),
        ...Paging,
      }),
      async run(ctx, args) {
        const page = await ctx.services.campaigns.list(ctx.scope, args);
        return {
          structured: { action: 'list', campaigns: page.items, nextCursor: page.nextCursor },
          text: page.items.length
            ? `${page.items.length} campaign(s): ${page.items.map((c) => `${c.name} (${c.id}, ${c.status})`).join('; ')}${page.nextCursor ? '; more with nextCursor' : ''}.`
            : 'No campaigns.',
        };
      },
    }),
    get: defineAction({
      summary: 'one campaign with counts of variants and active deployments.',
      permission: 'workspace:read',
      input: z.object({ action: z.literal('get'), campaignId: Ids.campaign }),
      async run(ctx, args) {
        const campaign = await ctx.services.campaigns.get(ctx.scope, args.campaignId);
        return {
          structured: { action: 'get', campaign },
          text: `Campaign "${campaign.name}" (${campaign.id}) is ${campaign.status}; ${campaign.variantCount} variant(s).`,
        };
      },
    }),
    variants: defineAction({
      summary: "a campaign's variants (headline, body, call to action, images, per-channel copy, version).",
      permission: 'workspace:read',
      input: z.object({
        action: z.literal('variants'),
        campaignId: Ids.campaign,
        includeHistory: z.boolean().optional(),
        ...Paging,
      }),
      async run(ctx, args) {
        const page = await ctx.services.campaigns.listVariants(ctx.scope, args);
        return {
          structured: { action: 'variants', variants: page.items, nextCursor: page.nextCursor },
          text: page.items.length
            ? page.items
                .map(
                  (v) =>
                    `${v.name} (${v.id}, v${v.version}${v.isControl ? ', control' : ''}): "${v.headline}" — ${v.callToAction}`,
                )
                .join('\n')
            : 'The campaign has no variants yet.',
        };
      },
    }),
    deployments: defineAction({
      summary: 'deployments of a campaign, of a surface, or all; filter by status.',
      permission: 'workspace:read',
      input: z.object({
        action: z.literal('deployments'),
        campaignId: Ids.campaign.optional(),
        surfaceId: Ids.surface.optional(),
        deploymentStatus: z.enum(DEPLOYMENT_STATUSES).optional(),
        ...Paging,
      }),
      async run(ctx, args) {
        const page = await ctx.services.campaigns.listDeployments(ctx.scope, {
          ...args,
          status: args.deploymentStatus,
        });
        return {
          structured: { action: 'deployments', deployments: page.items, nextCursor: page.nextCursor },
          text: page.items.length
            ? page.items.map((d) => `${d.id}: campaign ${d.campaignId} in zone ${d.zoneId} (${d.status})`).join('\n')
            : 'No deployments.',
        };
      },
    }),
    generation_status: defineAction({
      summary: 'the latest generation of a campaign: status (complete when done), step, progress, variants made.',
      permission: 'workspace:read',
      input: z.object({ action: z.literal('generation_status'), campaignId: Ids.campaign }),
      async run(ctx, args) {
        const generation = await ctx.services.generation.status(ctx.scope, args.campaignId);
        if (!generation) {
          return {
            structured: { action: 'generation_status', generation: null },
            text: `Campaign ${args.campaignId} has never been generated.`,
          };
        }
        const done = generation.status === 'complete';
        return {
          structured: { action: 'generation_status', generation },
          text: done
            ? `Generation complete: ${generation.variantIds.length} variant(s) saved; read them with action=variants.`
            : `Generation ${generation.status}${generation.step ? ` (step ${generation.step}, ${Math.round(generation.progress * 100)}%)` : ''}${generation.error ? `: ${generation.error.message}` : ''}.${['queued', 'in_progress', 'cancelling'].includes(generation.status) ? ` Poll again in ${generation.pollIntervalMs / 1000} s.` : ''}`,
        };
      },
    }),
  },
});
