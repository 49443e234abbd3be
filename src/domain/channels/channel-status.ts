/**
 * The life cycles of connected accounts and of posts. Every move of a post, by whichever writer (the posts
 * service, the post workflow's activities), is checked against the one table below (`post-rows.ts`); an
 * account's few moves are made by the accounts service and the access layer alone.
 *
 * Accounts: `active` ⇄ `needs_reconnect` (a refresh or sign-in failed; a person reconnects it), either →
 * `disconnected` (a person disconnected it; its credentials are erased), `disconnected` → `active` (connected
 * again).
 *
 * Posts: `draft → scheduled → publishing → published | failed`, plus `deleted`:
 * - a draft is scheduled (a time) or published now (`publishing`);
 * - a scheduled post is rescheduled (stays `scheduled`), cancelled back to `draft`, or its time comes;
 * - publishing ends `published` or `failed`; a failed post is retried (scheduled or published now) or edited;
 * - anything but a post being published can be deleted (a published one is deleted on the network too).
 */
export const ACCOUNT_STATUSES = ['active', 'needs_reconnect', 'disconnected'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

export const POST_STATUSES = ['draft', 'scheduled', 'publishing', 'published', 'failed', 'deleted'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

const NEXT: Record<PostStatus, readonly PostStatus[]> = {
  draft: ['draft', 'scheduled', 'publishing', 'deleted'],
  scheduled: ['draft', 'scheduled', 'publishing', 'deleted', 'failed'],
  publishing: ['published', 'failed'],
  published: ['deleted'],
  failed: ['draft', 'scheduled', 'publishing', 'deleted'],
  deleted: [],
};

export function canTransitionPost(from: PostStatus, to: PostStatus): boolean {
  return NEXT[from].includes(to);
}

/** Posts whose content may still change (their text, media or account). */
export const EDITABLE_POST_STATUSES: readonly PostStatus[] = ['draft', 'scheduled', 'failed'];

/** Posts that hold a place in the future: disconnecting their account stops them. */
export const PENDING_POST_STATUSES: readonly PostStatus[] = ['scheduled', 'publishing'];
