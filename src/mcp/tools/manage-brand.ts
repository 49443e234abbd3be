import { z } from 'zod';
import { BrandbookUpdate, ConciergeUpdate, ProfileUpdate, VoiceUpdate } from '../../domain/brand/brand.service.ts';
import { defineAction, defineTool } from '../define-tool.ts';
import { BrandOut, WorkspaceEcho } from '../schemas.ts';
import { brandGetAction } from './query-brand.ts';

const ACTIONS = ['update_brandbook', 'update_profile', 'update_voice', 'update_concierge', 'get'] as const;
const ExpectedVersion = z
  .number()
  .int()
  .min(0)
  .optional()
  .describe('Refuse if the brand changed since you read this version.');

const SECTIONS = {
  update_brandbook: { field: 'brandbook', label: 'brand book', schema: BrandbookUpdate, method: 'updateBrandbook' },
  update_profile: { field: 'profile', label: 'public profile', schema: ProfileUpdate, method: 'updateProfile' },
  update_voice: { field: 'voice', label: 'voice', schema: VoiceUpdate, method: 'updateVoice' },
  update_concierge: {
    field: 'concierge',
    label: 'concierge settings',
    schema: ConciergeUpdate,
    method: 'updateConcierge',
  },
} as const;

function updateAction<A extends keyof typeof SECTIONS>(action: A, summary: string) {
  const { field, label, schema, method } = SECTIONS[action];
  return defineAction({
    summary,
    permission: 'content:write',
    input: z.object({
      action: z.literal(action),
      [field]: schema.strict(),
      expectedVersion: ExpectedVersion,
    }),
    async run(ctx, args) {
      const { [field]: patch, expectedVersion } = args as Record<string, unknown> & { expectedVersion?: number };
      const brand = await ctx.services.brand[method](ctx.scope, patch, expectedVersion);
      return {
        structured: { action, brand },
        text: `Updated the ${label}; the brand is now version ${brand.version} and the brand site is being republished.`,
      };
    },
  });
}

export default defineTool({
  name: 'manage_brand',
  toolset: 'brand',
  description: [
    'Update brand material: brand book, public profile, voice, concierge. Each update merges the fields you send into',
    'that section (omitted fields stay) and republishes the brand site. Show the user the change and confirm before',
    'applying it. Read the brand with query_brand (the get action here is deprecated and refused for external',
    'clients). No credits are spent here.',
  ].join(' '),
  annotations: {
    title: 'Manage brand',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  selector: 'action',
  input: z.object({
    action: z
      .enum(ACTIONS)
      .describe(
        'update_brandbook | update_profile | update_voice | update_concierge (get is deprecated here: use query_brand)',
      ),
    brandbook: BrandbookUpdate.strict()
      .optional()
      .describe(
        'update_brandbook: colours (hex), fonts, logoUrl (public, they style the brand site), rules (internal).',
      ),
    profile: ProfileUpdate.strict()
      .optional()
      .describe(
        'update_profile (public, shown on the brand site): displayName, tagline, description, website, contactEmail, sameAs.',
      ),
    voice: VoiceUpdate.strict()
      .optional()
      .describe(
        'update_voice (internal guidance for copy, never published): tone, personality, doSay, dontSay, sampleCopy.',
      ),
    concierge: ConciergeUpdate.strict()
      .optional()
      .describe(
        'update_concierge: enabled, greeting, faq, escalation (public: the concierge quotes them to visitors).',
      ),
    expectedVersion: ExpectedVersion,
  }),
  output: z.looseObject({ action: z.enum(ACTIONS), brand: BrandOut, workspace: WorkspaceEcho.optional() }),
  actions: {
    update_brandbook: updateAction('update_brandbook', 'merge colours, fonts, logo and rules into the brand book.'),
    update_profile: updateAction(
      'update_profile',
      'merge the public profile shown on the brand site and in its JSON-LD.',
    ),
    update_voice: updateAction('update_voice', 'merge tone, personality and the words to use or avoid.'),
    update_concierge: updateAction(
      'update_concierge',
      'merge the /ask concierge settings: on/off, greeting, FAQ, escalation.',
    ),
    get: { ...brandGetAction, internalOnly: { useInstead: 'query_brand' } },
  },
});
