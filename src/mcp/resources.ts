/**
 * MCP resources (spec section D): read-only, scoped to the connection's workspace.
 *
 * - `svc://capabilities` — the live matrix of this connection: its profile, its tools with every action and
 *   whether the caller's role may run it, its prompts, its resources and the recommended flows. Agents fetch it
 *   first in every session.
 * - `svc://org/{id}`, `svc://org/{id}/brand-guidelines` — the workspace and its brand guidelines (markdown).
 * - `svc://campaigns/{id}`, `svc://products/{id}`, `svc://surfaces/{id}` — entity resources (templates).
 * - `ui://svc/campaign-inspector@1` — the MCP Apps widget, when the profile shows `query_campaigns`.
 *
 * An id of another workspace (or none at all) is "resource not found", exactly like an id that does not
 * exist. Listings are computed once per profile at boot; reads go to the domain services.
 */
import { ANALYTICS_WINDOWS, SMALL_SAMPLE_SESSIONS, SNAPSHOT_SECTIONS } from '../domain/analytics/analytics-window.ts';
import { describeMethod } from '../domain/analytics/statistics/index.ts';
import { describePriceList } from '../domain/credits/price-list.ts';
import { CHANNEL_METRICS, CHANNEL_NETWORKS, NETWORK_NAMES } from '../domain/channels/channel-networks.ts';
import { NETWORK_RULES } from '../domain/channels/network-rules.ts';
import { channelToolNames } from './channel-tool-names.ts';
import { POLL_INTERVAL_MS, TASK_TOOLS } from './tasks.ts';
import {
  ResourceNotFoundError,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
} from '@modelcontextprotocol/server';
import { can } from '../auth/permissions.ts';
import type { Principal } from '../auth/principal.ts';
import type { WorkspaceScope } from '../domain/shared/scope.ts';
import type { BrandView } from '../domain/brand/brand.service.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../domain/shared/pagination.ts';
import type { McpServices } from './services.ts';
import { promptsFor, type PromptDefinition } from './prompts.ts';
import type { CompiledProfile } from './registry.ts';
import { INSPECTOR_MIME, inspectorHtml } from './ui/campaign-inspector.ts';
import { INSPECTOR_URI } from './ui/inspector-meta.ts';

const JSON_MIME = 'application/json';
const MARKDOWN_MIME = 'text/markdown';

export const RESOURCE_TEMPLATES: readonly ResourceTemplate[] = [
  {
    uriTemplate: 'svc://org/{id}',
    name: 'workspace',
    title: 'Workspace',
    description: 'The workspace this connection is bound to: name, slug, your role, credits, brand site URL.',
    mimeType: JSON_MIME,
  },
  {
    uriTemplate: 'svc://org/{id}/brand-guidelines',
    name: 'brand-guidelines',
    title: 'Brand guidelines',
    description: 'Voice, words to use and avoid, colours, fonts and rules, as markdown for writing copy.',
    mimeType: MARKDOWN_MIME,
  },
  {
    uriTemplate: 'svc://campaigns/{id}',
    name: 'campaign',
    title: 'Campaign',
    description: 'A campaign with its variants and deployments.',
    mimeType: JSON_MIME,
  },
  {
    uriTemplate: 'svc://products/{id}',
    name: 'product',
    title: 'Product',
    description: 'A product (imported products carry untrusted: true).',
    mimeType: JSON_MIME,
  },
  {
    uriTemplate: 'svc://surfaces/{id}',
    name: 'surface',
    title: 'Surface',
    description: 'A surface with its zones.',
    mimeType: JSON_MIME,
  },
];

/** The recipes of spec section J, with the tools each one needs (listed only when all are visible). */
const FLOWS = [
  {
    name: 'product_to_live_campaign',
    summary: 'Product page to deployed campaign (prompt campaign_brief).',
    steps: [
      'manage_products import_from_url',
      'generate_campaign mode=start (confirm credits)',
      'query_campaigns generation_status (poll)',
      'query_campaigns variants',
      'manage_campaigns update_variant',
      'manage_campaigns publish',
      'query_surfaces list_surfaces',
      'manage_campaigns deploy',
      'GET the brand page with Accept: text/markdown',
    ],
    tools: ['manage_products', 'generate_campaign', 'query_campaigns', 'manage_campaigns', 'query_surfaces'],
  },
  {
    name: 'recurring_report',
    summary: 'Recurring report with a human in the loop (prompt analytics_deep_dive).',
    steps: [
      'query_analytics snapshot sections=["summary"]',
      'query_analytics cvg_dashboard',
      'summarise winners and stalls (Impressions and Reach apart)',
      'propose variant edits as a diff',
      'on approval: manage_campaigns update_variant / delete_variant',
    ],
    tools: ['query_analytics', 'manage_campaigns'],
  },
  {
    name: 'video_from_top_performer',
    summary: 'Video from a top performer.',
    steps: [
      'query_analytics cvg_dashboard',
      'query_video templates',
      'render_video (confirm credits)',
      'query_video progress (poll)',
    ],
    tools: ['query_analytics', 'query_video', 'render_video'],
  },
  {
    name: 'agency_workspaces',
    summary: 'Several workspaces: one connection or key per workspace; name the workspace before every batch.',
    steps: ['get_platform_info topic=organization', 'run the recipe', 'merge reports client-side'],
    tools: ['get_platform_info'],
  },
  // One per network: its two tools plus analytics, listed where the profile shows them all.
  ...CHANNEL_NETWORKS.map((network) => {
    const names = channelToolNames(network);
    return {
      name: `post_to_${network}`,
      summary: `A campaign variant to a ${NETWORK_NAMES[network]} post, scheduled, measured.`,
      steps: [
        `${names.read} accounts (a person connects them in the dashboard)`,
        'query_campaigns variants',
        `${names.write} validate (dry run; fix every issue)`,
        'confirm the text, image and time with the user',
        `${names.write} schedule (or publish_now)`,
        `${names.read} get_post (poll, or the task handle)`,
        'query_analytics snapshot sections=["channels"]',
      ],
      tools: [names.read, names.write, 'query_campaigns', 'query_analytics'],
    };
  }),
];

export interface ResourceCaller {
  principal: Principal;
  scope: WorkspaceScope;
  services: McpServices;
  profile: CompiledProfile;
}

/** Everything about one profile's resources and prompts that does not depend on the request. */
export interface CompiledResources {
  prompts: readonly PromptDefinition[];
  templates: readonly ResourceTemplate[];
  showsInspector: boolean;
  flows: typeof FLOWS;
  /** The profile's long tools (they answer with task handles when tasks are negotiated). */
  taskTools: string[];
}

export function compileResources(profile: CompiledProfile): CompiledResources {
  const visible = new Set(profile.tools.keys());
  const full = profile.profile.name !== 'discovery';
  return {
    prompts: promptsFor(visible),
    templates: full ? RESOURCE_TEMPLATES : [],
    showsInspector: visible.has('query_campaigns'),
    flows: FLOWS.filter((flow) => flow.tools.every((tool) => visible.has(tool))),
    taskTools: TASK_TOOLS.filter((tool) => visible.has(tool)),
  };
}

export function listResources(caller: ResourceCaller, compiled: CompiledResources): Resource[] {
  const ws = caller.principal.workspaceId;
  const resources: Resource[] = [
    {
      uri: 'svc://capabilities',
      name: 'capabilities',
      title: 'Capabilities',
      description: 'Live matrix of the tools, prompts and recommended flows of this connection. Read it first.',
      mimeType: JSON_MIME,
    },
  ];
  if (compiled.templates.length) {
    resources.push(
      {
        uri: `svc://org/${ws}`,
        name: 'workspace',
        title: caller.principal.workspaceName,
        description: 'This workspace.',
        mimeType: JSON_MIME,
      },
      {
        uri: `svc://org/${ws}/brand-guidelines`,
        name: 'brand-guidelines',
        title: 'Brand guidelines',
        description: 'Voice, words, colours and rules for copy.',
        mimeType: MARKDOWN_MIME,
      },
    );
  }
  if (compiled.showsInspector) {
    resources.push({
      uri: INSPECTOR_URI,
      name: 'campaign-inspector',
      title: 'Campaign inspector',
      description: "Widget showing a campaign's variants, status and deployments, with variant editing.",
      mimeType: INSPECTOR_MIME,
    });
  }
  return resources;
}

type Contents = { uri: string; mimeType: string; text: string };
const json = (uri: string, value: unknown): Contents => ({
  uri,
  mimeType: JSON_MIME,
  text: JSON.stringify(value, null, 2),
});

export async function readResource(
  uri: string,
  caller: ResourceCaller,
  compiled: CompiledResources,
): Promise<{ contents: Contents[] }> {
  const { scope, services, principal } = caller;
  const ws = principal.workspaceId;
  // A domain `not_found` here becomes the spec's resource-not-found error at the MCP edge (server-factory.ts).
  if (uri === 'svc://capabilities') return { contents: [json(uri, await capabilities(caller, compiled))] };
  if (uri === INSPECTOR_URI && compiled.showsInspector) {
    return { contents: [{ uri, mimeType: INSPECTOR_MIME, text: inspectorHtml() }] };
  }
  if (!compiled.templates.length) throw new ResourceNotFoundError(uri);
  const match = /^svc:\/\/(org|campaigns|products|surfaces)\/([A-Za-z0-9_]{1,60})(\/brand-guidelines)?$/.exec(uri);
  if (!match) throw new ResourceNotFoundError(uri);
  const [, kind, id, guidelines] = match as unknown as [string, string, string, string | undefined];
  if (kind === 'org') {
    if (id !== ws) throw new ResourceNotFoundError(uri); // another workspace is simply not there
    if (guidelines)
      return { contents: [{ uri, mimeType: MARKDOWN_MIME, text: brandGuidelines(await services.brand.get(scope)) }] };
    return { contents: [json(uri, await services.organization.get(scope, principal.role))] };
  }
  if (guidelines) throw new ResourceNotFoundError(uri);
  if (kind === 'campaigns') {
    const campaign = await services.campaigns.get(scope, id);
    const [variants, deployments] = await Promise.all([
      services.campaigns.listVariants(scope, { campaignId: id, limit: MAX_PAGE_SIZE }),
      services.campaigns.listDeployments(scope, { campaignId: id, limit: MAX_PAGE_SIZE }),
    ]);
    return { contents: [json(uri, { campaign, variants: variants.items, deployments: deployments.items })] };
  }
  if (kind === 'products') return { contents: [json(uri, await services.products.get(scope, id))] };
  return { contents: [json(uri, await services.surfaces.getSurface(scope, id))] };
}

/**
 * The channels this connection can post to: per network whose tools the profile shows, the tools, the
 * network's rules and the workspace's connected accounts (never their credentials).
 */
async function channelCapabilities(caller: ResourceCaller) {
  const networks = CHANNEL_NETWORKS.filter((network) => {
    const names = channelToolNames(network);
    return caller.profile.tools.has(names.read) || caller.profile.tools.has(names.write);
  });
  return Promise.all(
    networks.map(async (network) => {
      const names = channelToolNames(network);
      const accounts = await caller.services.channelAccounts.list(caller.scope, { network, limit: MAX_PAGE_SIZE });
      const rules = NETWORK_RULES[network];
      return {
        network,
        name: NETWORK_NAMES[network],
        tools: Object.values(names).filter((name) => caller.profile.tools.has(name)),
        accounts: accounts.items.map(({ id, handle, kind, status, statusReason }) => ({
          id,
          handle,
          ...(kind ? { kind } : {}),
          status,
          statusReason,
        })),
        connect: 'A workspace admin connects accounts in the dashboard (Channels); agents cannot.',
        rules: {
          text: `${rules.textLimit} ${rules.textUnit}, the attributed link included`,
          images:
            rules.maxImages > 0
              ? `${rules.maxImages} per post, ${rules.maxImageBytes} bytes each${rules.altTextLimit > 0 ? ', alt text required' : ''}`
              : 'none',
          video: rules.maxVideos > 0 ? `${rules.maxVideos} per post` : 'not posted to this network yet',
          editPublished: rules.editPublished,
          deletePublished: rules.deletePublished ?? true,
          ...(rules.postsPer24h ? { postsPer24h: rules.postsPer24h } : {}),
          ...(rules.guidance ? { guidance: rules.guidance } : {}),
          metrics: rules.metrics,
          unknownMetrics: CHANNEL_METRICS.filter((name) => !rules.metrics.includes(name)),
        },
      };
    }),
  );
}

async function capabilities(caller: ResourceCaller, compiled: CompiledResources) {
  const { principal, profile } = caller;
  return {
    workspace: { id: principal.workspaceId, name: principal.workspaceName },
    role: principal.role,
    profile: profile.profile.name,
    groundRules: [
      'Query before managing.',
      'Confirm with the user before any create, delete, publish or deploy, and before any credit spend.',
      'Poll long jobs (status actions or tasks/get); never start them again.',
      'Name the workspace to the user before every batch of work.',
    ],
    tools: [...profile.tools.values()].map(({ definition }) => ({
      name: definition.name,
      title: definition.annotations.title,
      readOnly: definition.annotations.readOnlyHint,
      selector: definition.selector,
      actions: Object.entries(definition.actions)
        .filter(([, action]) => !action.internalOnly || principal.internal)
        .map(([value, action]) => ({
          value,
          summary: action.summary,
          permission: action.permission,
          allowed: can(principal.role, action.permission),
        })),
    })),
    prompts: compiled.prompts.map((p) => ({
      name: p.name,
      description: p.description,
      arguments: p.arguments.map((a) => a.name),
    })),
    resources: {
      fixed: [
        'svc://capabilities',
        ...(compiled.templates.length
          ? [`svc://org/${principal.workspaceId}`, `svc://org/${principal.workspaceId}/brand-guidelines`]
          : []),
        ...(compiled.showsInspector ? [INSPECTOR_URI] : []),
      ],
      templates: compiled.templates.map((t) => t.uriTemplate),
    },
    recommendedFlows: compiled.flows.map(({ name, summary, steps }) => ({ name, summary, steps })),
    pagination: {
      defaultPageSize: DEFAULT_PAGE_SIZE,
      maxPageSize: MAX_PAGE_SIZE,
      cursor: 'opaque: pass nextCursor back as cursor',
    },
    // Credit-spending calls quote first (nothing spent), then commit with quoteId; prices per step.
    credits: {
      flow: 'call without quoteId for a quote; show it to the user; repeat the same call with quoteId',
      quoteValidityMinutes: 15,
      prices: describePriceList(),
    },
    // The analytics vocabulary, so an agent reports Impressions and Reach apart and cites the method.
    analytics: profile.tools.has('query_analytics')
      ? {
          vocabulary: {
            impressions: 'raw deliveries of a variant (every render, every markdown read)',
            reach: 'distinct sessions with at least one impression in the window; never above impressions',
            conversions:
              'conversion events received; convertedSessions: sessions whose first attributed conversion fell in the window',
            smallSample: `fewer than ${SMALL_SAMPLE_SESSIONS} distinct sessions: rates are anecdotal`,
          },
          windows: ANALYTICS_WINDOWS,
          snapshotSections: SNAPSHOT_SECTIONS,
          experimentMethod: describeMethod(),
        }
      : null,
    channels: await channelCapabilities(caller),
    tasks: {
      tools: compiled.taskTools,
      eras: ['2025-11-25 (task param, tasks/get|result|list|cancel)', '2026-07-28 (io.modelcontextprotocol/tasks)'],
      pollIntervalMs: POLL_INTERVAL_MS,
    },
    extensions: {
      'io.modelcontextprotocol/ui': compiled.showsInspector ? { widget: INSPECTOR_URI } : null,
      'io.modelcontextprotocol/tasks': {},
    },
  };
}

/** Brand guidelines as markdown for copywriting (generated from the same data `query_brand` returns). */
export function brandGuidelines(brand: BrandView): string {
  const list = (items: string[]) => (items.length ? items.map((item) => `- ${item}`).join('\n') : '- (none set)');
  const { brandbook, profile, voice, concierge } = brand;
  return [
    `# ${profile.displayName} — brand guidelines`,
    profile.tagline ? `\n> ${profile.tagline}` : '',
    profile.description ? `\n${profile.description}` : '',
    '\n## Voice',
    `Tone: ${voice.tone ?? '(not set)'}`,
    voice.personality.length ? `Personality: ${voice.personality.join(', ')}` : '',
    '\n### Say',
    list(voice.doSay),
    "\n### Don't say",
    list(voice.dontSay),
    voice.sampleCopy ? `\n### Sample copy\n\n${voice.sampleCopy}` : '',
    '\n## Rules',
    list(brandbook.rules),
    '\n## Colours',
    ...Object.entries(brandbook.colors).map(([name, value]) => `- ${name}: ${value}`),
    '\n## Fonts',
    `- heading: ${brandbook.fonts.heading}`,
    `- body: ${brandbook.fonts.body}`,
    brandbook.logoUrl ? `\nLogo: ${brandbook.logoUrl}` : '',
    `\n## Concierge\n\n${concierge.enabled ? 'On' : 'Off'}${concierge.greeting ? `; greeting: "${concierge.greeting}"` : ''}.`,
    `\n_Brand version ${brand.version}._`,
  ]
    .filter((line) => line !== '')
    .join('\n');
}
