import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty, updatedAtProperty } from '../shared/entity-properties.ts';
import { Workspace } from '../workspaces/workspace.entity.ts';

export const SURFACE_KINDS = ['brand_page', 'email', 'social'] as const;
export type SurfaceKind = (typeof SURFACE_KINDS)[number];

export const ZONE_KINDS = ['hero', 'banner', 'card', 'inline', 'email_block', 'post'] as const;

/**
 * A touchpoint where campaigns are deployed: a page of the workspace's brand site, an email, a social
 * channel. Surfaces belong to the workspace's brand site; zones are their slots.
 */
export const SurfaceSchema = defineEntity({
  name: 'Surface',
  tableName: 'surfaces',
  properties: {
    id: idProperty('surface'),
    workspace: () => p.manyToOne(Workspace).ref(),
    name: p.string().length(120),
    kind: p.enum(SURFACE_KINDS).nativeEnumName('surface_kind'),
    /** For brand pages: the path on the brand site (`/`, `/summer`). Unique per workspace. */
    path: p.string().length(200).nullable(),
    /** For social surfaces: the network (`instagram`, `bluesky`, …). */
    channel: p.string().length(40).nullable(),
    description: p.string().length(1000).nullable(),
    createdAt: createdAtProperty(),
    updatedAt: updatedAtProperty(),
  },
  indexes: [{ properties: ['workspace', 'createdAt', 'id'] }],
  uniques: [{ properties: ['workspace', 'path'] }],
});
export class Surface extends SurfaceSchema.class {}
SurfaceSchema.setClass(Surface);

export interface ZoneConstraints {
  maxHeadlineLength?: number;
  maxBodyLength?: number;
  imageAspect?: string;
}

export const ZoneSchema = defineEntity({
  name: 'Zone',
  tableName: 'zones',
  properties: {
    id: idProperty('zone'),
    workspace: () => p.manyToOne(Workspace).ref(),
    surface: () => p.manyToOne(Surface).ref().deleteRule('cascade'),
    name: p.string().length(120),
    /** Slot key unique within the surface (`hero`, `sidebar-1`). */
    key: p.string().length(60),
    kind: p.enum(ZONE_KINDS).nativeEnumName('zone_kind'),
    constraints: p.json<ZoneConstraints>().default('{}'),
    createdAt: createdAtProperty(),
  },
  indexes: [{ properties: ['workspace', 'surface', 'createdAt'] }],
  uniques: [{ properties: ['surface', 'key'] }],
});
export class Zone extends ZoneSchema.class {}
ZoneSchema.setClass(Zone);
