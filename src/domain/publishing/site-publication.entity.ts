import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from '../shared/entity-properties.ts';
import { Workspace } from '../workspaces/workspace.entity.ts';

/**
 * One published state of a workspace's brand site: everything public at that moment (brand, published
 * campaigns with their active variants and products, surfaces with their active deployments), frozen as
 * JSON. The brand site serves the latest one; each republish writes the next version.
 */
export const SitePublicationSchema = defineEntity({
  name: 'SitePublication',
  tableName: 'site_publications',
  properties: {
    id: idProperty('publication'),
    workspace: () => p.manyToOne(Workspace).ref(),
    version: p.integer(),
    snapshot: p.json<Record<string, unknown>>(),
    /** The canonical origin the pages were rendered for (a verified custom domain, else the brand subdomain). */
    origin: p.string().length(300).nullable(),
    reasons: p.array<string>().default([]),
    /** `PUBLICATION_FORMAT` when it was written: older ones are republished on start (see `republishOutdatedSites`). */
    format: p.integer(),
    createdAt: createdAtProperty(),
  },
  uniques: [{ properties: ['workspace', 'version'] }],
});
export class SitePublication extends SitePublicationSchema.class {}
SitePublicationSchema.setClass(SitePublication);
