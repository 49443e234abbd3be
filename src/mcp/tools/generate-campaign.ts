import { z } from 'zod';
import { GENERATION_STEPS } from '../../domain/credits/price-list.ts';
import {
  GENERATION_KIND,
  toGenerationStatus,
  type LaunchOutcome,
} from '../../domain/generation/generation-launcher.ts';
import { GenerationRegenerateSchema, GenerationStartSchema } from '../../domain/generation/generation-schemas.ts';
import { quoteText } from '../tool-result.ts';
import { defineAction, defineTool, type ToolOutput } from '../define-tool.ts';
import { GenerationOut, Ids, QuoteOut, WorkspaceEcho } from '../schemas.ts';
import { INSPECTOR_META } from '../ui/inspector-meta.ts';

const MODES = ['start', 'regenerate'] as const;

const common = {
  includeImages: z.boolean().optional().describe('Also create one AI image per variant (costs credits; default true).'),
  variantCount: z.number().int().min(1).max(5).optional().describe('How many variants to write (1–5, default 3).'),
  channels: z
    .array(z.enum(['web', 'email', 'social']))
    .max(3)
    .optional()
    .describe("Channels to write for (default: the campaign's)."),
  style: z.string().max(300).nullish().describe('Art direction for the images.'),
  quoteId: z
    .string()
    .max(40)
    .optional()
    .describe('The quote you showed the user and they accepted. Omit to get a quote (nothing is spent).'),
};

/**
 * The one builder of this tool's results: the answer to a call (a quote, a started or already running
 * generation) and, with `ended`, the result of the task that call created once the job is over. Top-level
 * `mode` and `status` say what the call was and did; `generation.status` is where the job stands.
 */
function answer(mode: (typeof MODES)[number], outcome: LaunchOutcome, ended = false): ToolOutput {
  if (outcome.status === 'quote_required') {
    const { quote } = outcome;
    return {
      structured: { mode, status: 'quote_required', quote },
      text: quoteText(mode === 'start' ? 'This generation' : 'This regeneration', quote),
    };
  }
  const generation = toGenerationStatus(outcome.job);
  const structured = { mode, status: outcome.status, campaignId: outcome.campaignId, generation };
  if (ended) {
    return {
      structured,
      text:
        generation.status === 'complete'
          ? `Generation complete: ${generation.variantIds.length} variant(s) on campaign ${generation.campaignId}.`
          : `Generation ${generation.status}.`,
    };
  }
  const started = outcome.status === 'started';
  return {
    structured,
    text: started
      ? `Generation started for campaign ${outcome.campaignId} (job ${generation.jobId}). Poll query_campaigns generation_status with this campaignId every ${generation.pollIntervalMs / 1000} s until it is complete; do not start it again.`
      : `A generation is already running for campaign ${outcome.campaignId} (job ${generation.jobId}, ${generation.status}); nothing was spent. Poll query_campaigns generation_status instead of starting again.`,
    job: outcome.job,
  };
}

export default defineTool({
  name: 'generate_campaign',
  toolset: 'campaigns',
  description: [
    'AI campaign generation: a brief, copy for several variants in the brand voice, optional AI images, saved as',
    'variants of the campaign. Costs credits, in two calls: first call without quoteId to get a quote (nothing is',
    'spent) and show it to the user; after they confirm, repeat the same call with quoteId. It runs asynchronously:',
    'poll query_campaigns generation_status (or the task handle, if your client uses MCP tasks) until complete, then',
    'read the variants. Never start a running generation again. mode=regenerate re-runs from a step (brief, copy,',
    'images or variants) and reuses the earlier steps.',
  ].join(' '),
  annotations: {
    title: 'Generate campaign',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  selector: 'mode',
  input: z.object({
    mode: z.enum(MODES).describe('start | regenerate'),
    intent: z
      .string()
      .max(2000)
      .optional()
      .describe("start (required): what the campaign should achieve and for whom, in the user's words."),
    campaignId: Ids.campaign
      .optional()
      .describe('regenerate (required); start: generate into this existing campaign instead of a new one.'),
    name: z.string().max(200).optional().describe('start: name of the new campaign.'),
    productIds: z.array(Ids.product).max(20).optional().describe('start: the products to promote.'),
    fromStep: z.enum(GENERATION_STEPS).optional().describe('regenerate (required): brief | copy | images | variants.'),
    ...common,
  }),
  output: z.looseObject({
    mode: z.enum(MODES),
    status: z.enum(['quote_required', 'started', 'already_running']),
    quote: QuoteOut.optional(),
    campaignId: z.string().optional(),
    generation: GenerationOut.optional(),
    workspace: WorkspaceEcho.optional(),
  }),
  meta: INSPECTOR_META,
  jobResult: {
    kinds: [GENERATION_KIND],
    // The call that created a task started its job; the job records whether it was a start or a regeneration.
    async build(_ctx, job) {
      const { mode, campaignId } = toGenerationStatus(job);
      return answer(mode, { status: 'started', job, campaignId }, true);
    },
  },
  actions: {
    start: defineAction({
      summary: 'generate a campaign from an intent (new campaign, or campaignId); quote first, then quoteId.',
      permission: 'credits:spend',
      input: GenerationStartSchema.extend({ mode: z.literal('start') }),
      async run(ctx, { mode: _m, ...args }) {
        return answer('start', await ctx.services.generation.start(ctx.scope, args));
      },
    }),
    regenerate: defineAction({
      summary: 're-run a generation from fromStep, reusing the earlier steps; quote first, then quoteId.',
      permission: 'credits:spend',
      input: GenerationRegenerateSchema.extend({ mode: z.literal('regenerate') }),
      async run(ctx, { mode: _m, ...args }) {
        return answer('regenerate', await ctx.services.generation.regenerate(ctx.scope, args));
      },
    }),
  },
});
