/**
 * Tool profiles: which tools a connection sees. Profiles are data; they change visibility only — permissions
 * come from the workspace role in every profile (spec section B).
 *
 * A URL without `?profile=`/`?call_code=` gets `external_default`. Other profiles are selected only by a
 * secret call code issued by an operator; sending a profile *name* (or an unknown code) yields the minimal
 * discovery profile, so names cannot be used to probe for hidden tools.
 */
import { CHANNEL_NETWORKS, type ChannelNetwork } from '../domain/channels/channel-networks.ts';
import { channelToolNames } from './channel-tool-names.ts';

export const DEFAULT_PROFILE = 'external_default';
export const DISCOVERY_PROFILE = 'discovery';

/** The 15 tools of spec section C, in the order the spec lists them. */
export const DEFAULT_TOOLS = [
  'query_campaigns',
  'manage_campaigns',
  'generate_campaign',
  'query_products',
  'manage_products',
  'query_surfaces',
  'manage_surfaces',
  'query_analytics',
  'query_brand',
  'manage_brand',
  'query_video',
  'render_video',
  'query_video_commissions',
  'video_commission',
  'get_platform_info',
] as const;

/** A network's two tools, for its `*_ops` profile and `autonomous_ops`. */
const channelTools = (network: ChannelNetwork) => Object.values(channelToolNames(network));

/** Every channel tool of every network the platform has an adapter for. */
export const CHANNEL_TOOLS: readonly string[] = CHANNEL_NETWORKS.flatMap(channelTools);

export interface ProfileDefinition {
  name: string;
  description: string;
  tools: readonly string[];
  /** Selectable by call code (every profile except the default and discovery ones). */
  requiresCallCode: boolean;
}

const profile = (name: string, description: string, tools: readonly string[], requiresCallCode = true) => ({
  name,
  description,
  tools,
  requiresCallCode,
});

export const PROFILES: readonly ProfileDefinition[] = [
  profile('external_default', 'The 15 default tools of the public interface.', DEFAULT_TOOLS, false),
  profile('discovery', 'Minimal discovery profile: platform info only.', ['get_platform_info'], false),
  profile('campaign_ops', 'Day-to-day campaign work: campaigns, products, surfaces, brand, generation.', [
    'query_campaigns',
    'manage_campaigns',
    'generate_campaign',
    'query_products',
    'manage_products',
    'query_surfaces',
    'manage_surfaces',
    'query_brand',
    'manage_brand',
    'get_platform_info',
  ]),
  profile('analytics_read', 'Read-only reporting: analytics plus the campaigns and surfaces they refer to.', [
    'query_analytics',
    'query_campaigns',
    'query_surfaces',
    'query_products',
    'get_platform_info',
  ]),
  profile('video_ops', 'Video templates, renders and commissioned films.', [
    'query_video',
    'render_video',
    'query_video_commissions',
    'video_commission',
    'query_campaigns',
    'query_brand',
    'get_platform_info',
  ]),
  profile('ai_studio_ops', 'AI generation of campaigns, images and videos.', [
    'generate_campaign',
    'query_campaigns',
    'query_products',
    'query_brand',
    'query_video',
    'render_video',
    'get_platform_info',
  ]),
  profile('meta_ops', 'Facebook Page and Instagram posting plus campaign reads, analytics and platform info.', [
    ...channelTools('meta'),
    'query_campaigns',
    'query_analytics',
    'get_platform_info',
  ]),
  profile('bluesky_ops', 'Bluesky posting plus campaign reads, analytics and platform info.', [
    ...channelTools('bluesky'),
    'query_campaigns',
    'query_analytics',
    'get_platform_info',
  ]),
  profile('reddit_ops', 'Reddit posting plus campaign reads, analytics and platform info.', [
    ...channelTools('reddit'),
    'query_campaigns',
    'query_analytics',
    'get_platform_info',
  ]),
  profile('tiktok_ops', 'TikTok posting plus campaign reads, analytics and platform info.', [
    ...channelTools('tiktok'),
    'query_campaigns',
    'query_analytics',
    'get_platform_info',
  ]),
  profile('autonomous_ops', 'Every tool, for supervised autonomous agents.', [...DEFAULT_TOOLS, ...CHANNEL_TOOLS]),
];

/** Profiles an operator can issue call codes for (all but the default and the discovery fallback). */
export const SELECTABLE_PROFILES: readonly string[] = PROFILES.filter((p) => p.requiresCallCode).map((p) => p.name);
