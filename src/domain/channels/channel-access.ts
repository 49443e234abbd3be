/**
 * Using a connected account: its sealed credentials opened, refreshed ahead of expiry, handed to the network's
 * client, and the account's state kept true to what happened — the one place that decides when a token is
 * refreshed and what a refused refresh means.
 *
 * - Credentials are sealed with the platform's secret box (`CREDENTIAL_KEYS`), bound to the account's id (a
 *   sealed value copied to another row does not open), re-sealed with the current key whenever they are
 *   written, and erased when the account is disconnected. They are never logged or returned.
 * - A token that expires within `refreshAheadSeconds` is refreshed before use, under a per-account advisory
 *   lock (two workers refreshing at once would spend the rotating refresh token twice); the second one finds the
 *   fresh token and uses it.
 * - A refusal only a person can fix (`CredentialsRefusedError`) moves the account to `needs_reconnect` with the
 *   network's reason, once, and every later use fails at once with `ChannelReconnectRequiredError` — never a
 *   loop of refresh attempts. Rate limits and outages are thrown as they are: waiting helps those.
 * - A token the network refuses mid-call is refreshed and the call tried once more.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuditService } from '../audit/audit.service.ts';
import { ChannelReconnectRequiredError, ConflictError, RateLimitedError } from '../../errors.ts';
import { createSecretBox, type SecretBox } from '../shared/secret-box.ts';
import type { WorkspaceScope } from '../shared/scope.ts';
import type { ChannelAdapters } from './adapters.ts';
import { ChannelAccount, type ChannelQuota } from './channel-account.entity.ts';
import {
  CredentialsRefusedError,
  type AccountContext,
  type NetworkClient,
  type NetworkCredentials,
} from './channel-adapter.ts';
import { NETWORK_NAMES, type ChannelNetwork } from './channel-networks.ts';
import { lockForTransaction } from '../../db/transaction-lock.ts';

export const CREDENTIALS_PURPOSE = 'channel-credentials';

/** What an adapter is told about the account it works for. */
export function accountContextOf(account: Pick<ChannelAccount, 'kind' | 'externalId' | 'handle'>): AccountContext {
  return { kind: account.kind ?? null, externalId: account.externalId, handle: account.handle };
}

/** The lock every writer of an account's credentials holds (a refresh, a re-seal). */
const accountLock = (accountId: string) => `channel-account:${accountId}`;

export interface ChannelAccessOptions {
  adapters: ChannelAdapters;
  audit: AuditService;
  /** `CREDENTIAL_KEYS`: the first seals, all open. */
  credentialKeys: readonly string[];
  /** Refresh a token that expires within this many seconds. */
  refreshAheadSeconds: number;
  now?: () => Date;
}

export type ChannelAccess = ReturnType<typeof createChannelAccess>;

export function createChannelAccess(options: ChannelAccessOptions) {
  const box: SecretBox = createSecretBox(options.credentialKeys, CREDENTIALS_PURPOSE);
  const now = options.now ?? (() => new Date());

  function seal(accountId: string, credentials: NetworkCredentials): string {
    return box.seal(JSON.stringify(credentials), accountId);
  }

  function open(account: ChannelAccount): NetworkCredentials {
    if (!account.credentials) throw reconnectRequired(account, 'it has no stored credentials.');
    return JSON.parse(box.open(account.credentials, account.id).plaintext) as NetworkCredentials;
  }

  function reconnectRequired(account: ChannelAccount, why?: string): ChannelReconnectRequiredError {
    const name = NETWORK_NAMES[account.network as ChannelNetwork] ?? account.network;
    const reason = why ?? account.statusReason ?? 'it needs to be reconnected';
    return new ChannelReconnectRequiredError(
      `The ${name} account @${account.handle} cannot be used: ${reason} A workspace admin reconnects it in the dashboard (Channels).`,
      { accountId: account.id, network: account.network, handle: account.handle },
    );
  }

  /**
   * The budget the network last reported is spent and its window has not reset (Reddit's `X-Ratelimit-*`,
   * Bluesky's `RateLimit-*`): wait for the reset instead of sending a request the network would refuse.
   */
  function refuseSpentBudget(account: ChannelAccount): void {
    const quota = account.quota;
    if (!quota || quota.remaining > 0) return;
    const waitMs = Date.parse(quota.resetAt) - now().getTime();
    if (!(waitMs > 0)) return;
    const name = NETWORK_NAMES[account.network as ChannelNetwork] ?? account.network;
    throw new RateLimitedError(
      `${name}'s rate budget for @${account.handle} is used up until ${quota.resetAt}; waiting for it rather than sending a request ${name} would refuse`,
      Math.ceil(waitMs / 1000),
    );
  }

  function dueForRefresh(account: ChannelAccount): boolean {
    if (!account.accessExpiresAt) return false;
    return account.accessExpiresAt.getTime() - now().getTime() <= options.refreshAheadSeconds * 1000;
  }

  /**
   * Refreshes the account's credentials under its lock, unless someone else did while we waited for it.
   * `force` refreshes even a token that is not due (the network refused it).
   */
  async function refresh(scope: WorkspaceScope, accountId: string, force: boolean): Promise<ChannelAccount> {
    let refused: string | null = null;
    const account = await scope.em.fork().transactional(async (tx: EntityManager) => {
      await lockForTransaction(tx, accountLock(accountId));
      const current = await tx.findOneOrFail(ChannelAccount, { id: accountId }, { refresh: true });
      if (current.status !== 'active') return current;
      if (!force && !dueForRefresh(current)) return current;
      const adapter = options.adapters.get(current.network);
      try {
        const next = await adapter.refresh(open(current));
        current.credentials = seal(current.id, next.credentials);
        current.accessExpiresAt = next.accessExpiresAt;
        current.lastSuccessAt = now();
      } catch (error) {
        if (!(error instanceof CredentialsRefusedError)) throw error;
        refused = error.message;
        current.status = 'needs_reconnect';
        current.statusReason = error.message;
        await options.audit.record(tx, {
          workspaceId: scope.workspaceId,
          actor: scope.actor,
          action: 'channel_account.needs_reconnect',
          targetType: 'channel_account',
          targetId: current.id,
          outcome: 'failed',
          details: { network: current.network, reason: error.message },
        });
      }
      await tx.flush();
      return current;
    });
    if (refused !== null || account.status !== 'active') throw reconnectRequired(account);
    return account;
  }

  /** Notes how a call went: the budget the network last reported and, when it succeeded, when. */
  async function recordCall(
    scope: WorkspaceScope,
    accountId: string,
    outcome: { succeeded: boolean; quota: ChannelQuota | null },
  ): Promise<void> {
    if (!outcome.succeeded && !outcome.quota) return;
    await scope.em
      .fork()
      .nativeUpdate(
        ChannelAccount,
        { id: accountId },
        { ...(outcome.succeeded ? { lastSuccessAt: now() } : {}), ...(outcome.quota ? { quota: outcome.quota } : {}) },
      );
  }

  return {
    seal,

    /** Opens an account's credentials (for tests of sealing and for re-sealing); never hand them to a client. */
    open,

    /** Ends the account's session on the network, if it can be reached; the caller erases the credentials. */
    async signOut(account: ChannelAccount): Promise<boolean> {
      if (!account.credentials || account.status === 'disconnected') return false;
      try {
        await options.adapters.get(account.network).signOut(open(account));
        return true;
      } catch {
        // Signing out is a courtesy: the credentials are erased either way, and the session expires on its own.
        return false;
      }
    },

    /** Whether the stored credentials were sealed with the current key. */
    sealedWithCurrentKey: (account: ChannelAccount) => !account.credentials || box.isCurrent(account.credentials),

    /**
     * Key rotation: re-seals every account's credentials with the current key (`CREDENTIAL_KEYS`' first), so
     * the older keys can be removed. `em` sees every workspace (an operator's sweep). Idempotent.
     */
    async resealAll(em: EntityManager): Promise<{ resealed: number; alreadyCurrent: number }> {
      let resealed = 0;
      let alreadyCurrent = 0;
      const accounts = await em.find(ChannelAccount, { credentials: { $ne: null } }, { orderBy: { id: 'asc' } });
      for (const account of accounts) {
        if (box.isCurrent(account.credentials!)) {
          alreadyCurrent += 1;
          continue;
        }
        // Under the account's lock: a refresh writing new credentials at the same moment must not be undone.
        await em.fork().transactional(async (tx: EntityManager) => {
          await lockForTransaction(tx, accountLock(account.id));
          const current = await tx.findOneOrFail(ChannelAccount, { id: account.id }, { refresh: true });
          if (!current.credentials || box.isCurrent(current.credentials)) return;
          current.credentials = seal(current.id, open(current));
          await tx.flush();
        });
        resealed += 1;
      }
      return { resealed, alreadyCurrent };
    },

    /**
     * Runs `work` with a signed-in client of an active account of the scope's workspace. `account` is read by
     * the caller in the same scope (so another workspace's account never gets here).
     */
    async withClient<T>(
      scope: WorkspaceScope,
      account: ChannelAccount,
      work: (client: NetworkClient) => Promise<T>,
    ): Promise<T> {
      if (account.status === 'disconnected') {
        throw new ConflictError(`The account @${account.handle} is disconnected; connect it again to use it`);
      }
      if (account.status !== 'active') throw reconnectRequired(account);
      refuseSpentBudget(account);
      let current = dueForRefresh(account) ? await refresh(scope, account.id, false) : account;
      const adapter = options.adapters.get(current.network);
      let quota: ChannelQuota | null = null;
      const run = (target: ChannelAccount) =>
        work(
          adapter.client(
            open(target),
            (observed) => {
              quota = observed;
            },
            accountContextOf(target),
          ),
        );
      let result: T;
      try {
        try {
          result = await run(current);
        } catch (error) {
          if (!adapter.isAuthExpired(error)) throw error;
          current = await refresh(scope, current.id, true);
          result = await run(current).catch((retryError: unknown) => {
            if (adapter.isAuthExpired(retryError))
              throw reconnectRequired(current, 'the network refused its fresh token.');
            throw retryError;
          });
        }
      } catch (error) {
        // A refusal for a rate limit carries the budget that explains it.
        await recordCall(scope, current.id, { succeeded: false, quota });
        throw error;
      }
      await recordCall(scope, current.id, { succeeded: true, quota });
      return result;
    },
  };
}
