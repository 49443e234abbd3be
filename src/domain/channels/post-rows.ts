/**
 * Every status change of a channel post, in one place: a compare-and-set on the status read just before (so
 * two writers — a person cancelling, the workflow starting to publish — cannot both win), checked against the
 * transition table (`channel-status.ts`), and written to the audit log in the same transaction, so that every
 * transition is audited with who made it and from which status.
 *
 * The posts service (an agent's or a person's request) and the post workflow's activities both write through
 * here.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError } from '../../errors.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { ChannelPost } from './channel-post.entity.ts';
import { canTransitionPost, type PostStatus } from './channel-status.ts';

export type PostRowChanges = Partial<
  Pick<
    ChannelPost,
    | 'scheduledAt'
    | 'firstAttemptAt'
    | 'externalId'
    | 'externalUrl'
    | 'publishedAt'
    | 'attempts'
    | 'error'
    | 'jobId'
    | 'deletedAt'
    | 'publishProgress'
    | 'allowanceClaimedAt'
  >
>;

export interface Transition {
  postId: string;
  to: PostStatus;
  /** Only from these statuses (a subset of what the table allows); default: whatever the table allows. */
  from?: readonly PostStatus[];
  set?: PostRowChanges;
  actor: string;
  /** The audit line's action; default `channel_post.<to>`. */
  auditAction?: string;
  /** Safe facts for the audit line (ids, times, an error code). */
  details?: Record<string, unknown>;
}

/**
 * Taking a scheduled post off its schedule: back to `draft`, or to `failed` with `failure` (its account was
 * disconnected), the time cleared. The posts service (a post without a run) and the post workflow's activity
 * (a post with one) both make this move.
 */
export function unscheduling(input: {
  postId: string;
  actor: string;
  failure: { code: string; message: string } | null;
  at: Date;
  details?: Record<string, unknown>;
}): Transition {
  const { failure } = input;
  return {
    postId: input.postId,
    to: failure ? 'failed' : 'draft',
    from: ['scheduled'],
    set: { scheduledAt: null, ...(failure ? { error: { ...failure, at: input.at.toISOString() } } : {}) },
    actor: input.actor,
    details: { ...input.details, ...(failure ? { reason: failure.code } : {}) },
  };
}

/** How many times a transition re-reads after losing a race before it gives up. */
const ATTEMPTS = 5;

/**
 * Moves a post (in `em`'s workspace) to `transition.to`, or returns null when its current status does not
 * allow it (the caller decides whether that is an error). Returns the status it moved from.
 */
export async function movePost(
  em: EntityManager,
  audit: AuditService,
  transition: Transition,
): Promise<{ from: PostStatus; post: ChannelPost } | null> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const outcome = await em.fork().transactional(async (tx) => {
      const post = await tx.findOne(ChannelPost, { id: transition.postId }, { refresh: true });
      if (!post) throw new NotFoundError('Post', transition.postId);
      const from = post.status;
      const allowed = transition.from ? transition.from.includes(from) : true;
      if (!allowed || !canTransitionPost(from, transition.to)) return { moved: null, raced: false };
      const changed = await tx.nativeUpdate(
        ChannelPost,
        { id: post.id, status: from },
        { status: transition.to, ...transition.set, updatedAt: new Date() },
      );
      if (changed !== 1) return { moved: null, raced: true };
      await audit.record(tx, {
        workspaceId: post.workspace.id,
        actor: transition.actor,
        action: transition.auditAction ?? `channel_post.${transition.to}`,
        targetType: 'channel_post',
        targetId: post.id,
        details: { from, to: transition.to, network: post.network, ...transition.details },
      });
      const fresh = await tx.findOneOrFail(ChannelPost, { id: post.id }, { refresh: true });
      return { moved: { from, post: fresh }, raced: false };
    });
    if (!outcome.raced) return outcome.moved;
  }
  throw new ConflictError(`Post ${transition.postId} is changing too often to update; try again`);
}

/** `movePost`, where not moving is the caller's error: a conflict that names the post's status. */
export async function movePostOrFail(
  em: EntityManager,
  audit: AuditService,
  transition: Transition,
  refusal: (status: PostStatus) => string,
): Promise<{ from: PostStatus; post: ChannelPost }> {
  const moved = await movePost(em, audit, transition);
  if (moved) return moved;
  const post = await em.fork().findOne(ChannelPost, { id: transition.postId });
  if (!post) throw new NotFoundError('Post', transition.postId);
  throw new ConflictError(refusal(post.status), { status: post.status });
}
