/**
 * The tool catalogue, compiled once at boot: every tool's JSON Schemas and `tools/list` entry, and per
 * profile the list of live tools. Nothing here is rebuilt per request (converting zod to JSON Schema per
 * request is the classic MCP server hot spot).
 */
import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ProfileSummary, ToolDefinition } from './define-tool.ts';
import { portableSchema } from './portable-schema.ts';
import { PROFILES, type ProfileDefinition } from './profiles.ts';
import generateCampaign from './tools/generate-campaign.ts';
import getPlatformInfo from './tools/get-platform-info.ts';
import manageBrand from './tools/manage-brand.ts';
import manageCampaigns from './tools/manage-campaigns.ts';
import manageProducts from './tools/manage-products.ts';
import manageSurfaces from './tools/manage-surfaces.ts';
import queryAnalytics from './tools/query-analytics.ts';
import queryBrand from './tools/query-brand.ts';
import queryCampaigns from './tools/query-campaigns.ts';
import queryProducts from './tools/query-products.ts';
import querySurfaces from './tools/query-surfaces.ts';
import queryVideo from './tools/query-video.ts';
import queryVideoCommissions from './tools/query-video-commissions.ts';
import renderVideo from './tools/render-video.ts';
import videoCommission from './tools/video-commission.ts';
import { createChannelTools } from './tools/channel-tools.ts';
import { CHANNEL_NETWORKS } from '../domain/channels/channel-networks.ts';

/** Every implemented tool. A tool named by a profile but missing here is simply not listed yet. */
export const ALL_TOOLS: readonly ToolDefinition[] = [
  queryCampaigns,
  manageCampaigns,
  generateCampaign,
  queryProducts,
  manageProducts,
  querySurfaces,
  manageSurfaces,
  queryAnalytics,
  queryBrand,
  manageBrand,
  queryVideo,
  renderVideo,
  queryVideoCommissions,
  videoCommission,
  getPlatformInfo,
  // The channel tools: a pair per network, generated from one definition.
  ...CHANNEL_NETWORKS.flatMap(createChannelTools),
];

/** A `tools/list` entry exactly as the SDK types it. */
export type ToolListing = Tool;

export interface CompiledTool {
  definition: ToolDefinition;
  listing: ToolListing;
  /** The advertised flat schema, strict: an unknown argument is an error the agent can fix, not silence. */
  flatInput: z.ZodObject;
}

export interface CompiledProfile {
  profile: ProfileDefinition;
  tools: ReadonlyMap<string, CompiledTool>;
  /** The exact `tools` array answered to `tools/list`. */
  listing: readonly ToolListing[];
}

function jsonSchemaOf(schema: z.ZodObject, io: 'input' | 'output'): Tool['inputSchema'] {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  delete json.$schema; // 2020-12 is MCP's default dialect; omitting it keeps tools/list small
  // No type arrays, no untyped `{}`, every object open or closed on purpose: see portable-schema.ts.
  return portableSchema(json) as Tool['inputSchema'];
}

function describeTool(tool: ToolDefinition): string {
  const actions = Object.entries(tool.actions)
    .filter(([, action]) => !action.internalOnly)
    .map(([value, action]) => `- ${tool.selector}=${value}: ${action.summary}`);
  return `${tool.description}\n\n${actions.join('\n')}`;
}

export function compileTool(tool: ToolDefinition): CompiledTool {
  const listing: ToolListing = {
    name: tool.name,
    title: tool.annotations.title,
    description: describeTool(tool),
    inputSchema: jsonSchemaOf(tool.input.strict(), 'input'),
    outputSchema: jsonSchemaOf(tool.output, 'output'),
    annotations: tool.annotations,
    ...(tool.meta ? { _meta: tool.meta } : {}),
  };
  return { definition: tool, listing, flatInput: tool.input.strict() };
}

export function compileCatalogue(tools: readonly ToolDefinition[], profiles = PROFILES): Map<string, CompiledProfile> {
  const compiled = new Map(tools.map((tool) => [tool.name, compileTool(tool)]));
  const catalogue = new Map<string, CompiledProfile>();
  for (const profile of profiles) {
    const live = profile.tools.flatMap((name) => {
      const tool = compiled.get(name);
      return tool ? [[name, tool] as const] : [];
    });
    catalogue.set(profile.name, {
      profile,
      tools: new Map(live),
      listing: live.map(([, tool]) => tool.listing),
    });
  }
  return catalogue;
}

export const CATALOGUE = compileCatalogue(ALL_TOOLS);

/** Every profile with the tools it shows, for `get_platform_info topic=tool_profiles`. */
export function summariseProfiles(catalogue: ReadonlyMap<string, CompiledProfile>): ProfileSummary[] {
  return [...catalogue.values()].map(({ profile, tools }) => ({
    name: profile.name,
    description: profile.description,
    selectedBy: profile.name === 'external_default' ? 'default' : profile.requiresCallCode ? 'call_code' : 'fallback',
    tools: [...tools.keys()],
  }));
}

export const PROFILE_SUMMARIES: readonly ProfileSummary[] = summariseProfiles(CATALOGUE);
