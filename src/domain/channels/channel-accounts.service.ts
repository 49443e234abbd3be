/**
 * Connected accounts of a workspace: connected, reconnected and disconnected by a person in the dashboard
 * (agents list them, never connect one), listed with their status, who connected them and when, their last
 * successful call and the network's remaining budget — never their credentials.
 *
 * Connecting an account that was connected before (the same network account) brings back the same row, so its
 * posts and history stay together. Disconnecting signs the platform out of the network where it can, erases the
 * credentials and stops every scheduled post of the account, saying which.
 */
import { lockForTransaction } from '../../db/transaction-lock.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import { newId } from '../shared/ids.ts';
import {
  afterCursor,
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  ORDER_NEWEST_FIRST,
  toPage,
  type Page,
} from '../shared/pagination.ts';
import { ownedBy, type WorkspaceScope } from '../shared/scope.ts';
import type { ChannelAccess } from './channel-access.ts';
import { ChannelAccount } from './channel-account.entity.ts';
import type { ChannelAdapters } from './adapters.ts';
import type { ConnectedIdentity } from './channel-adapter.ts';
import { isChannelNetwork, NETWORK_NAMES, type ChannelNetwork } from './channel-networks.ts';
import type { AccountStatus } from './channel-status.ts';
import { toAccountView, type AccountView } from './channel-views.ts';

export interface ChannelAccountsDeps {
  adapters: ChannelAdapters;
  access: ChannelAccess;
  /** Stops the account's scheduled posts (the posts service's `stopPending`). */
  stopPending(
    scope: WorkspaceScope,
    accountId: string,
    reason: { code: string; message: string },
  ): Promise<{ stopped: string[]; publishing: string[] }>;
  now?: () => Date;
}

export interface ListAccountsInput {
  network?: string;
  status?: AccountStatus;
  cursor?: string;
  limit?: number;
}

export type ChannelAccountsService = ReturnType<typeof createChannelAccountsService>;

/** An account of the scope's workspace (of `network`, when named); another workspace's is as unknown as none. */
export async function findAccount(
  scope: WorkspaceScope,
  accountId: string,
  network?: string | null,
): Promise<ChannelAccount> {
  const account = await scope.em.findOne(ChannelAccount, { id: accountId, ...(network ? { network } : {}) });
  if (!account) throw new NotFoundError('Account', accountId);
  return account;
}

export function createChannelAccountsService(deps: ChannelAccountsDeps) {
  const now = deps.now ?? (() => new Date());

  /** The account as a fresh sign-in leaves it: active, its new credentials sealed, connected by the caller. */
  function signedIn(scope: WorkspaceScope, account: ChannelAccount, identity: ConnectedIdentity, at: Date): void {
    Object.assign(account, {
      handle: identity.handle,
      displayName: identity.displayName ?? account.displayName ?? null,
      kind: identity.kind ?? account.kind ?? null,
      status: 'active' as const,
      statusReason: null,
      credentials: deps.access.seal(account.id, identity.credentials),
      accessExpiresAt: identity.accessExpiresAt,
      connectedBy: scope.actor,
      connectedAt: at,
      lastSuccessAt: at,
      disconnectedAt: null,
    });
  }

  /**
   * Stores a signed-in network account: a new row, or the row of the same network account brought back (its
   * posts and history stay together). Under a lock on the network account within the workspace: two people
   * connecting it at once both succeed, the second as a reconnection of the row the first created (not a
   * unique-key failure).
   */
  async function store(
    scope: WorkspaceScope,
    network: ChannelNetwork,
    identity: ConnectedIdentity,
  ): Promise<{ account: AccountView; reconnected: boolean }> {
    return scope.em.transactional(async (tx) => {
      await lockForTransaction(tx, `channel-connect:${scope.workspaceId}:${network}:${identity.externalId}`);
      const existing = await tx.findOne(ChannelAccount, { network, externalId: identity.externalId });
      const connectedAt = now();
      const account =
        existing ??
        tx.create(ChannelAccount, {
          id: newId('channelAccount'),
          ...ownedBy(scope),
          network,
          externalId: identity.externalId,
          handle: identity.handle,
          connectedBy: scope.actor,
          connectedAt,
        });
      signedIn(scope, account, identity, connectedAt);
      await tx.flush();
      return { account: toAccountView(account), reconnected: existing !== null };
    });
  }

  return {
    find: findAccount,

    async list(scope: WorkspaceScope, input: ListAccountsInput = {}): Promise<Page<AccountView>> {
      const limit = input.limit ?? DEFAULT_PAGE_SIZE;
      const rows = await scope.em.find(
        ChannelAccount,
        {
          ...(input.network ? { network: input.network } : {}),
          ...(input.status ? { status: input.status } : {}),
          ...afterCursor(decodeCursor(input.cursor)),
        },
        { orderBy: ORDER_NEWEST_FIRST, limit: limit + 1 },
      );
      return toPage(rows, limit, toAccountView);
    },

    async get(scope: WorkspaceScope, accountId: string, network?: string): Promise<AccountView> {
      return toAccountView(await findAccount(scope, accountId, network));
    },

    /**
     * Signs in to the network with what a person typed (app-password networks) and stores the account (or
     * brings back the row of the same network account, reconnecting it). The credentials are sealed before
     * they are stored.
     */
    async connect(
      scope: WorkspaceScope,
      input: { network: string; identifier: string; secret: string },
    ): Promise<{ account: AccountView; reconnected: boolean }> {
      if (!isChannelNetwork(input.network)) {
        throw new ValidationError(`Unknown network ${input.network}`, {
          issues: [{ field: 'network', message: 'unknown' }],
        });
      }
      const adapter = deps.adapters.get(input.network);
      if (!adapter.connect) {
        throw new ValidationError(
          `${NETWORK_NAMES[input.network]} accounts are connected by signing in on ${NETWORK_NAMES[input.network]} (Connect ${NETWORK_NAMES[input.network]}), not with a password`,
          { issues: [{ field: 'network', message: 'connects through OAuth' }] },
        );
      }
      const identity = await adapter.connect({ identifier: input.identifier, secret: input.secret });
      return store(scope, input.network, identity);
    },

    /**
     * Stores the accounts a person granted through the network's OAuth (`channel-oauth.ts`): each a new row, or
     * the same network account's row brought back (reconnected). In the order the network listed them.
     */
    async connectGranted(
      scope: WorkspaceScope,
      network: ChannelNetwork,
      identities: readonly ConnectedIdentity[],
    ): Promise<{ account: AccountView; reconnected: boolean }[]> {
      const stored: { account: AccountView; reconnected: boolean }[] = [];
      for (const identity of identities) stored.push(await store(scope, network, identity));
      return stored;
    },

    /** Signs the account in again with a new app password (after a refusal, or to rotate the password). */
    async reconnect(scope: WorkspaceScope, accountId: string, input: { secret: string }): Promise<AccountView> {
      const account = await findAccount(scope, accountId);
      const adapter = deps.adapters.get(account.network);
      if (!adapter.connect) {
        throw new ValidationError(
          `@${account.handle} is reconnected by signing in on ${NETWORK_NAMES[account.network as ChannelNetwork]} again (Reconnect), not with a password`,
          { issues: [{ field: 'secret', message: 'this network connects through OAuth' }] },
        );
      }
      const identity = await adapter.connect({ identifier: account.externalId, secret: input.secret });
      if (identity.externalId !== account.externalId) {
        throw new ValidationError(
          `That password signs in to @${identity.handle}, not @${account.handle}: connect it as an account of its own`,
          { issues: [{ field: 'secret', message: 'belongs to another account' }] },
        );
      }
      signedIn(scope, account, identity, now());
      await scope.em.flush();
      return toAccountView(account);
    },

    /**
     * Disconnects the account: signs out of the network (best effort), erases its credentials and stops its
     * scheduled posts (each fails, saying why). Returns which posts were stopped and which were already being
     * published.
     */
    async disconnect(
      scope: WorkspaceScope,
      accountId: string,
    ): Promise<{ account: AccountView; stopped: string[]; publishing: string[] }> {
      const account = await findAccount(scope, accountId);
      if (account.status === 'disconnected') {
        throw new ConflictError(`@${account.handle} is already disconnected`);
      }
      const name = NETWORK_NAMES[account.network as ChannelNetwork] ?? account.network;
      await deps.access.signOut(account);
      const disconnectedAt = now();
      Object.assign(account, {
        status: 'disconnected' as const,
        statusReason: `Disconnected on ${disconnectedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
        credentials: null,
        accessExpiresAt: null,
        quota: null,
        disconnectedAt,
      });
      await scope.em.flush();
      const { stopped, publishing } = await deps.stopPending(scope, account.id, {
        code: 'account_disconnected',
        message: `Not published: the ${name} account @${account.handle} was disconnected. Reconnect it and retry the post, or delete it.`,
      });
      return { account: toAccountView(account), stopped, publishing };
    },
  };
}
