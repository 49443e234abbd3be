/**
 * Jobs and approvals: every long job of the workspace (generations, renders, films, imports, channel posts —
 * the jobs an agent sees as MCP tasks), newest first, with what each is for, its progress, the credits it
 * reserved and spent, who started it and why it failed; a job's own page; Cancel; and the approval gate of a
 * film (approve, or request a revision with notes, quoted first).
 *
 * Nothing here is a second implementation: Cancel is the MCP task operation `tasks/cancel` runs (same
 * permission, service and audit line, `mcp/tasks.ts`), and the film's gate is answered through
 * `video_commission approve | revise` (`kit.tool`), the same gate the task's `input_required` answers. Pages
 * refresh themselves every few seconds while a job shown runs (no script needed).
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { can } from '../../auth/permissions.ts';
import type { FilmView } from '../../domain/films/films.service.ts';
import {
  describeJobs,
  listJobOverview,
  kindInSentence,
  kindName,
  type JobOverview,
} from '../../domain/jobs/job-overview.ts';
import { isTerminalJobStatus, JOB_STATUSES, type JobStatus } from '../../domain/jobs/job-status.ts';
import type { QuoteView as Quote } from '../../domain/credits/quotes.service.ts';
import { AppError } from '../../errors.ts';
import { CANCEL_TASK_PERMISSION, TASK_KINDS } from '../../mcp/tasks.ts';
import { count } from '../../views/count.ts';
import { html, type SafeHtml } from '../../views/html.ts';
import { shell, stackedTable, type Chrome, type Notice } from './chrome.ts';
import { state, type DashboardKit } from './kit.ts';

const JOBS_PER_PAGE = 25;
/**
 * Seconds between refreshes while a person follows running jobs (MCP clients are told to poll every 2 s).
 * Following is the person's choice (`?live=1`), never the default: a page that reloads itself on a timer
 * moves focus and the reading position under a screen reader, so WCAG 2.2.1 wants the person to control it
 * (axe-core's `meta-refresh` rule).
 */
const REFRESH_SECONDS = 3;
/**
 * The storyboard frames and the cut are the platform's own generated media, served by the platform host under
 * `/media/`: the job page allows images and video from itself, and from nowhere else.
 */
const OWN_MEDIA = ["img-src 'self'", "media-src 'self'"];

const STATUS_WORDS: Record<JobStatus, string> = {
  queued: 'Waiting to start',
  running: 'Running',
  input_required: 'Waiting for approval',
  cancel_requested: 'Cancelling',
  succeeded: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

const STATUS_BADGE: Record<JobStatus, string> = {
  queued: 'muted',
  running: 'info',
  input_required: 'warn',
  cancel_requested: 'muted',
  succeeded: 'ok',
  failed: 'error',
  cancelled: 'muted',
};

/** Still working: the page offers to follow progress live while one of these is shown. */
const isWorking = (status: JobStatus) => status === 'queued' || status === 'running' || status === 'cancel_requested';

const FILM_GATES: Record<'storyboard_approval' | 'final_approval', { what: string; approve: string }> = {
  storyboard_approval: { what: 'the storyboard', approve: 'Approve the storyboard and render the film' },
  final_approval: { what: 'the finished film', approve: 'Approve the final film' },
};

/** The refresh of a page that follows running jobs, and the link that turns following on or off. */
function liveRefresh(working: boolean, live: boolean): SafeHtml {
  return working && live ? html`<meta http-equiv="refresh" content="${REFRESH_SECONDS}" />` : html``;
}

function liveToggle(working: boolean, live: boolean, href: (live: boolean) => string): SafeHtml {
  if (!working) return html``;
  return live
    ? html`<p class="live">
        Following progress: this page reloads every ${REFRESH_SECONDS} seconds.
        <a href="${href(false)}">Stop following</a>
      </p>`
    : html`<p class="live">
        <a href="${href(true)}">Follow progress live</a>
        <span class="muted">(reloads the page every ${REFRESH_SECONDS} seconds while a job runs)</span>
      </p>`;
}

const minute = (at: Date | null) => (at ? `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC` : '—');

const JOB_CSS = html`<style>
  .job-progress {
    display: flex;
    gap: 8px;
    align-items: center;
    margin-top: 6px;
  }
  .job-progress progress {
    width: 120px;
    height: 10px;
  }
  .credits {
    white-space: nowrap;
  }
  .frames {
    list-style: none;
    padding: 0;
    margin: 0;
    display: grid;
    gap: 12px;
    grid-template-columns: repeat(auto-fill, minmax(200px, 1fr));
  }
  .frames figure {
    margin: 0;
    background: #fff;
    border: 1px solid #d5d9e0;
    border-radius: 6px;
    padding: 8px;
  }
  .frames img {
    width: 100%;
    height: auto;
    display: block;
    border-radius: 4px;
    background: #eceff3;
  }
  .frames figcaption {
    font-size: 0.9rem;
    margin-top: 6px;
  }
  video.cut {
    width: 100%;
    max-width: 640px;
    border-radius: 6px;
    background: #000;
  }
  textarea {
    width: 100%;
    max-width: 640px;
    min-height: 96px;
    padding: 8px 10px;
    border: 1px solid #8a919c;
    border-radius: 6px;
    font: inherit;
  }
  .gate {
    border-left: 4px solid #f9ab00;
  }
  .job-title {
    overflow-wrap: anywhere;
  }
  .live {
    margin: 8px 0;
  }
  .decision {
    margin-top: 20px;
    padding-top: 4px;
    border-top: 1px solid #e3e6ea;
  }
</style>`;

function statusCell(job: JobOverview): SafeHtml {
  const percent = Math.round(job.fraction * 100);
  return html`<span class="badge ${STATUS_BADGE[job.status]}">${STATUS_WORDS[job.status]}</span> ${
      isWorking(job.status)
        ? html`<div class="job-progress">
            <progress max="100" value="${percent}" aria-label="Progress of this job">${percent}%</progress>
            <span>${percent}%</span>
          </div>`
        : ''
    }
    ${job.step || job.message ? html`<div class="muted">${job.step ? html`Step: ${job.step}` : ''}${job.step && job.message ? ' — ' : ''}${job.message ?? ''}</div>` : ''}
    ${job.error ? html`<p class="reason">${job.error.message} <span class="muted">(${job.error.code})</span></p>` : ''}`;
}

function creditsCell(job: JobOverview): SafeHtml {
  const { reserved, spent, released, held } = job.credits;
  if (!reserved && !spent) return html`<span class="muted">Free</span>`;
  return html`<span class="credits">${count(spent, 'credit')} spent</span><br /><span class="muted"
      >${reserved}
      reserved${held ? html`, ${held} still held` : ''}${released ? html`, ${released} returned` : ''}</span
    >`;
}

function title(job: JobOverview): string {
  return job.purpose ? `${job.kindName}: ${job.purpose}` : job.kindName;
}

export interface JobsListView {
  jobs: JobOverview[];
  nextCursor: string | null;
  kind: string | null;
  status: JobStatus | null;
  paged: boolean;
  /** The person chose to follow progress (the page reloads itself while a job runs). */
  live: boolean;
}

export function jobsPage(chrome: Chrome, view: JobsListView, notices: Notice[] = []): string {
  const ws = chrome.current!;
  const filters = {
    ...(view.kind ? { kind: view.kind } : {}),
    ...(view.status ? { status: view.status } : {}),
    ...(view.live ? { live: '1' } : {}),
  };
  const working = view.jobs.some((job) => isWorking(job.status));
  const waiting = view.jobs.filter((job) => job.status === 'input_required');
  return shell(
    'Jobs',
    chrome,
    html`<h1>Jobs and approvals</h1>
      <p>
        Everything long that people and agents started in ${ws.name}: campaign generations, renders, films, product
        imports and social posts, with their progress and what they cost.
      </p>
      ${liveToggle(working, view.live, (live) => {
        const { live: _live, ...rest } = filters;
        return `/w/${ws.id}/jobs?${new URLSearchParams({ ...rest, ...(live ? { live: '1' } : {}) }).toString()}`;
      })}
      ${
        waiting.length
          ? html`<div class="notice warn" role="status">
              ${count(waiting.length, 'film')} ${waiting.length === 1 ? 'waits' : 'wait'} for your decision:
              ${waiting.map(
                (job, index) =>
                  html`${index ? ', ' : ''}<a href="/w/${ws.id}/jobs/${job.id}">${job.purpose ?? job.kindName}</a>`,
              )}
            </div>`
          : ''
      }
      <form method="get" action="/w/${ws.id}/jobs" class="row filters">
        <div>
          <label for="job-kind">Kind</label>
          <select id="job-kind" name="kind">
            <option value="">All kinds</option>
            ${TASK_KINDS.map((kind) => html`<option value="${kind}" ${view.kind === kind ? html`selected` : ''}>${kindName(kind)}</option>`)}
          </select>
        </div>
        <div>
          <label for="job-status">Status</label>
          <select id="job-status" name="status">
            <option value="">Any status</option>
            ${JOB_STATUSES.map((status) => html`<option value="${status}" ${view.status === status ? html`selected` : ''}>${STATUS_WORDS[status]}</option>`)}
          </select>
        </div>
        ${view.live ? html`<input type="hidden" name="live" value="1" />` : ''}
        <button class="secondary" type="submit">Show jobs</button>
      </form>
      ${
        view.jobs.length
          ? stackedTable(
              ['Job', 'Status', 'Credits', 'Started'],
              view.jobs.map((job) => [
                html`<a class="job-title" href="/w/${ws.id}/jobs/${job.id}">${title(job)}</a>`,
                statusCell(job),
                creditsCell(job),
                html`${job.startedBy}<br /><span class="muted">${minute(job.createdAt)}</span>`,
              ]),
            )
          : html`<p class="card muted">No jobs${view.kind || view.status ? ' match these filters' : ' yet'}.</p>`
      }
      <nav class="pager" aria-label="Pages of jobs">
        ${view.paged ? html`<a href="/w/${ws.id}/jobs?${new URLSearchParams(filters).toString()}">← Newest jobs</a>` : html`<span></span>`}
        ${view.nextCursor ? html`<a href="/w/${ws.id}/jobs?${new URLSearchParams({ ...filters, cursor: view.nextCursor }).toString()}">Older jobs →</a>` : ''}
      </nav>`,
    notices,
    html`${JOB_CSS}${liveRefresh(working, view.live)}`,
  );
}

export interface JobView {
  job: JobOverview;
  film: FilmView | null;
  canCancel: boolean;
  canDecide: boolean;
  live: boolean;
}

function filmSection(chrome: Chrome, view: JobView): SafeHtml {
  const film = view.film!;
  const ws = chrome.current!;
  const gate = film.waitingFor ? FILM_GATES[film.waitingFor] : null;
  const scenes = film.script?.scenes ?? [];
  return html`<section class="card ${gate ? 'gate' : ''}" aria-labelledby="film-title">
    <h2 id="film-title">Film ${`“${film.title}”`}</h2>
    <p class="muted">${film.aspect}, ${film.durationSeconds} seconds · revision ${film.revision}</p>
    <p>${film.brief}</p>
    ${
      gate
        ? html`<p>
            <strong>It waits for your decision on ${gate.what}.</strong> Approving continues the film; a revision
            re-runs this stage with your notes and costs credits (you see the quote first).
          </p>`
        : ''
    }
    ${
      film.script
        ? html`<h3>Script</h3>
            <p>${film.script.logline}</p>`
        : ''
    }
    ${
      film.output
        ? html`<h3>The cut</h3>
            <video class="cut" controls preload="metadata" src="${film.output.url}" aria-label="The film's cut"></video>
            <p>
              <a href="${film.output.url}"
                >Download the cut (${film.output.durationSeconds} s, ${film.output.width}×${film.output.height})</a
              >
            </p>`
        : ''
    }
    ${
      film.storyboard?.length
        ? html`<h3>Storyboard</h3>
            <ol class="frames">
              ${film.storyboard.map((frame, index) => {
                const caption = scenes[index]?.visual ?? '';
                return html`<li>
                  <figure>
                    <img
                      src="${frame.url}"
                      alt="Storyboard frame ${index + 1}${caption ? `: ${caption}` : ''}"
                      loading="lazy"
                    />
                    <figcaption>Scene ${index + 1}${caption ? html`: ${caption}` : ''}</figcaption>
                  </figure>
                </li>`;
              })}
            </ol>`
        : ''
    }
    ${
      film.revisions.length
        ? html`<h3>Revisions asked for</h3>
            <ul>
              ${film.revisions.map((revision) => html`<li>${revision.stage === 'final' ? 'Film' : 'Storyboard'}, ${revision.at.slice(0, 16).replace('T', ' ')} UTC: ${revision.notes}</li>`)}
            </ul>`
        : ''
    }
    ${
      gate && view.canDecide
        ? html`<div class="decision">
            <h3>Your decision</h3>
            <div class="row actions">
              <form method="post" action="/w/${ws.id}/jobs/${view.job.id}/approve">
                <input type="hidden" name="_csrf" value="${chrome.csrf}" />
                <button type="submit">${gate.approve}</button>
              </form>
            </div>
            <form method="post" action="/w/${ws.id}/jobs/${view.job.id}/revise">
              <input type="hidden" name="_csrf" value="${chrome.csrf}" />
              <label for="revise-notes">What should change in ${gate.what}?</label>
              <textarea id="revise-notes" name="notes" required maxlength="2000"></textarea>
              <p><button class="secondary" type="submit">Get a quote for this revision</button></p>
            </form>
          </div>`
        : gate
          ? html`<p class="muted">Editors and owners approve or revise films.</p>`
          : ''
    }
  </section>`;
}

export function jobPage(chrome: Chrome, view: JobView, notices: Notice[] = []): string {
  const ws = chrome.current!;
  const { job } = view;
  const { reserved, spent, released, held } = job.credits;
  const cancellable = !isTerminalJobStatus(job.status) && !job.cancelRequested;
  return shell(
    title(job),
    chrome,
    html`<p><a href="/w/${ws.id}/jobs">← All jobs</a></p>
      <h1 class="job-title">${title(job)}</h1>
      <div class="card">
        ${statusCell(job)}
        ${liveToggle(isWorking(job.status), view.live, (live) => `/w/${ws.id}/jobs/${job.id}${live ? '?live=1' : ''}`)}
        <dl class="facts">
          <div>
            <dt>Started by</dt>
            <dd>${job.startedBy}</dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>${minute(job.createdAt)}</dd>
          </div>
          <div>
            <dt>Started</dt>
            <dd>${minute(job.startedAt)}</dd>
          </div>
          <div>
            <dt>Finished</dt>
            <dd>${minute(job.finishedAt)}</dd>
          </div>
          <div>
            <dt>Credits</dt>
            <dd>
              ${
                reserved || spent
                  ? html`${count(spent, 'credit')} spent of ${reserved}
                    reserved${held ? html`; ${held} still held` : ''}${released ? html`; ${released} returned` : ''}`
                  : 'Free'
              }
            </dd>
          </div>
        </dl>
      </div>
      ${view.film ? filmSection(chrome, view) : ''}
      ${
        // Last, and outlined rather than filled: at a film's gate the decision is the page's action, and
        // stopping the job is the rarer one.
        cancellable && view.canCancel
          ? html`<form class="card" method="post" action="/w/${ws.id}/jobs/${job.id}/cancel">
              <h2>Stop this ${kindInSentence(job.kindName)}</h2>
              <input type="hidden" name="_csrf" value="${chrome.csrf}" />
              <p class="muted">
                Cancelling stops the job at its next step. Steps already finished stay paid; credits still held come
                back to the workspace.
              </p>
              <button class="secondary danger" type="submit">Cancel this ${kindInSentence(job.kindName)}</button>
            </form>`
          : ''
      }`,
    notices,
    html`${JOB_CSS}${liveRefresh(isWorking(job.status), view.live)}`,
  );
}

/** Asks before a paid revision: the quote, the notes, and a button that spends it. */
export function revisionQuotePage(
  chrome: Chrome,
  job: JobOverview,
  film: FilmView,
  quote: Quote,
  notes: string,
): string {
  const ws = chrome.current!;
  const gate = film.waitingFor ? FILM_GATES[film.waitingFor] : null;
  return shell(
    'Confirm the revision',
    chrome,
    html`<div class="card" role="alertdialog" aria-labelledby="quote-title">
      <h1 id="quote-title">Revise ${gate?.what ?? 'the film'} of ${`“${film.title}”`}?</h1>
      <p>
        This revision costs <strong>${count(quote.credits, 'credit')}</strong> (the workspace has ${quote.available}
        available). The stage is made again with your notes, and the film waits for your approval again afterwards.
      </p>
      <p><strong>Your notes:</strong> ${notes}</p>
      <form method="post" action="/w/${ws.id}/jobs/${job.id}/revise" class="row">
        <input type="hidden" name="_csrf" value="${chrome.csrf}" />
        <input type="hidden" name="notes" value="${notes}" />
        <input type="hidden" name="quoteId" value="${quote.id}" />
        <button type="submit">Spend ${count(quote.credits, 'credit')} and revise</button>
        <a href="/w/${ws.id}/jobs/${job.id}">Keep ${gate?.what ?? 'it'} as it is</a>
      </form>
    </div>`,
    [],
    JOB_CSS,
  );
}

const text = (value: unknown, max: number) => (typeof value === 'string' ? value.trim().slice(0, max) : '');

export function jobRoutes(router: Router, kit: DashboardKit): void {
  const { sendHtml } = kit;
  const { jobs, credits } = kit.container.services;

  async function loadJob(ctx: Context): Promise<JobView> {
    const scope = kit.scopeOf(ctx);
    const row = await jobs.get(scope, ctx.params.jobId!);
    // Only the jobs an agent sees as tasks: internal jobs answer "not found" here as they do there.
    if (!TASK_KINDS.includes(row.kind)) throw new AppError('not_found', `Job ${row.id} was not found`);
    const [job] = await describeJobs(scope, credits, [row]);
    const role = state(ctx).workspace!.role;
    const film = job!.filmId
      ? (
          await kit.tool<{ commission: FilmView }>(ctx, 'query_video_commissions', {
            action: 'get',
            commissionId: job!.filmId,
          })
        ).commission
      : null;
    return {
      job: job!,
      film,
      canCancel: can(role, CANCEL_TASK_PERMISSION),
      canDecide: can(role, 'credits:spend'),
      live: ctx.query.live === '1',
    };
  }

  const renderJob = async (ctx: Context, notices: Notice[] = []) => {
    sendHtml(ctx, jobPage(state(ctx).chrome, await loadJob(ctx), notices), 200, OWN_MEDIA);
  };

  router.get('/w/:workspaceId/jobs', ...kit.workspacePage('workspace:read'), async (ctx) => {
    const kind = typeof ctx.query.kind === 'string' && TASK_KINDS.includes(ctx.query.kind) ? ctx.query.kind : null;
    const status = JOB_STATUSES.includes(ctx.query.status as JobStatus) ? (ctx.query.status as JobStatus) : null;
    const cursor = typeof ctx.query.cursor === 'string' && ctx.query.cursor ? ctx.query.cursor : undefined;
    const page = await listJobOverview(kit.scopeOf(ctx), credits, {
      kinds: kind ? [kind] : TASK_KINDS,
      ...(status ? { status } : {}),
      ...(cursor ? { cursor } : {}),
      limit: JOBS_PER_PAGE,
    });
    sendHtml(
      ctx,
      jobsPage(state(ctx).chrome, { ...page, kind, status, paged: Boolean(cursor), live: ctx.query.live === '1' }),
    );
  });

  router.get('/w/:workspaceId/jobs/:jobId', ...kit.workspacePage('workspace:read'), async (ctx) => {
    const done = ctx.query.done;
    const notices: Notice[] =
      done === 'cancel'
        ? [{ kind: 'ok', text: 'Cancellation requested: the job stops at its next step.' }]
        : done === 'approve'
          ? [{ kind: 'ok', text: 'Approved: the film continues.' }]
          : done === 'revise'
            ? [{ kind: 'ok', text: 'Revision accepted: the stage is being made again with your notes.' }]
            : [];
    await renderJob(ctx, notices);
  });

  // Cancel: the MCP task operation itself (role check, cooperative cancellation, `mcp.tasks.cancel` audit line).
  router.post('/w/:workspaceId/jobs/:jobId/cancel', ...kit.toolAction(renderJob), async (ctx) => {
    const job = await jobs.get(kit.scopeOf(ctx), ctx.params.jobId!);
    if (!TASK_KINDS.includes(job.kind)) throw new AppError('not_found', `Job ${job.id} was not found`);
    if (isTerminalJobStatus(job.status)) {
      await renderJob(ctx, [
        { kind: 'warn', text: `This job already ended (${STATUS_WORDS[job.status as JobStatus]}).` },
      ]);
      return;
    }
    await kit.tasks(ctx).cancel(job);
    ctx.redirect(`/w/${ctx.params.workspaceId}/jobs/${job.id}?done=cancel`);
  });

  // The film's gate, answered as an agent answers it: video_commission approve | revise.
  router.post('/w/:workspaceId/jobs/:jobId/approve', ...kit.toolAction(renderJob), async (ctx) => {
    const { job } = await loadJob(ctx);
    await kit.tool(ctx, 'video_commission', { action: 'approve', commissionId: job.filmId ?? '' });
    ctx.redirect(`/w/${ctx.params.workspaceId}/jobs/${job.id}?done=approve`);
  });

  router.post('/w/:workspaceId/jobs/:jobId/revise', ...kit.toolAction(renderJob), async (ctx) => {
    const view = await loadJob(ctx);
    const body = ctx.request.body as Record<string, unknown>;
    const notes = text(body.notes, 2000);
    const quoteId = text(body.quoteId, 40);
    const answer = await kit.tool<{ status: string; quote?: Quote }>(ctx, 'video_commission', {
      action: 'revise',
      commissionId: view.job.filmId ?? '',
      notes,
      ...(quoteId ? { quoteId } : {}),
    });
    if (answer.status === 'quote_required' && answer.quote && view.film) {
      sendHtml(ctx, revisionQuotePage(state(ctx).chrome, view.job, view.film, answer.quote, notes));
      return;
    }
    ctx.redirect(`/w/${ctx.params.workspaceId}/jobs/${view.job.id}?done=revise`);
  });
}
