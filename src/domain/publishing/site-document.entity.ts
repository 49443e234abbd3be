import { defineEntity, p } from '@mikro-orm/core';
import type { RenderedFile, RenderedPage } from '../../public/brand-site/site-model.ts';
import { createdAtProperty, idProperty } from '../shared/entity-properties.ts';
import { Workspace } from '../workspaces/workspace.entity.ts';

export const SITE_DOCUMENT_KINDS = ['page', 'file'] as const;

/**
 * One rendered document of one site publication: a page (HTML and markdown parts with variant fills) or a
 * file served byte-exact. The brand host serves these, never the live tables; a republish writes the next
 * version's documents and prunes the versions nobody can be served any more.
 */
export const SiteDocumentSchema = defineEntity({
  name: 'SiteDocument',
  tableName: 'site_documents',
  properties: {
    id: idProperty('siteDocument'),
    workspace: () => p.manyToOne(Workspace).ref().deleteRule('cascade'),
    version: p.integer(),
    path: p.string().length(512),
    kind: p.enum(SITE_DOCUMENT_KINDS).nativeEnumName('site_document_kind'),
    content: p.json<RenderedPage | RenderedFile>(),
    /** Strong validator of the stored content; pages with slots add the visitor's variant choice to it. */
    etag: p.string().length(80),
    lastModified: p.datetime().columnType('timestamptz'),
    createdAt: createdAtProperty(),
  },
  uniques: [{ properties: ['workspace', 'version', 'path'] }],
});
export class SiteDocument extends SiteDocumentSchema.class {}
SiteDocumentSchema.setClass(SiteDocument);
