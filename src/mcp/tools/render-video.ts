import { z } from 'zod';
import { RENDER_KIND, toRenderStatus, type RenderOutcome } from '../../domain/renders/renders.service.ts';
import { quoteText } from '../tool-result.ts';
import { defineAction, defineTool, type ToolOutput } from '../define-tool.ts';
import { Ids, QuoteOut, RenderOut, WorkspaceEcho } from '../schemas.ts';

const MODES = ['video', 'campaign', 'still'] as const;
const quoteId = z.string().max(40).optional().describe('The accepted quote. Omit to get a quote (nothing is spent).');

/**
 * The one builder of this tool's results: the answer to a call (a quote or a started render) and, with
 * `ended`, the result of the task that call created once the render is over (`render.status` says how it
 * ended; the output URL is in `render.output`).
 */
function answer(mode: (typeof MODES)[number], outcome: RenderOutcome, ended = false): ToolOutput {
  if (outcome.status === 'quote_required') {
    const { quote } = outcome;
    return {
      structured: { mode, status: 'quote_required', quote },
      text: quoteText('This render', quote),
    };
  }
  const render = toRenderStatus(outcome.job);
  const structured = { mode, status: 'started', render };
  if (ended) {
    return { structured, text: render.output ? `Render complete: ${render.output.url}` : `Render ${render.status}.` };
  }
  return {
    structured,
    text: `Render started (job ${render.jobId}). Poll query_video progress with this jobId every ${render.pollIntervalMs / 1000} s until it is complete; the output URL is in the result.`,
    job: outcome.job,
  };
}

export default defineTool({
  name: 'render_video',
  toolset: 'video',
  description: [
    "Render a video from a template (mode=video), a video of a campaign's variants (mode=campaign) or a still image",
    'of one variant (mode=still). Costs credits, in two calls: first without quoteId to get a quote (nothing is',
    'spent), show it to the user, then repeat the same call with quoteId. Runs asynchronously: poll query_video',
    'progress with the returned jobId (or the task handle) until complete; the result has the MP4 or PNG URL.',
    'Frame-level editing does not exist: re-render with other inputs instead.',
  ].join(' '),
  annotations: {
    title: 'Render video',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  selector: 'mode',
  input: z.object({
    mode: z.enum(MODES).describe(MODES.join(' | ')),
    templateId: z.string().max(60).optional().describe('video (required): a template id from query_video templates.'),
    campaignId: Ids.campaign
      .optional()
      .describe('campaign and still (required); video: fill the template from this campaign.'),
    variantId: Ids.variant.optional().describe("still (required); video: use this variant's copy."),
    format: z
      .enum(['landscape', 'square', 'story'])
      .optional()
      .describe('still: 1200×630 (default), 1080×1080 or 1080×1920.'),
    quoteId,
  }),
  output: z.looseObject({
    mode: z.enum(MODES),
    status: z.enum(['quote_required', 'started']),
    quote: QuoteOut.optional(),
    render: RenderOut.optional(),
    workspace: WorkspaceEcho.optional(),
  }),
  jobResult: {
    kinds: [RENDER_KIND],
    async build(_ctx, job) {
      return answer(toRenderStatus(job).mode, { status: 'started', job }, true);
    },
  },
  actions: {
    video: defineAction({
      summary: 'an MP4 from a template (templateId), optionally filled from a campaign/variant.',
      permission: 'credits:spend',
      input: z.object({
        mode: z.literal('video'),
        templateId: z.string(),
        campaignId: Ids.campaign.optional(),
        variantId: Ids.variant.optional(),
        quoteId,
      }),
      async run(ctx, args) {
        return answer('video', await ctx.services.renders.render(ctx.scope, args));
      },
    }),
    campaign: defineAction({
      summary: 'an MP4 with one scene per active variant of a campaign (campaignId).',
      permission: 'credits:spend',
      input: z.object({ mode: z.literal('campaign'), campaignId: Ids.campaign, quoteId }),
      async run(ctx, args) {
        return answer('campaign', await ctx.services.renders.render(ctx.scope, args));
      },
    }),
    still: defineAction({
      summary: 'a PNG of one variant (campaignId, variantId, optional format).',
      permission: 'credits:spend',
      input: z.object({
        mode: z.literal('still'),
        campaignId: Ids.campaign,
        variantId: Ids.variant,
        format: z.enum(['landscape', 'square', 'story']).optional(),
        quoteId,
      }),
      async run(ctx, args) {
        return answer('still', await ctx.services.renders.render(ctx.scope, args));
      },
    }),
  },
});
