/**
 * Commissioned films, request side: create (quote, then commit), approve, revise (a quote per revision),
 * cancel, and the reads behind `query_video_commissions`. The film's workflow owns its stages; this service
 * only starts it and sends it validated decisions (a Temporal update the workflow itself checks).
 */
import { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { CampaignsService } from '../campaigns/campaigns.service.ts';
import { CampaignId } from '../shared/schemas.ts';
import type { CreditsService } from '../credits/credits.service.ts';
import { filmLines, PRICES } from '../credits/price-list.ts';
import type { QuotesService, QuoteView } from '../credits/quotes.service.ts';
import type { JobLauncher } from '../jobs/job-launcher.ts';
import { Job } from '../jobs/job.entity.ts';
import type { JobsService } from '../jobs/jobs.service.ts';
import {
  afterCursor,
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  ORDER_NEWEST_FIRST,
  toPage,
  type Page,
} from '../shared/pagination.ts';
import { newId } from '../shared/ids.ts';
import { ownedBy, type WorkspaceScope } from '../shared/scope.ts';
import { parseInput } from '../shared/validate.ts';
import { FilmCommission, FILM_STATUSES, type FilmStatus } from './film-commission.entity.ts';

export const FILM_KIND = 'film';

export const CreateFilmArgs = z.object({
  title: z.string().trim().min(1, 'must not be empty').max(200),
  brief: z.string().trim().min(10, 'must describe the film (at least 10 characters)').max(4000),
  campaignId: CampaignId.optional(),
  aspect: z.enum(['16:9', '9:16', '1:1']).optional(),
  durationSeconds: z.number().int().min(6, 'must be at least 6').max(60, 'must be at most 60').optional(),
});

export interface FilmView {
  id: string;
  title: string;
  brief: string;
  campaignId: string | null;
  aspect: string;
  durationSeconds: number;
  status: FilmStatus;
  /** What the film waits for, if anything: `storyboard_approval` or `final_approval`. */
  waitingFor: 'storyboard_approval' | 'final_approval' | null;
  revision: number;
  revisions: FilmCommission['revisions'];
  script: FilmCommission['script'];
  storyboard: FilmCommission['storyboard'];
  output: FilmCommission['output'];
  jobId: string | null;
  taskId: string | null;
  job: {
    status: string;
    progress: number;
    message: string | null;
    error: { code: string; message: string } | null;
  } | null;
  createdAt: string;
  updatedAt: string;
}

export function toFilmView(film: FilmCommission, job: Job | null): FilmView {
  return {
    id: film.id,
    title: film.title,
    brief: film.brief,
    campaignId: film.campaign?.id ?? null,
    aspect: film.aspect,
    durationSeconds: film.durationSeconds,
    status: film.status,
    waitingFor:
      film.status === 'awaiting_storyboard_approval'
        ? 'storyboard_approval'
        : film.status === 'awaiting_final_approval'
          ? 'final_approval'
          : null,
    revision: film.revision,
    revisions: film.revisions,
    script: film.script ?? null,
    storyboard: film.storyboard ?? null,
    output: film.output ?? null,
    jobId: film.jobId ?? null,
    taskId: job?.taskId ?? null,
    job: job
      ? {
          status: job.status,
          progress: job.progress.fraction,
          message: job.progress.message ?? null,
          error: job.error ?? null,
        }
      : null,
    createdAt: film.createdAt.toISOString(),
    updatedAt: film.updatedAt.toISOString(),
  };
}

export type FilmOutcome =
  { status: 'quote_required'; quote: QuoteView } | { status: 'done'; film: FilmView; job: Job | null };

export function createFilmsService(deps: {
  jobs: JobsService;
  quotes: QuotesService;
  credits: CreditsService;
  campaigns: CampaignsService;
  launcher: JobLauncher;
}) {
  const { jobs, quotes, credits, launcher } = deps;

  async function find(scope: WorkspaceScope, commissionId: string): Promise<FilmCommission> {
    const film = await scope.em.findOne(FilmCommission, { id: commissionId });
    if (!film) throw new NotFoundError('Film commission', commissionId);
    return film;
  }

  async function jobOf(scope: WorkspaceScope, film: FilmCommission): Promise<Job | null> {
    return film.jobId ? scope.em.findOne(Job, { id: film.jobId }) : null;
  }

  async function view(scope: WorkspaceScope, film: FilmCommission): Promise<FilmView> {
    return toFilmView(film, await jobOf(scope, film));
  }

  /** Sends a decision to the film's workflow; refuses clearly when the film is not at an approval gate. */
  async function decide(scope: WorkspaceScope, film: FilmCommission, decision: Record<string, unknown>) {
    const job = await jobOf(scope, film);
    if (!job?.runId) throw new ConflictError(`Film ${film.id} has no running job`);
    const answer = await launcher.update(job.workflowId, job.runId, 'decide', decision);
    if (!answer.accepted)
      throw new ConflictError(`Film ${film.id} cannot take that decision now: ${answer.reason}`, {
        status: film.status,
      });
  }

  function assertWaiting(film: FilmCommission, what: string) {
    if (film.status !== 'awaiting_storyboard_approval' && film.status !== 'awaiting_final_approval') {
      throw new ConflictError(
        `Film ${film.id} is ${film.status}; you can ${what} only while it waits for approval (poll query_video_commissions get)`,
        {
          status: film.status,
        },
      );
    }
  }

  return {
    async create(
      scope: WorkspaceScope,
      raw: z.input<typeof CreateFilmArgs> & { quoteId?: string },
    ): Promise<FilmOutcome> {
      const { quoteId, ...rest } = raw;
      const args = parseInput(CreateFilmArgs, rest, 'film');
      if (args.campaignId) await deps.campaigns.get(scope, args.campaignId);
      const lines = filmLines('create');
      if (!quoteId)
        return { status: 'quote_required', quote: await quotes.quote(scope, 'video_commission.create', rest, lines) };
      const jobId = newId('job');
      await quotes.redeem(scope, { quoteId, operation: 'video_commission.create', args: rest, reference: jobId });
      try {
        const film = scope.em.create(FilmCommission, {
          id: newId('filmCommission'),
          ...ownedBy(scope),
          campaign: args.campaignId ?? null,
          title: args.title,
          brief: args.brief,
          aspect: args.aspect ?? '16:9',
          durationSeconds: args.durationSeconds ?? 15,
          status: 'scripting',
          revision: 0,
          revisions: [],
          script: null,
          storyboard: null,
          output: null,
          jobId,
          createdBy: scope.actor,
        });
        await scope.em.flush();
        const { job } = await jobs.start(scope, {
          jobId,
          kind: FILM_KIND,
          workflowType: 'filmCommissionWorkflow',
          businessKey: film.id,
          subjectId: film.id,
          campaignId: args.campaignId ?? null,
          input: {
            commissionId: film.id,
            prices: { script: PRICES.film.script, storyboard: PRICES.film.storyboard, render: PRICES.film.render },
            actor: scope.actor,
          },
          summary: `Film "${args.title}" (${film.id})`,
        });
        return { status: 'done', film: toFilmView(film, job), job };
      } catch (error) {
        await credits.releaseRemaining(scope.em, {
          workspaceId: scope.workspaceId,
          idempotencyKey: `${jobId}:release`,
          reference: jobId,
          description: 'the film did not start; credits returned',
          actor: scope.actor,
        });
        throw error;
      }
    },

    async approve(scope: WorkspaceScope, commissionId: string): Promise<FilmOutcome> {
      const film = await find(scope, commissionId);
      assertWaiting(film, 'approve');
      await decide(scope, film, { decision: 'approve', by: scope.actor });
      await scope.em.refresh(film);
      return { status: 'done', film: await view(scope, film), job: await jobOf(scope, film) };
    },

    async revise(
      scope: WorkspaceScope,
      input: { commissionId: string; notes: string; quoteId?: string },
    ): Promise<FilmOutcome> {
      const notes = parseInput(z.string().trim().min(3, 'must say what to change').max(2000), input.notes, 'notes');
      const film = await find(scope, input.commissionId);
      assertWaiting(film, 'revise');
      const stage = film.status === 'awaiting_storyboard_approval' ? 'storyboard' : 'final';
      const lines = filmLines(stage === 'storyboard' ? 'revise_storyboard' : 'revise_render');
      const args = { commissionId: input.commissionId, notes: input.notes };
      if (!input.quoteId)
        return {
          status: 'quote_required',
          quote: await quotes.quote(scope, `video_commission.revise_${stage}`, args, lines),
        };
      const job = await jobOf(scope, film);
      if (!job) throw new ConflictError(`Film ${film.id} has no running job`);
      const { quote, reserved } = await quotes.redeem(scope, {
        quoteId: input.quoteId,
        operation: `video_commission.revise_${stage}`,
        args,
        reference: job.id,
      });
      try {
        await decide(scope, film, { decision: 'revise', notes, credits: reserved, by: scope.actor });
      } catch (error) {
        if (reserved > 0) {
          await credits.release(scope.em, {
            workspaceId: scope.workspaceId,
            amount: reserved,
            idempotencyKey: `quote:${quote.id}:refund`,
            reference: job.id,
            description: 'the revision was not accepted; credits returned',
            actor: scope.actor,
          });
        }
        throw error;
      }
      film.revisions = [...film.revisions, { stage, notes, at: new Date().toISOString(), by: scope.actor }];
      film.revision += 1;
      await scope.em.flush();
      await scope.em.refresh(film);
      return { status: 'done', film: await view(scope, film), job };
    },

    async cancel(scope: WorkspaceScope, commissionId: string): Promise<FilmOutcome> {
      const film = await find(scope, commissionId);
      if (film.status === 'completed' || film.status === 'cancelled' || film.status === 'failed') {
        throw new ConflictError(`Film ${film.id} is already ${film.status}`);
      }
      if (!film.jobId) throw new ConflictError(`Film ${film.id} has no running job`);
      const job = await jobs.requestCancel(scope, film.jobId);
      return { status: 'done', film: await view(scope, film), job };
    },

    async get(scope: WorkspaceScope, commissionId: string): Promise<FilmView> {
      return view(scope, await find(scope, commissionId));
    },

    async list(
      scope: WorkspaceScope,
      input: { status?: string; campaignId?: string; cursor?: string; limit?: number },
    ): Promise<Page<FilmView>> {
      if (input.status && !(FILM_STATUSES as readonly string[]).includes(input.status)) {
        throw new ValidationError(`status must be one of ${FILM_STATUSES.join(', ')}`);
      }
      const limit = input.limit ?? DEFAULT_PAGE_SIZE;
      const rows = await scope.em.find(
        FilmCommission,
        {
          ...(input.status ? { status: input.status as FilmStatus } : {}),
          ...(input.campaignId ? { campaign: input.campaignId } : {}),
          ...afterCursor(decodeCursor(input.cursor)),
        },
        { orderBy: ORDER_NEWEST_FIRST, limit: limit + 1 },
      );
      const page = toPage(rows, limit, (row) => row);
      const jobsById = new Map(
        (
          await scope.em.find(Job, {
            id: { $in: page.items.map((f) => f.jobId).filter((id): id is string => Boolean(id)) },
          })
        ).map((j) => [j.id, j]),
      );
      return {
        items: page.items.map((film) => toFilmView(film, film.jobId ? (jobsById.get(film.jobId) ?? null) : null)),
        nextCursor: page.nextCursor,
      };
    },
  };
}

export type FilmsService = ReturnType<typeof createFilmsService>;
