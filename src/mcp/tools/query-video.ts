import { z } from 'zod';
import { listTemplates } from '../../domain/video/templates.ts';
import { defineAction, defineTool } from '../define-tool.ts';
import { Ids, NextCursor, Paging, RenderOut } from '../schemas.ts';

const ACTIONS = ['templates', 'progress'] as const;

const TemplateOut = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  aspect: z.string(),
  width: z.number(),
  height: z.number(),
  durationSeconds: z.number(),
  credits: z.number(),
  suitedFor: z.array(z.string()),
});

export default defineTool({
  name: 'query_video',
  toolset: 'video',
  description: [
    'List the video templates (free) with their aspect ratio, length and the credits a render costs, or read the',
    'progress of a render started with render_video (jobId). Read-only; no confirmation needed.',
  ].join(' '),
  annotations: {
    title: 'Query video',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  selector: 'action',
  input: z.object({
    action: z.enum(ACTIONS).describe(ACTIONS.join(' | ')),
    aspect: z.enum(['16:9', '9:16', '1:1']).optional().describe('templates: only this aspect ratio.'),
    jobId: Ids.job.optional().describe('progress (required): the render job render_video returned.'),
    ...Paging,
  }),
  output: z.looseObject({
    action: z.enum(ACTIONS),
    templates: z.array(TemplateOut).optional(),
    render: RenderOut.optional(),
    nextCursor: NextCursor,
  }),
  actions: {
    templates: defineAction({
      summary: 'the template catalogue (free): id, aspect, duration, scenes, credits per render.',
      permission: 'workspace:read',
      input: z.object({
        action: z.literal('templates'),
        aspect: z.enum(['16:9', '9:16', '1:1']).optional(),
        ...Paging,
      }),
      async run(_ctx, args) {
        const page = listTemplates(args);
        return {
          structured: { action: 'templates', templates: page.items, nextCursor: page.nextCursor },
          text: page.items
            .map((t) => `${t.id}: ${t.name} (${t.aspect}, ${t.durationSeconds}s, ${t.credits} credits)`)
            .join('\n'),
        };
      },
    }),
    progress: defineAction({
      summary: 'status and progress of a render (jobId); when complete, the output URL, size and duration.',
      permission: 'workspace:read',
      input: z.object({ action: z.literal('progress'), jobId: Ids.job }),
      async run(ctx, args) {
        const render = await ctx.services.renders.progress(ctx.scope, args.jobId);
        const text =
          render.status === 'complete' && render.output
            ? `Render complete: ${render.output.url} (${render.output.mimeType}, ${render.output.width}×${render.output.height}${render.output.durationSeconds ? `, ${render.output.durationSeconds.toFixed(1)} s` : ''}).`
            : `Render ${render.status}, ${Math.round(render.progress * 100)}%${render.error ? `: ${render.error.message}` : ''}.${['queued', 'rendering', 'cancelling'].includes(render.status) ? ` Poll again in ${render.pollIntervalMs / 1000} s.` : ''}`;
        return { structured: { action: 'progress', render }, text };
      },
    }),
  },
});
