import { z } from 'zod';
import {
  CampaignFields,
  CampaignUpdate,
  ChannelFieldsSchema,
  DeploymentFields,
  DeploymentUpdate,
  ImageRefSchema,
  VariantFields,
  VariantUpdate,
} from '../../domain/campaigns/campaign-schemas.ts';
import { CHANNELS } from '../../domain/campaigns/campaign.entity.ts';
import { DEPLOYMENT_STATUSES } from '../../domain/campaigns/deployment.entity.ts';
import { VARIANT_STATUSES } from '../../domain/campaigns/variant.entity.ts';
import { HttpUrl as DomainHttpUrl } from '../../domain/shared/schemas.ts';
import { defineAction, defineTool } from '../define-tool.ts';
import { CampaignOut, DeploymentOut, Ids, VariantOut, WorkspaceEcho } from '../schemas.ts';

const ACTIONS = [
  'create',
  'update',
  'delete',
  'create_variant',
  'update_variant',
  'delete_variant',
  'publish',
  'deploy',
  'update_deployment',
] as const;

// Dates stay plain bounded strings on the wire (the actions parse them with the domain's IsoDateTime); a
// `format: date-time` here would change what clients are told. URLs and per-channel copy are the domain's own.
const IsoDate = z.string().max(40).describe('ISO 8601 date-time, e.g. 2026-12-01T00:00:00Z');
const HttpUrl = DomainHttpUrl.describe('Absolute http(s) URL');
// `mediaId` is set by generation only: agents send a url and its alt text.
const ImageRef = ImageRefSchema.omit({ mediaId: true }).extend({ url: HttpUrl }).strict();
const ChannelFields = ChannelFieldsSchema;

const text = {
  campaign: (verb: string, c: { name: string; id: string; status: string }) =>
    `${verb} campaign "${c.name}" (${c.id}); status ${c.status}.`,
};

export default defineTool({
  name: 'manage_campaigns',
  toolset: 'campaigns',
  description: [
    'Create, change and delete campaigns and their variants; publish a campaign; deploy it to a surface zone.',
    'These change live marketing state: confirm with the user before create, delete, publish or deploy, and show them',
    'edits before applying them. Saving or deleting a variant, publishing and deploying republish the brand site.',
    'Find zones with query_surfaces list_zones. No credits are spent here.',
  ].join(' '),
  annotations: {
    title: 'Manage campaigns',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  selector: 'action',
  input: z.object({
    action: z.enum(ACTIONS).describe(ACTIONS.join(' | ')),
    campaignId: Ids.campaign.optional().describe('update, delete, create_variant, publish, deploy.'),
    variantId: Ids.variant.optional().describe('update_variant, delete_variant.'),
    deploymentId: Ids.deployment.optional().describe('update_deployment.'),
    zoneId: Ids.zone.optional().describe('deploy: the zone to place the campaign in.'),
    name: z
      .string()
      .max(200)
      .optional()
      .describe('create/update: campaign name; create_variant/update_variant: variant label.'),
    objective: z
      .string()
      .max(2000)
      .nullish()
      .describe('create/update: what the campaign should achieve. Internal: never shown on the brand site.'),
    publicSummary: z
      .string()
      .max(1000)
      .nullish()
      .describe(
        "create/update: PUBLIC one-paragraph summary shown to anyone on the brand site (the campaign page's lead, lists, llms.txt, the concierge). Write it for shoppers; null uses the active variant's copy.",
      ),
    productIds: z.array(Ids.product).max(20).optional().describe('create/update: products it promotes.'),
    channels: z.array(z.enum(CHANNELS)).max(3).optional().describe('create/update: web, email, social.'),
    conversionGoals: z
      .array(z.string())
      .max(10)
      .optional()
      .describe(
        'create/update: goal keys (e.g. "purchase", "signup") whose conversions count for this campaign, from the brand-site beacon (cpConvert) or POST /api/v1/conversions; [] counts every goal.',
      ),
    startsAt: IsoDate.nullish().describe('create/update/deploy/update_deployment: schedule start.'),
    endsAt: IsoDate.nullish().describe('create/update/deploy/update_deployment: schedule end.'),
    status: z.enum(['ready', 'archived']).optional().describe('update: "archived" archives, "ready" restores.'),
    headline: z.string().max(200).optional().describe('create_variant (required) / update_variant.'),
    body: z.string().max(5000).optional().describe('create_variant (required) / update_variant.'),
    callToAction: z.string().max(60).optional().describe('create_variant (required) / update_variant: button text.'),
    ctaUrl: HttpUrl.nullish().describe('Where the call to action leads.'),
    imageRefs: z.array(ImageRef).max(6).optional(),
    channelFields: ChannelFields.optional().describe(
      'Per-channel copy: email subject/preheader, social caption/hashtags, web eyebrow/section title.',
    ),
    weight: z.number().int().min(0).max(100).optional().describe('Traffic share among active variants.'),
    variantStatus: z.enum(VARIANT_STATUSES).optional().describe('active or paused.'),
    isControl: z.boolean().optional().describe('Make this variant the baseline analytics compares against.'),
    expectedVersion: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('update_variant: refuse if the variant changed since you read this version.'),
    priority: z
      .number()
      .int()
      .min(-100)
      .max(100)
      .optional()
      .describe('deploy/update_deployment: higher wins a shared zone.'),
    deploymentStatus: z.enum(DEPLOYMENT_STATUSES).optional().describe('update_deployment: active, paused or ended.'),
  }),
  output: z.looseObject({
    action: z.enum(ACTIONS),
    campaign: CampaignOut.optional(),
    variant: VariantOut.optional(),
    deployment: DeploymentOut.optional(),
    workspace: WorkspaceEcho,
  }),
  // Each action parses with the domain's schema (campaign-schemas.ts), which decides the fields the action takes
  // and which of them it requires; the flat input above only describes them for agents. It names a variant's
  // and a deployment's `status` `variantStatus` and `deploymentStatus` (`status` is the campaign's).
  actions: {
    create: defineAction({
      summary:
        'a new draft campaign (name required; objective, publicSummary, productIds, channels, schedule optional).',
      permission: 'content:write',
      input: CampaignFields.extend({ action: z.literal('create') }),
      async run(ctx, { action: _a, ...args }) {
        const campaign = await ctx.services.campaigns.create(ctx.scope, args);
        return { structured: { action: 'create', campaign }, text: text.campaign('Created', campaign) };
      },
    }),
    update: defineAction({
      summary:
        'change name, objective, publicSummary, products, channels, schedule; status "archived" archives, "ready" restores.',
      permission: 'content:write',
      input: CampaignUpdate.extend({ action: z.literal('update'), campaignId: Ids.campaign }),
      async run(ctx, { action: _a, campaignId, ...args }) {
        const campaign = await ctx.services.campaigns.update(ctx.scope, campaignId, args);
        return { structured: { action: 'update', campaign }, text: text.campaign('Updated', campaign) };
      },
    }),
    delete: defineAction({
      summary: 'delete an unpublished campaign (published ones are archived instead).',
      permission: 'content:write',
      input: z.object({ action: z.literal('delete'), campaignId: Ids.campaign }),
      async run(ctx, args) {
        const campaign = await ctx.services.campaigns.remove(ctx.scope, args.campaignId);
        return {
          structured: { action: 'delete', campaign },
          text: `Deleted campaign "${campaign.name}" (${campaign.id}).`,
        };
      },
    }),
    create_variant: defineAction({
      summary: 'add a variant (headline, body, callToAction required); the first one is the control.',
      permission: 'content:write',
      input: VariantFields.omit({ status: true }).extend({
        action: z.literal('create_variant'),
        campaignId: Ids.campaign,
        variantStatus: VariantFields.shape.status,
      }),
      async run(ctx, { action: _a, campaignId, variantStatus, ...args }) {
        const variant = await ctx.services.campaigns.createVariant(ctx.scope, campaignId, {
          ...args,
          status: variantStatus,
        });
        return {
          structured: { action: 'create_variant', variant },
          text: `Created variant ${variant.name} (${variant.id}): "${variant.headline}".`,
        };
      },
    }),
    update_variant: defineAction({
      summary: 'save changes to a variant (keeps its history; republishes a published campaign).',
      permission: 'content:write',
      input: VariantUpdate.omit({ status: true }).extend({
        action: z.literal('update_variant'),
        variantId: Ids.variant,
        variantStatus: VariantUpdate.shape.status,
      }),
      async run(ctx, { action: _a, variantId, variantStatus, ...args }) {
        const variant = await ctx.services.campaigns.updateVariant(ctx.scope, variantId, {
          ...args,
          status: variantStatus,
        });
        return {
          structured: { action: 'update_variant', variant },
          text: `Saved variant ${variant.name} (${variant.id}), now version ${variant.version}.`,
        };
      },
    }),
    delete_variant: defineAction({
      summary: 'delete a variant (republishes a published campaign).',
      permission: 'content:write',
      input: z.object({ action: z.literal('delete_variant'), variantId: Ids.variant }),
      async run(ctx, args) {
        const variant = await ctx.services.campaigns.deleteVariant(ctx.scope, args.variantId);
        return {
          structured: { action: 'delete_variant', variant },
          text: `Deleted variant ${variant.name} (${variant.id}).`,
        };
      },
    }),
    publish: defineAction({
      summary: 'publish a ready campaign to the brand site (needs an active variant).',
      permission: 'content:write',
      input: z.object({ action: z.literal('publish'), campaignId: Ids.campaign }),
      async run(ctx, args) {
        const campaign = await ctx.services.campaigns.publish(ctx.scope, args.campaignId);
        return {
          structured: { action: 'publish', campaign },
          text: `Published campaign "${campaign.name}" (${campaign.id}); the brand site is being republished.`,
        };
      },
    }),
    deploy: defineAction({
      summary: 'place a published campaign in a zone (zoneId; optional priority and schedule).',
      permission: 'content:write',
      input: DeploymentFields.extend({ action: z.literal('deploy'), campaignId: Ids.campaign, zoneId: Ids.zone }),
      async run(ctx, { action: _a, ...args }) {
        const deployment = await ctx.services.campaigns.deploy(ctx.scope, args);
        return {
          structured: { action: 'deploy', deployment },
          text: `Deployed campaign ${deployment.campaignId} to zone ${deployment.zoneId} (${deployment.id}).`,
        };
      },
    }),
    update_deployment: defineAction({
      summary: 'pause, resume or end a deployment, or change its priority or schedule.',
      permission: 'content:write',
      input: DeploymentUpdate.omit({ status: true }).extend({
        action: z.literal('update_deployment'),
        deploymentId: Ids.deployment,
        deploymentStatus: DeploymentUpdate.shape.status,
      }),
      async run(ctx, { action: _a, deploymentId, deploymentStatus, ...args }) {
        const deployment = await ctx.services.campaigns.updateDeployment(ctx.scope, deploymentId, {
          ...args,
          status: deploymentStatus,
        });
        return {
          structured: { action: 'update_deployment', deployment },
          text: `Deployment ${deployment.id} is ${deployment.status}.`,
        };
      },
    }),
  },
});
