import { z } from 'zod';
import { FILM_STATUSES } from '../../domain/films/film-commission.entity.ts';
import { FILM_KIND, type FilmOutcome } from '../../domain/films/films.service.ts';
import { quoteText } from '../tool-result.ts';
import { defineAction, defineTool, type ToolOutput } from '../define-tool.ts';
import { FilmOut, Ids, Paging, QuoteOut, WorkspaceEcho } from '../schemas.ts';
import { describeFilm, filmReadActions, FilmReadOutput } from './query-video-commissions.ts';

const ACTIONS = ['create', 'approve', 'revise', 'cancel', 'list', 'get'] as const;
const quoteId = z
  .string()
  .max(40)
  .optional()
  .describe('create/revise: the accepted quote. Omit to get a quote (nothing is spent).');
const internalRead = <A extends object>(action: A) => ({
  ...action,
  internalOnly: { useInstead: 'query_video_commissions' },
});

/**
 * The one builder of this tool's results: the answer to a call and, for the task a `create` started, the
 * result once the film's job is over (then `done` is empty and `commission.status` says how it ended).
 */
function answer(action: (typeof ACTIONS)[number], outcome: FilmOutcome, done: string): ToolOutput {
  if (outcome.status === 'quote_required') {
    const { quote } = outcome;
    return {
      structured: { action, status: 'quote_required', quote },
      text: quoteText('This', quote),
    };
  }
  const { film, job } = outcome;
  return {
    structured: { action, status: 'accepted', commission: film },
    text: done ? `${done} ${describeFilm(film)}` : describeFilm(film),
    ...(job && action === 'create' ? { job } : {}),
  };
}

export default defineTool({
  name: 'video_commission',
  toolset: 'video',
  description: [
    'Commission an AI film and steer it: create (script → storyboard → your approval → render → your approval),',
    'approve at an approval step, revise with notes (re-runs the stage under review), cancel. Costs credits, metered',
    'per stage: create and revise first return a quote (nothing spent); after the user confirms, repeat the same call',
    'with quoteId. Confirm approvals and cancellations with the user. Follow progress with query_video_commissions',
    '(or the task handle: it reports input_required while a decision is needed). The list and get actions here are',
    'deprecated and refused for external clients.',
  ].join(' '),
  annotations: {
    title: 'Video commission',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  selector: 'action',
  input: z.object({
    action: z
      .enum(ACTIONS)
      .describe('create | approve | revise | cancel (list and get are deprecated here: use query_video_commissions)'),
    commissionId: Ids.film.optional().describe('approve, revise, cancel (required).'),
    title: z.string().max(200).optional().describe('create (required).'),
    brief: z.string().max(4000).optional().describe('create (required): what the film shows and says.'),
    campaignId: Ids.campaign.optional().describe('create: the campaign the film is for.'),
    aspect: z.enum(['16:9', '9:16', '1:1']).optional().describe('create: default 16:9.'),
    durationSeconds: z.number().int().min(6).max(60).optional().describe('create: 6–60, default 15.'),
    notes: z.string().max(2000).optional().describe('revise (required): what to change.'),
    quoteId,
    status: z.enum(FILM_STATUSES).optional(),
    ...Paging,
  }),
  output: z.looseObject({
    action: z.enum(ACTIONS),
    status: z.enum(['quote_required', 'accepted']).optional(),
    quote: QuoteOut.optional(),
    ...FilmReadOutput,
    commission: FilmOut.optional(),
    workspace: WorkspaceEcho.optional(),
  }),
  jobResult: {
    kinds: [FILM_KIND],
    // Only `create` starts a film's job (approvals and revisions continue it).
    async build(ctx, job) {
      const film = await ctx.services.films.get(ctx.scope, job.subjectId ?? '');
      return answer('create', { status: 'done', film, job: null }, '');
    },
  },
  actions: {
    create: defineAction({
      summary:
        'commission a film (title, brief; optional campaignId, aspect, durationSeconds); quote first, then quoteId.',
      permission: 'credits:spend',
      input: z.object({
        action: z.literal('create'),
        title: z.string(),
        brief: z.string(),
        campaignId: Ids.campaign.optional(),
        aspect: z.enum(['16:9', '9:16', '1:1']).optional(),
        durationSeconds: z.number().int().optional(),
        quoteId,
      }),
      async run(ctx, { action: _a, ...args }) {
        return answer(
          'create',
          await ctx.services.films.create(ctx.scope, args),
          'Film commissioned; the script and storyboard are being made.',
        );
      },
    }),
    approve: defineAction({
      summary: 'approve the storyboard (the film is then rendered) or the final film (it is then complete).',
      permission: 'credits:spend',
      input: z.object({ action: z.literal('approve'), commissionId: Ids.film }),
      async run(ctx, args) {
        return answer('approve', await ctx.services.films.approve(ctx.scope, args.commissionId), 'Approved.');
      },
    }),
    revise: defineAction({
      summary: 'send revision notes for the stage under review (storyboard or film); quote first, then quoteId.',
      permission: 'credits:spend',
      input: z.object({ action: z.literal('revise'), commissionId: Ids.film, notes: z.string(), quoteId }),
      async run(ctx, args) {
        return answer('revise', await ctx.services.films.revise(ctx.scope, args), 'Revision accepted and under way.');
      },
    }),
    cancel: defineAction({
      summary: 'stop the film; stages already finished stay paid, the rest of the credits come back.',
      permission: 'credits:spend',
      input: z.object({ action: z.literal('cancel'), commissionId: Ids.film }),
      async run(ctx, args) {
        return answer(
          'cancel',
          await ctx.services.films.cancel(ctx.scope, args.commissionId),
          'Cancellation requested.',
        );
      },
    }),
    list: internalRead(filmReadActions.list),
    get: internalRead(filmReadActions.get),
  },
});
