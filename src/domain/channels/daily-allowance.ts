/**
 * Posts per 24 hours a network allows an account through its API (Instagram: 50), counted by the platform from
 * its own rows, so the count holds across restarts and across workers: the account's posts published in the
 * last 24 hours, plus those being published that have already taken a place (`allowanceClaimedAt`). A post
 * takes its place under a per-account lock just before it is sent, so two posts never take the last place at
 * once. The next post waits until the oldest of the 24 hours turns a day old; the publishing run sleeps that off
 * on a durable timer (a `RateLimitedError`, like any rate limit), `publish_now` is refused saying when, and
 * validation warns with the same time.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { lockForTransaction } from '../../db/transaction-lock.ts';
import { RateLimitedError } from '../../errors.ts';
import type { ChannelAccount } from './channel-account.entity.ts';
import type { NetworkRules } from './channel-adapter.ts';
import { NETWORK_NAMES, type ChannelNetwork } from './channel-networks.ts';
import { ChannelPost } from './channel-post.entity.ts';
import { ACCOUNT_KIND_NAMES } from './channel-views.ts';

const DAY_MS = 86_400_000;

export interface DailyAllowance {
  limit: number;
  used: number;
  /** When the next post may go out (now, when `used < limit`). */
  freesAt: Date;
}

type AccountRef = Pick<ChannelAccount, 'id' | 'kind' | 'network' | 'handle'>;

/** The account's allowance (not counting `exceptPostId`), or null when its network sets none for its kind. */
export async function dailyAllowance(
  em: EntityManager,
  account: AccountRef,
  rules: NetworkRules,
  now: Date,
  exceptPostId?: string,
): Promise<DailyAllowance | null> {
  const limit = account.kind ? rules.postsPer24h?.[account.kind] : undefined;
  if (limit === undefined) return null;
  const since = new Date(now.getTime() - DAY_MS);
  const published = await em.find(
    ChannelPost,
    { account: account.id, status: 'published', publishedAt: { $gt: since } },
    { fields: ['publishedAt'], orderBy: { publishedAt: 'desc' }, limit },
  );
  const claimed = await em.count(ChannelPost, {
    account: account.id,
    status: 'publishing',
    allowanceClaimedAt: { $ne: null },
    ...(exceptPostId ? { id: { $ne: exceptPostId } } : {}),
  });
  const used = published.length + claimed;
  // A place frees when a published post turns a day old; a claimed one becomes published first.
  const oldestCounted = published[limit - 1 - claimed]?.publishedAt ?? published[published.length - 1]?.publishedAt;
  const freesAt = used >= limit && oldestCounted ? new Date(oldestCounted.getTime() + DAY_MS) : now;
  return { limit, used, freesAt };
}

/** Throws the rate limit that makes a publishing run wait (or refuses `publish_now`), when the allowance is used. */
export function refuseOverAllowance(
  allowance: DailyAllowance | null,
  account: Pick<ChannelAccount, 'handle' | 'network' | 'kind'>,
  now: Date,
): void {
  if (!allowance || allowance.used < allowance.limit) return;
  const name =
    (account.kind ? ACCOUNT_KIND_NAMES[account.kind] : undefined) ??
    NETWORK_NAMES[account.network as ChannelNetwork] ??
    account.network;
  const retryAfterSeconds = Math.max(1, Math.ceil((allowance.freesAt.getTime() - now.getTime()) / 1000));
  throw new RateLimitedError(
    `@${account.handle} has published ${allowance.limit} posts through the API in the last 24 hours, ${name}'s limit; the next can go out at ${allowance.freesAt.toISOString()}`,
    retryAfterSeconds,
  );
}

/**
 * Takes one of the account's daily places for `postId`, which is about to be sent (idempotent: a retried
 * attempt keeps its place), or throws the `RateLimitedError` that makes the run wait. Under a per-account lock,
 * so the count and the claim are one step.
 */
export async function claimAllowance(
  em: EntityManager,
  account: AccountRef,
  rules: NetworkRules,
  postId: string,
  now: Date,
): Promise<void> {
  if (!account.kind || rules.postsPer24h?.[account.kind] === undefined) return;
  await em.fork().transactional(async (tx: EntityManager) => {
    await lockForTransaction(tx, `channel-allowance:${account.id}`);
    refuseOverAllowance(await dailyAllowance(tx, account, rules, now, postId), account, now);
    await tx.nativeUpdate(
      ChannelPost,
      { id: postId, status: 'publishing', allowanceClaimedAt: null },
      { allowanceClaimedAt: now },
    );
  });
}
