import { z } from 'zod';
import { FILM_STATUSES } from '../../domain/films/film-commission.entity.ts';
import type { FilmView } from '../../domain/films/films.service.ts';
import { defineAction, defineTool } from '../define-tool.ts';
import { FilmOut, Ids, NextCursor, Paging } from '../schemas.ts';

const ACTIONS = ['list', 'get'] as const;

export const describeFilm = (film: FilmView) =>
  `Film "${film.title}" (${film.id}) is ${film.status}${film.waitingFor ? `, waiting for ${film.waitingFor.replace('_', ' ')}: approve or revise it with video_commission` : ''}${film.output ? `; film: ${film.output.url}` : ''}.`;

/** The read actions, shared with the deprecated internal-only copies on video_commission. */
export const filmReadActions = {
  list: defineAction({
    summary: 'commissioned films newest first, with status and what each waits for; filters status, campaignId.',
    permission: 'workspace:read',
    input: z.object({
      action: z.literal('list'),
      status: z.enum(FILM_STATUSES).optional(),
      campaignId: Ids.campaign.optional(),
      ...Paging,
    }),
    async run(ctx, args) {
      const page = await ctx.services.films.list(ctx.scope, args);
      return {
        structured: { action: 'list', commissions: page.items, nextCursor: page.nextCursor },
        text: page.items.length ? page.items.map(describeFilm).join('\n') : 'No commissioned films.',
      };
    },
  }),
  get: defineAction({
    summary: 'one film: status, script, storyboard frames, revisions, the final film URL when rendered.',
    permission: 'workspace:read',
    input: z.object({ action: z.literal('get'), commissionId: Ids.film }),
    async run(ctx, args) {
      const commission = await ctx.services.films.get(ctx.scope, args.commissionId);
      return { structured: { action: 'get', commission }, text: describeFilm(commission) };
    },
  }),
};

export const FilmReadOutput = {
  commissions: z.array(FilmOut).optional(),
  commission: FilmOut.optional(),
  nextCursor: NextCursor,
};

export default defineTool({
  name: 'query_video_commissions',
  toolset: 'video',
  description: [
    'Read commissioned films and where each stands: scripting, storyboarding, waiting for storyboard approval,',
    'rendering, waiting for final approval, completed. Read-only and free. A film waiting for approval needs the',
    "user's decision: show them the storyboard or the film, then call video_commission approve or revise.",
  ].join(' '),
  annotations: {
    title: 'Query video commissions',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  selector: 'action',
  input: z.object({
    action: z.enum(ACTIONS).describe(ACTIONS.join(' | ')),
    commissionId: Ids.film.optional().describe('get (required).'),
    status: z.enum(FILM_STATUSES).optional().describe('list: only films in this status.'),
    campaignId: Ids.campaign.optional().describe('list: only films of this campaign.'),
    ...Paging,
  }),
  output: z.looseObject({ action: z.enum(ACTIONS), ...FilmReadOutput }),
  actions: filmReadActions,
});
