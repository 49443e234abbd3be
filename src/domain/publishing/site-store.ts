/**
 * The store of rendered brand sites: the republish activity writes every document of a publication here,
 * and the brand host reads them back through small in-process caches.
 *
 * Cache invalidation is by version: the host → (workspace, latest version) answer lives `headTtlMs` (1 s by
 * default), and documents are cached under their version, so a republish is served everywhere within that
 * second and old versions simply age out of the LRU. Nothing is ever served from the live tables.
 */
import { createHash } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { forWorkspace, ownedBy, type WorkspaceScope } from '../shared/scope.ts';
import { LRUCache } from 'lru-cache';
import type { PublishedSite, RenderedFile, RenderedPage, RenderedSite } from '../../public/brand-site/site-model.ts';
import { publicSnapshot } from './site-snapshot.ts';
import { SiteDocument } from './site-document.entity.ts';
import { SitePublication } from './site-publication.entity.ts';

/** A brand host's current state: which workspace it serves and its latest publication (if any). */
export interface SiteHead {
  workspaceId: string;
  slug: string;
  /** Null until the first publication. */
  version: number | null;
  publishedAt: string | null;
}

interface Validators {
  etag: string;
  lastModified: Date;
  /** `lastModified` as an HTTP date, formatted once. */
  lastModifiedHttp: string;
}

export type StoredDocument =
  ({ kind: 'page'; page: RenderedPage } & Validators) | ({ kind: 'file'; file: RenderedFile } & Validators);

/** How many versions of a site's documents are kept: the latest, and the one before it for in-flight readers. */
const VERSIONS_KEPT = 2;

export function documentEtag(content: RenderedPage | RenderedFile): string {
  return createHash('sha256').update(JSON.stringify(content)).digest('base64url').slice(0, 27);
}

/** Writes the documents of publication `version` and prunes versions older than the ones kept. */
export async function writeSiteDocuments(
  scope: WorkspaceScope,
  version: number,
  rendered: RenderedSite,
): Promise<number> {
  const tx = scope.em;
  const rows = [
    ...rendered.pages.map((page) => ({ kind: 'page' as const, path: page.path, content: page, at: page.lastModified })),
    ...rendered.files.map((file) => ({ kind: 'file' as const, path: file.path, content: file, at: file.lastModified })),
  ];
  const seen = new Set<string>();
  for (const row of rows) {
    if (seen.has(row.path)) throw new Error(`Two documents render to ${row.path}`);
    seen.add(row.path);
  }
  for (let start = 0; start < rows.length; start += 500) {
    const batch = rows.slice(start, start + 500).map((row) =>
      tx.create(SiteDocument, {
        ...ownedBy(scope),
        version,
        path: row.path,
        kind: row.kind,
        content: row.content,
        etag: documentEtag(row.content),
        lastModified: new Date(row.at),
      }),
    );
    await tx.flush();
    for (const document of batch) tx.getUnitOfWork().unsetIdentity(document);
  }
  await tx.nativeDelete(SiteDocument, { version: { $lte: version - VERSIONS_KEPT } });
  return rows.length;
}

export interface SiteReaderOptions {
  /** How long a host's latest version is trusted before asking the database again. */
  headTtlMs?: number;
  /** Upper bound of cached document bytes. */
  maxCachedBytes?: number;
}

export type SiteReader = ReturnType<typeof createSiteReader>;

export function createSiteReader(
  orm: MikroORM,
  /** The brand subdomain's origin, for publications that recorded none. */
  fallbackOrigin: (head: SiteHead) => string,
  options: SiteReaderOptions = {},
) {
  const headTtl = options.headTtlMs ?? 1000;
  // Misses are cached too (as null), so requests for random host names cannot hammer the database.
  const heads = new LRUCache<string, { head: SiteHead | null }>({ max: 10_000, ttl: headTtl });
  const documents = new LRUCache<string, { document: StoredDocument | null }>({
    maxSize: options.maxCachedBytes ?? 64 * 1024 * 1024,
    sizeCalculation: (entry) =>
      200 +
      (entry.document
        ? JSON.stringify(entry.document.kind === 'page' ? entry.document.page : entry.document.file).length
        : 0),
  });
  const sites = new LRUCache<string, PublishedSite>({ max: 200 });
  const connection = () => orm.em.getConnection();

  async function loadHead(where: 'slug' | 'domain', key: string): Promise<SiteHead | null> {
    const from =
      where === 'slug' ? 'from workspaces w' : 'from custom_domains d join workspaces w on w.id = d.workspace_id';
    const condition =
      (where === 'slug' ? 'w.slug = ?' : 'd.hostname = ? and d.verified_at is not null') + ' and w.deleted_at is null';
    const rows = await connection().execute<
      { workspace_id: string; slug: string; version: number | null; published_at: Date | null }[]
    >(
      `select w.id as workspace_id, w.slug, p.version, p.created_at as published_at ${from}
       left join lateral (
         select version, created_at from site_publications sp where sp.workspace_id = w.id order by version desc limit 1
       ) p on true
       where ${condition}`,
      [key],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      workspaceId: row.workspace_id,
      slug: row.slug,
      version: row.version ?? null,
      publishedAt: row.published_at ? new Date(row.published_at).toISOString() : null,
    };
  }

  // One key format per cache, shared by the awaiting readers and the synchronous `cached` view.
  const headKey = (where: 'slug' | 'domain', key: string) => `${where}:${key}`;
  const documentKey = (site: SiteHead, path: string) => `${site.workspaceId}:${site.version}:${path}`;

  async function head(where: 'slug' | 'domain', key: string): Promise<SiteHead | null> {
    const cacheKey = headKey(where, key);
    const hit = heads.get(cacheKey);
    if (hit) return hit.head;
    const loaded = await loadHead(where, key);
    heads.set(cacheKey, { head: loaded });
    return loaded;
  }

  return {
    /** The site served at `<slug>.<BRAND_ROOT_DOMAIN>`, or null when no workspace has that slug. */
    bySlug: (slug: string) => head('slug', slug),
    /** The site served at a verified custom domain, or null. */
    byCustomDomain: (hostname: string) => head('domain', hostname),

    /**
     * What the caches already know, without waiting: the head for a slug or custom domain and a document,
     * each `undefined` when it is not cached (the HTTP hot path then takes the ordinary, awaiting route).
     */
    cached: {
      bySlug: (slug: string): SiteHead | null | undefined => heads.get(headKey('slug', slug))?.head,
      byCustomDomain: (hostname: string): SiteHead | null | undefined => heads.get(headKey('domain', hostname))?.head,
      document: (site: SiteHead, path: string): StoredDocument | null | undefined =>
        site.version === null ? null : documents.get(documentKey(site, path))?.document,
    },

    async document(site: SiteHead, path: string): Promise<StoredDocument | null> {
      if (site.version === null) return null;
      const key = documentKey(site, path);
      const hit = documents.get(key);
      if (hit) return hit.document;
      // The host name resolved the workspace; its reads are limited to it like any other scope's.
      const row = await forWorkspace(orm.em, site.workspaceId).findOne(SiteDocument, { version: site.version, path });
      const validators = row && {
        etag: row.etag,
        lastModified: row.lastModified,
        lastModifiedHttp: row.lastModified.toUTCString(),
      };
      const document: StoredDocument | null = !row
        ? null
        : row.kind === 'page'
          ? { kind: 'page', page: row.content as RenderedPage, ...validators! }
          : { kind: 'file', file: row.content as RenderedFile, ...validators! };
      documents.set(key, { document });
      return document;
    },

    /** The whole publication (for the concierge and beacon validation), cached per version. */
    async publishedSite(site: SiteHead): Promise<PublishedSite | null> {
      if (site.version === null) return null;
      const key = `${site.workspaceId}:${site.version}`;
      const hit = sites.get(key);
      if (hit) return hit;
      const publication = await forWorkspace(orm.em, site.workspaceId).findOne(SitePublication, {
        version: site.version,
      });
      if (!publication) return null;
      const published: PublishedSite = {
        workspaceId: site.workspaceId,
        slug: site.slug,
        version: publication.version,
        publishedAt: publication.createdAt.toISOString(),
        origin: publication.origin ?? fallbackOrigin(site),
        // Read back through the public projection: a publication stored before a field became internal
        // must not hand that field to the concierge or the hand-off.
        snapshot: publicSnapshot(publication.snapshot),
      };
      sites.set(key, published);
      return published;
    },

    /** Forgets cached heads (tests and the publisher in the same process call this after a republish). */
    invalidate(): void {
      heads.clear();
    },
  };
}
