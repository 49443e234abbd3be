/**
 * Connected apps: the OAuth grants of a workspace, as the dashboard lists and revokes them. Revoking deletes
 * the grant and every code and token issued under it, so the app's next request gets 401 at once.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../../errors.ts';
import { storedOidcId } from './adapter.ts';
import { OAuthGrantBinding } from './oidc.entities.ts';

export interface ConnectedAppView {
  grantId: string;
  clientId: string;
  clientName: string | null;
  person: string;
  scopes: string[];
  connectedAt: string;
  lastUsedAt: string | null;
}

export function createConnectedAppsService() {
  return {
    async list(em: EntityManager, workspaceId: string): Promise<ConnectedAppView[]> {
      const bindings = await em.find(
        OAuthGrantBinding,
        { workspace: workspaceId, revokedAt: null },
        { populate: ['user'], orderBy: { createdAt: 'desc' } },
      );
      return bindings.map((b) => ({
        grantId: b.grantId,
        clientId: b.clientId,
        clientName: b.clientName ?? null,
        person: b.user.getEntity().email,
        scopes: b.scopes,
        connectedAt: b.createdAt.toISOString(),
        lastUsedAt: b.lastUsedAt?.toISOString() ?? null,
      }));
    },

    /** Revokes one grant of the workspace (another workspace's grant id is "not found"). Idempotent. */
    async revoke(em: EntityManager, workspaceId: string, grantId: string): Promise<OAuthGrantBinding> {
      const binding = await em.findOne(OAuthGrantBinding, { grantId, workspace: workspaceId });
      if (!binding) throw new NotFoundError('Connected app', grantId);
      await em.transactional(async (tx) => {
        await tx.getConnection().execute(
          "delete from oidc_payloads where grant_id = ? or (model = 'Grant' and id = ?)",
          // The Grant row itself is keyed by the hashed id, like every provider row (adapter.ts).
          [grantId, storedOidcId(grantId)],
          'run',
          tx.getTransactionContext(),
        );
        if (!binding.revokedAt) {
          await tx.nativeUpdate(OAuthGrantBinding, { grantId }, { revokedAt: new Date() });
        }
      });
      return binding;
    },
  };
}

export type ConnectedAppsService = ReturnType<typeof createConnectedAppsService>;
