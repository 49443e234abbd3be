import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty, updatedAtProperty } from '../shared/entity-properties.ts';

/** The tenant. Every connection, key, job and campaign belongs to exactly one workspace. */
export const WorkspaceSchema = defineEntity({
  name: 'Workspace',
  tableName: 'workspaces',
  properties: {
    id: idProperty('workspace'),
    name: p.string().length(200),
    /** URL-safe, unique; the brand site is served at `<slug>.<BRAND_ROOT_DOMAIN>`. */
    slug: p.string().length(63).unique(),
    createdAt: createdAtProperty(),
    updatedAt: updatedAtProperty(),
    /**
     * Set when an owner deletes the workspace. Deletion is soft because the credit ledger and the audit log
     * are append-only history; every access path treats a deleted workspace as gone.
     */
    deletedAt: p.datetime().columnType('timestamptz').nullable(),
  },
});
export class Workspace extends WorkspaceSchema.class {}
WorkspaceSchema.setClass(Workspace);
