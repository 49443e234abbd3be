import { z } from 'zod';
import { listTemplates } from '../../domain/video/templates.ts';
import { defineAction, defineTool } from '../define-tool.ts';
import { NextCursor, Paging } from '../schemas.ts';

const ACTIONS = ['templates'] as const;

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
    'List the video templates (free) with their aspect ratio, length and the credits a render costs.',
    'Read-only; no confirmation needed. Use a template id with render_video mode=video.',
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
    ...Paging,
  }),
  output: z.looseObject({
    action: z.enum(ACTIONS),
    templates: z.array(TemplateOut).optional(),
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
  },
});
