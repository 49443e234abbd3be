/**
 * Posts per 24 hours a network allows an account through its API (Instagram: 50), counted by the platform from
 * its own rows, so the count holds across restarts and across workers: the posts of the account published in
 * the last 24 hours. The next post waits until the oldest of them turns 24 hours old; the publishing run
 * sleeps that off on a durable timer (a `RateLimitedError`, like any rate limit), and validation tells the
 * agent when it frees up.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { RateLimitedError } from '../../errors.ts';
import type { ChannelAccount } from './channel-account.entity.ts';
import type { NetworkRules } from './channel-adapter.ts';
import { NETWORK_NAMES, type ChannelNetwork } from './channel-networks.ts';
import { ChannelPost } from './channel-post.entity.ts';

const DAY_MS = 86_400_000;

export interface DailyAllowance {
  limit: number;
  used: number;
  /** When the next post may go out (now, when `used < limit`). */
  freesAt: Date;
}

/** The account's allowance, or null when its network sets none for accounts of its kind. */
export async function dailyAllowance(
  em: EntityManager,
  account: Pick<ChannelAccount, 'id' | 'kind' | 'network'>,
  rules: NetworkRules,
  now: Date,
): Promise<DailyAllowance | null> {
  const limit = account.kind ? rules.postsPer24h?.[account.kind] : undefined;
  if (limit === undefined) return null;
  const recent = await em.find(
    ChannelPost,
    { account: account.id, publishedAt: { $gt: new Date(now.getTime() - DAY_MS) } },
    { fields: ['publishedAt'], orderBy: { publishedAt: 'desc' }, limit },
  );
  const used = recent.length;
  const oldestCounted = recent[limit - 1]?.publishedAt;
  const freesAt = used >= limit && oldestCounted ? new Date(oldestCounted.getTime() + DAY_MS) : now;
  return { limit, used, freesAt };
}

/** Throws the rate limit that makes a publishing run wait, when the account has used its allowance. */
export function refuseOverAllowance(
  allowance: DailyAllowance | null,
  account: Pick<ChannelAccount, 'handle' | 'network'>,
  now: Date,
): void {
  if (!allowance || allowance.used < allowance.limit) return;
  const name = NETWORK_NAMES[account.network as ChannelNetwork] ?? account.network;
  const retryAfterSeconds = Math.max(1, Math.ceil((allowance.freesAt.getTime() - now.getTime()) / 1000));
  throw new RateLimitedError(
    `@${account.handle} has published ${allowance.limit} posts through the API in the last 24 hours, ${name}'s limit; the next can go out at ${allowance.freesAt.toISOString()}`,
    retryAfterSeconds,
  );
}
