/**
 * Publishing activities: freeze what is public now into the next site publication of the workspace, render
 * every page, markdown twin and well-known file of it, and store them for the brand host to serve.
 * Idempotent in effect: a retry writes another version with the same content, which is harmless.
 */
import { CustomDomain } from '../src/domain/brand/custom-domain.entity.ts';
import { SitePublication } from '../src/domain/publishing/site-publication.entity.ts';
import { nextScheduleChange, PUBLICATION_FORMAT, readSiteSnapshot } from '../src/domain/publishing/site-snapshot.ts';
import { writeSiteDocuments } from '../src/domain/publishing/site-store.ts';
import { renderBrandSite } from '../src/public/brand-site/render/index.ts';
import type { PublishedSite } from '../src/public/brand-site/site-model.ts';
import { renderBrandAgentFiles } from '../src/public/well-known/index.ts';
import { actors, ownedBy, withEntityManager, workspaceScope } from '../src/domain/shared/scope.ts';
import type { ActivityDeps } from './deps.ts';
import { lockForTransaction } from '../src/db/transaction-lock.ts';

export function createPublishingActivities({ orm, sites, brand: brands }: ActivityDeps) {
  return {
    async publishSite(input: {
      workspaceId: string;
      reasons: string[];
    }): Promise<{ version: number; campaigns: number; documents: number; nextChangeAt: string | null }> {
      const toolServer = await sites.toolServer();
      const scope = workspaceScope(orm.em, input.workspaceId, actors.workflow('republish'));
      return scope.em.transactional(async (em) => {
        const txScope = withEntityManager(scope, em);
        const tx = txScope.em;
        await lockForTransaction(tx, `publish:${input.workspaceId}`);
        const brand = await brands.get(txScope);
        const snapshot = await readSiteSnapshot(txScope, brand);
        const latest = await tx.findOne(SitePublication, {}, { orderBy: { version: 'desc' }, fields: ['version'] });
        const version = (latest?.version ?? 0) + 1;
        // Pages link to one canonical origin: the first verified custom domain, else the brand subdomain.
        const domain = await tx.findOne(
          CustomDomain,
          { verifiedAt: { $ne: null } },
          { orderBy: { verifiedAt: 'asc' } },
        );
        const subdomain = sites.subdomainOrigin(snapshot.workspace.slug);
        const origin = domain ? `${new URL(subdomain).protocol}//${domain.hostname}` : subdomain;
        const publication = tx.create(SitePublication, {
          ...ownedBy(scope),
          version,
          snapshot: snapshot as unknown as Record<string, unknown>,
          reasons: input.reasons.slice(0, 20),
          origin,
          format: PUBLICATION_FORMAT,
        });
        await tx.flush();
        const site: PublishedSite = {
          workspaceId: input.workspaceId,
          slug: snapshot.workspace.slug,
          version,
          publishedAt: publication.createdAt.toISOString(),
          origin,
          snapshot,
        };
        const rendered = renderBrandSite(site);
        rendered.files.push(...renderBrandAgentFiles(site, sites.links, toolServer));
        const documents = await writeSiteDocuments(txScope, version, rendered);
        return {
          version,
          campaigns: snapshot.campaigns.length,
          documents,
          nextChangeAt: nextScheduleChange(snapshot, publication.createdAt),
        };
      });
    },
  };
}
