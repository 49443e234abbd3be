/**
 * Publishing activities: freeze what is public now into the next site publication of the workspace.
 * Idempotent in effect: a retry writes another version with the same content, which is harmless.
 */
import { createBrandService } from '../src/domain/brand/brand.service.ts';
import { SitePublication } from '../src/domain/publishing/site-publication.entity.ts';
import { readSiteSnapshot } from '../src/domain/publishing/site-snapshot.ts';
import type { ActivityDeps } from './deps.ts';

const noRepublish = { requestRepublish: async () => undefined };

export function createPublishingActivities({ orm }: ActivityDeps) {
  const brands = createBrandService({ republish: noRepublish });
  return {
    async publishSite(input: {
      workspaceId: string;
      reasons: string[];
    }): Promise<{ version: number; campaigns: number }> {
      const em = orm.em.fork();
      return em.transactional(async (tx) => {
        await tx
          .getConnection()
          .execute(
            'select pg_advisory_xact_lock(hashtext(?))',
            [`publish:${input.workspaceId}`],
            'all',
            tx.getTransactionContext(),
          );
        const brand = await brands.get({ workspaceId: input.workspaceId, em: tx, actor: 'workflow:republish' });
        const snapshot = await readSiteSnapshot(tx, input.workspaceId, brand);
        const latest = await tx.findOne(
          SitePublication,
          { workspace: input.workspaceId },
          { orderBy: { version: 'desc' }, fields: ['version'] },
        );
        const version = (latest?.version ?? 0) + 1;
        tx.create(SitePublication, {
          workspace: input.workspaceId,
          version,
          snapshot: snapshot as unknown as Record<string, unknown>,
          reasons: input.reasons.slice(0, 20),
        });
        await tx.flush();
        return { version, campaigns: snapshot.campaigns.length };
      });
    },
  };
}
