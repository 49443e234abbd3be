/**
 * Jobs as people look at them (the console's Jobs page): what each job is for in names, not ids — the campaign
 * a generation or render is for, the film's title, the post and its network, the file an import reads — who
 * started it, and the credits it reserved, spent, got back and still holds, from the ledger entries that name
 * the job as their reference.
 *
 * Reads only: starting, cancelling and approving stay with the services and tools that own them.
 */
import type { CreditsService, JobCredits } from '../credits/credits.service.ts';
import { campaignNames } from '../campaigns/campaigns.ts';
import { ChannelPost } from '../channels/channel-post.entity.ts';
import { NETWORK_NAMES, type ChannelNetwork } from '../channels/channel-networks.ts';
import { FilmCommission } from '../films/film-commission.entity.ts';
import type { WorkspaceScope } from '../shared/scope.ts';
import { ApiKey } from '../workspaces/api-key.entity.ts';
import { User } from '../workspaces/user.entity.ts';
import type { JobStatus } from './job-status.ts';
import { Job } from './job.entity.ts';
import { ValidationError } from '../../errors.ts';

export interface JobOverview {
  id: string;
  kind: string;
  /** The kind in words ("Campaign generation", "Bluesky post"). */
  kindName: string;
  /** What the job works on, in words ("campaign “Summer linen”"), or null when it names nothing. */
  purpose: string | null;
  /** The film this job makes, when it is a film (its gate is approved on the job's page). */
  filmId: string | null;
  status: JobStatus;
  /** 0..1 */
  fraction: number;
  step: string | null;
  message: string | null;
  error: { code: string; message: string } | null;
  credits: JobCredits;
  /** Who started it, by name ("Ada Lovelace", "API key “ci”", "a connected app"). */
  startedBy: string;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  cancelRequested: boolean;
}

export interface JobOverviewPage {
  jobs: JobOverview[];
  nextCursor: string | null;
}

export interface JobOverviewFilters {
  /** The kinds to list (the MCP task kinds: internal jobs such as republishing are not people's business). */
  kinds: readonly string[];
  status?: JobStatus;
  cursor?: string;
  limit: number;
}

const NO_CREDITS: JobCredits = { reserved: 0, spent: 0, released: 0, held: 0 };

const KIND_NAMES: Record<string, string> = {
  campaign_generation: 'Campaign generation',
  render: 'Render',
  film: 'Film',
  product_import: 'Product import',
};

/** A job kind in words: the known ones, `<network>_post` as "<Network> post", else the kind itself. */
export function kindName(kind: string): string {
  if (KIND_NAMES[kind]) return KIND_NAMES[kind];
  const network = kind.endsWith('_post') ? (kind.slice(0, -'_post'.length) as ChannelNetwork) : null;
  if (network && NETWORK_NAMES[network]) return `${NETWORK_NAMES[network]} post`;
  return kind.replaceAll('_', ' ');
}

/** A kind's name inside a sentence: "film", "campaign generation", but "Bluesky post" (a network keeps its name). */
export function kindInSentence(name: string): string {
  return name.endsWith(' post') ? name : name.toLowerCase();
}

const encodeCursor = (job: Job) => Buffer.from(`${job.createdAt.toISOString()}|${job.id}`).toString('base64url');

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (!id || Number.isNaN(createdAt.getTime())) throw new ValidationError('Invalid cursor');
  return { createdAt, id };
}

const quoted = (text: string, max = 60) => `“${text.length > max ? `${text.slice(0, max - 1)}…` : text}”`;

/** The names behind a page of jobs, read in one query per entity type. */
async function namesOf(scope: WorkspaceScope, jobs: Job[]) {
  const ids = (kinds: (kind: string) => boolean) => [
    ...new Set(jobs.filter((job) => kinds(job.kind) && job.subjectId).map((job) => job.subjectId!)),
  ];
  const renderCampaigns = jobs
    .filter((job) => job.kind === 'render')
    .map((job) => (job.input.request as { campaignId?: string } | undefined)?.campaignId)
    .filter((id): id is string => typeof id === 'string');
  const filmIds = ids((kind) => kind === 'film');
  const postIds = ids((kind) => kind.endsWith('_post'));
  const films = filmIds.length ? await scope.em.find(FilmCommission, { id: { $in: filmIds } }) : [];
  const posts = postIds.length
    ? await scope.em.find(ChannelPost, { id: { $in: postIds } }, { populate: ['account'] })
    : [];
  const campaignIds = [
    ...new Set([
      ...ids((kind) => kind === 'campaign_generation'),
      ...renderCampaigns,
      ...films.map((film) => film.campaign?.id).filter((id): id is string => Boolean(id)),
    ]),
  ];
  return {
    campaign: await campaignNames(scope, campaignIds),
    film: new Map(films.map((film) => [film.id, film])),
    post: new Map(posts.map((post) => [post.id, post])),
  };
}

/** Who started each job, by name: members by their name, API keys by theirs. */
async function startersOf(scope: WorkspaceScope, jobs: Job[]): Promise<Map<string, string>> {
  const byPrefix = (prefix: string) => [
    ...new Set(jobs.filter((job) => job.createdBy.startsWith(prefix)).map((job) => job.createdBy.slice(prefix.length))),
  ];
  const userIds = byPrefix('user:');
  const keyIds = byPrefix('key:');
  // Users belong to no workspace: the starter of a job of this workspace is read by id (they were a member then).
  const users = userIds.length ? await scope.em.find(User, { id: { $in: userIds } }) : [];
  const keys = keyIds.length ? await scope.em.find(ApiKey, { id: { $in: keyIds } }) : [];
  return new Map<string, string>([
    ...users.map((user) => [`user:${user.id}`, user.name || user.email] as [string, string]),
    ...keys.map((key) => [`key:${key.id}`, `API key ${quoted(key.name)}`] as [string, string]),
  ]);
}

function starterName(createdBy: string, known: Map<string, string>): string {
  const name = known.get(createdBy);
  if (name) return name;
  if (createdBy.startsWith('client:')) return 'A connected app';
  if (createdBy === 'operator') return 'The platform operator';
  if (createdBy.startsWith('user:')) return 'A former member';
  if (createdBy.startsWith('key:')) return 'A deleted API key';
  return 'The platform';
}

function purposeOf(job: Job, names: Awaited<ReturnType<typeof namesOf>>): string | null {
  const campaign = (id: string | null | undefined) => {
    const name = id ? names.campaign.get(id) : undefined;
    return name ? `campaign ${quoted(name)}` : null;
  };
  switch (job.kind) {
    case 'campaign_generation':
      return campaign(job.subjectId);
    case 'render': {
      const request = (job.input.request ?? {}) as { mode?: string; campaignId?: string };
      const what = request.mode === 'video' ? 'a video' : request.mode === 'still' ? 'a still' : 'media';
      const of = campaign(request.campaignId);
      return of ? `${what} of ${of}` : what;
    }
    case 'film': {
      const film = job.subjectId ? names.film.get(job.subjectId) : undefined;
      if (!film) return null;
      const of = campaign(film.campaign?.id);
      return `${quoted(film.title)}${of ? ` for ${of}` : ''}`;
    }
    case 'product_import': {
      const source = typeof job.input.sourceUrl === 'string' ? job.input.sourceUrl : null;
      if (!source) return null;
      try {
        const url = new URL(source);
        return `products from ${url.host}${url.pathname.length > 1 ? url.pathname : ''}`;
      } catch {
        return null;
      }
    }
    default: {
      const post = job.subjectId ? names.post.get(job.subjectId) : undefined;
      if (!post) return null;
      const handle = post.account.isInitialized() ? post.account.getEntity().handle : null;
      return `${quoted(post.text, 80)}${handle ? ` as @${handle}` : ''}`;
    }
  }
}

/** A page of the workspace's jobs, newest first, with what each is for, who started it and its credits. */
export async function listJobOverview(
  scope: WorkspaceScope,
  credits: Pick<CreditsService, 'byReference'>,
  filters: JobOverviewFilters,
): Promise<JobOverviewPage> {
  const after = filters.cursor ? decodeCursor(filters.cursor) : null;
  const rows = await scope.em.find(
    Job,
    {
      kind: { $in: [...filters.kinds] },
      ...(filters.status ? { status: filters.status } : {}),
      ...(after
        ? { $or: [{ createdAt: { $lt: after.createdAt } }, { createdAt: after.createdAt, id: { $lt: after.id } }] }
        : {}),
    },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: filters.limit + 1 },
  );
  const jobs = rows.slice(0, filters.limit);
  const overviews = await describeJobs(scope, credits, jobs);
  return {
    jobs: overviews,
    nextCursor: rows.length > filters.limit && jobs.length ? encodeCursor(jobs[jobs.length - 1]!) : null,
  };
}

/** The overview of given jobs (one job's page, or a list). */
export async function describeJobs(
  scope: WorkspaceScope,
  credits: Pick<CreditsService, 'byReference'>,
  jobs: Job[],
): Promise<JobOverview[]> {
  const [names, starters, ledger] = await Promise.all([
    namesOf(scope, jobs),
    startersOf(scope, jobs),
    credits.byReference(
      scope.em,
      scope.workspaceId,
      jobs.map((job) => job.id),
    ),
  ]);
  return jobs.map((job) => ({
    id: job.id,
    kind: job.kind,
    kindName: kindName(job.kind),
    purpose: purposeOf(job, names),
    filmId: job.kind === 'film' ? (job.subjectId ?? null) : null,
    status: job.status,
    fraction: job.progress.fraction ?? 0,
    step: job.progress.step ?? null,
    message: job.progress.message ?? null,
    error: job.error ?? null,
    credits: ledger.get(job.id) ?? NO_CREDITS,
    startedBy: starterName(job.createdBy, starters),
    createdAt: job.createdAt,
    startedAt: job.startedAt ?? null,
    finishedAt: job.finishedAt ?? null,
    cancelRequested: Boolean(job.cancelRequestedAt),
  }));
}
