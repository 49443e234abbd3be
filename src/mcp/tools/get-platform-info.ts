import { z } from 'zod';
import { can } from '../../auth/permissions.ts';
import { withoutVersions } from '../../domain/platform/health.service.ts';
import { defineAction, defineTool } from '../define-tool.ts';

const TOPICS = ['health', 'organization', 'tool_profiles'] as const;

const DependencyHealth = z.object({
  status: z.enum(['up', 'down']),
  latencyMs: z.number(),
  version: z.string().nullable().optional().describe('Server version; shown to workspace owners and admins only.'),
  error: z.string().optional(),
});

const Output = z.object({
  topic: z.enum(TOPICS),
  health: z
    .object({
      status: z.enum(['ok', 'degraded']),
      platformVersion: z.string(),
      nodeVersion: z.string().optional().describe('Shown to workspace owners and admins only.'),
      database: DependencyHealth,
      temporal: DependencyHealth.extend({ namespace: z.string() }),
      checkedAt: z.string(),
    })
    .optional(),
  organization: z
    .object({
      id: z.string(),
      name: z.string(),
      slug: z.string(),
      role: z.enum(['owner', 'admin', 'editor', 'viewer']),
      credits: z.object({ available: z.number(), held: z.number(), spent: z.number() }),
      brandSiteUrl: z.string(),
      createdAt: z.string(),
    })
    .optional(),
  profiles: z
    .object({
      current: z.string(),
      available: z.array(
        z.object({
          name: z.string(),
          description: z.string(),
          selectedBy: z.enum(['default', 'call_code', 'fallback']),
          tools: z.array(z.string()),
        }),
      ),
    })
    .optional(),
});

export default defineTool({
  name: 'get_platform_info',
  toolset: 'platform',
  description: [
    'Platform facts for this connection. Read-only and free; safe to call without asking the user.',
    'Call `topic: "organization"` before a batch of work to learn (and tell the user) which workspace this',
    'connection acts on, your role there and the credit balance; every connection is bound to exactly one',
    'workspace. `health` reports whether the database and the job engine are reachable. `tool_profiles` lists',
    'the tool profiles and the tools each one shows.',
  ].join(' '),
  annotations: {
    title: 'Platform info',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  selector: 'topic',
  input: z.object({
    topic: z.enum(TOPICS).describe('What to report: health, organization or tool_profiles.'),
  }),
  output: Output,
  actions: {
    health: defineAction({
      summary: 'database and Temporal reachability and latency (with software versions for owners and admins).',
      permission: 'workspace:read',
      input: z.object({ topic: z.literal('health') }),
      async run(ctx) {
        const report = await ctx.services.health.check();
        const health = can(ctx.principal.role, 'platform:versions') ? report : withoutVersions(report);
        return {
          structured: { topic: 'health', health },
          text: `Platform ${health.status}: database ${health.database.status}, Temporal ${health.temporal.status} (platform ${health.platformVersion}).`,
        };
      },
    }),
    organization: defineAction({
      summary: 'the workspace this connection is bound to: id, name, your role, credit balance.',
      permission: 'workspace:read',
      input: z.object({ topic: z.literal('organization') }),
      async run(ctx) {
        const organization = await ctx.services.organization.get(ctx.scope, ctx.principal.role);
        return {
          structured: { topic: 'organization', organization },
          text: `Workspace "${organization.name}" (${organization.id}); your role: ${organization.role}; credits available: ${organization.credits.available}.`,
        };
      },
    }),
    tool_profiles: defineAction({
      summary: 'the tool profiles and the tools each one shows (profiles change visibility, never permissions).',
      permission: 'workspace:read',
      input: z.object({ topic: z.literal('tool_profiles') }),
      async run(ctx) {
        const profiles = { current: ctx.profile, available: [...ctx.profileSummaries] };
        return {
          structured: { topic: 'tool_profiles', profiles },
          text: `Current profile: ${ctx.profile}. Profiles: ${profiles.available.map((p) => `${p.name} (${p.tools.length} tools)`).join(', ')}.`,
        };
      },
    }),
  },
});
