/** Surfaces (touchpoints of the workspace's brand site) and their zones (slots campaigns are deployed to). */
import { z } from 'zod';
import { ConflictError, NotFoundError } from '../../errors.ts';
import {
  afterCursor,
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  ORDER_NEWEST_FIRST,
  toPage,
  type Page,
} from '../shared/pagination.ts';
import { ownedBy, type WorkspaceScope } from '../shared/scope.ts';
import { parseInput } from '../shared/validate.ts';
import { Surface, SURFACE_KINDS, Zone, ZONE_KINDS, type ZoneConstraints } from './surface.entity.ts';

import { SurfaceId } from '../shared/schemas.ts';

export const SurfaceFields = z
  .object({
    name: z.string().trim().min(1, 'must not be empty').max(120, 'must be at most 120 characters'),
    kind: z.enum(SURFACE_KINDS, { error: `must be one of ${SURFACE_KINDS.join(', ')}` }),
    path: z
      .string()
      .trim()
      .regex(/^\/[a-z0-9\-/]*$/, 'must be a path on the brand site like /summer (lower-case letters, digits, - and /)')
      .max(200)
      .nullish(),
    channel: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[a-z0-9_-]{2,40}$/, 'must be a network name like instagram')
      .nullish(),
    description: z.string().trim().max(1000).nullish(),
  })
  .superRefine((value, ctx) => {
    if (value.kind === 'brand_page' && !value.path)
      ctx.addIssue({ code: 'custom', path: ['path'], message: 'is required for brand_page surfaces' });
    if (value.kind === 'social' && !value.channel)
      ctx.addIssue({ code: 'custom', path: ['channel'], message: 'is required for social surfaces' });
  });

export const ZoneFields = z.object({
  surfaceId: SurfaceId,
  name: z.string().trim().min(1, 'must not be empty').max(120),
  key: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9-]{0,59}$/, 'must be a short slot key like hero or sidebar-1'),
  kind: z.enum(ZONE_KINDS, { error: `must be one of ${ZONE_KINDS.join(', ')}` }),
  constraints: z
    .object({
      maxHeadlineLength: z.number().int().min(10).max(200).optional(),
      maxBodyLength: z.number().int().min(10).max(5000).optional(),
      imageAspect: z
        .string()
        .regex(/^\d{1,2}:\d{1,2}$/, 'must look like 16:9')
        .optional(),
    })
    .optional(),
});

export interface ZoneView {
  id: string;
  surfaceId: string;
  name: string;
  key: string;
  kind: string;
  constraints: ZoneConstraints;
  createdAt: string;
}

export interface SurfaceView {
  id: string;
  name: string;
  kind: string;
  path: string | null;
  channel: string | null;
  description: string | null;
  url: string | null;
  createdAt: string;
  zones?: ZoneView[];
}

export function toZoneView(zone: Zone): ZoneView {
  return {
    id: zone.id,
    surfaceId: zone.surface.id,
    name: zone.name,
    key: zone.key,
    kind: zone.kind,
    constraints: zone.constraints,
    createdAt: zone.createdAt.toISOString(),
  };
}

export function createSurfacesService(deps: { siteUrl: (scope: WorkspaceScope) => Promise<string> }) {
  async function findSurface(scope: WorkspaceScope, surfaceId: string): Promise<Surface> {
    const surface = await scope.em.findOne(Surface, { id: surfaceId });
    if (!surface) throw new NotFoundError('Surface', surfaceId);
    return surface;
  }

  async function toView(scope: WorkspaceScope, surface: Surface, site?: string): Promise<SurfaceView> {
    const base = site ?? (await deps.siteUrl(scope));
    return {
      id: surface.id,
      name: surface.name,
      kind: surface.kind,
      path: surface.path ?? null,
      channel: surface.channel ?? null,
      description: surface.description ?? null,
      url: surface.kind === 'brand_page' && surface.path ? `${base}${surface.path}` : null,
      createdAt: surface.createdAt.toISOString(),
    };
  }

  return {
    findSurface,

    async listSurfaces(
      scope: WorkspaceScope,
      input: { kind?: string; cursor?: string; limit?: number },
    ): Promise<Page<SurfaceView>> {
      const limit = input.limit ?? DEFAULT_PAGE_SIZE;
      const rows = await scope.em.find(
        Surface,
        {
          ...(input.kind ? { kind: input.kind as never } : {}),
          ...afterCursor(decodeCursor(input.cursor)),
        },
        { orderBy: ORDER_NEWEST_FIRST, limit: limit + 1 },
      );
      const site = await deps.siteUrl(scope);
      const page = toPage(rows, limit, (row) => row);
      return {
        items: await Promise.all(page.items.map((row) => toView(scope, row, site))),
        nextCursor: page.nextCursor,
      };
    },

    async getSurface(scope: WorkspaceScope, surfaceId: string): Promise<SurfaceView> {
      const surface = await findSurface(scope, surfaceId);
      const zones = await scope.em.find(Zone, { surface: surface.id }, { orderBy: { createdAt: 'asc', id: 'asc' } });
      return { ...(await toView(scope, surface)), zones: zones.map(toZoneView) };
    },

    async listZones(
      scope: WorkspaceScope,
      input: { surfaceId?: string; cursor?: string; limit?: number },
    ): Promise<Page<ZoneView>> {
      if (input.surfaceId) await findSurface(scope, input.surfaceId);
      const limit = input.limit ?? DEFAULT_PAGE_SIZE;
      const rows = await scope.em.find(
        Zone,
        {
          ...(input.surfaceId ? { surface: input.surfaceId } : {}),
          ...afterCursor(decodeCursor(input.cursor)),
        },
        { orderBy: ORDER_NEWEST_FIRST, limit: limit + 1 },
      );
      return toPage(rows, limit, toZoneView);
    },

    async createSurface(scope: WorkspaceScope, input: z.input<typeof SurfaceFields>): Promise<SurfaceView> {
      const data = parseInput(SurfaceFields, input, 'surface');
      if (data.path && (await scope.em.count(Surface, { path: data.path }))) {
        throw new ConflictError(`A surface already uses the path ${data.path}`);
      }
      const surface = scope.em.create(Surface, {
        ...ownedBy(scope),
        name: data.name,
        kind: data.kind,
        path: data.kind === 'brand_page' ? (data.path ?? null) : null,
        channel: data.kind === 'social' ? (data.channel ?? null) : null,
        description: data.description ?? null,
      });
      await scope.em.flush();
      return toView(scope, surface);
    },

    async createZone(scope: WorkspaceScope, input: z.input<typeof ZoneFields>): Promise<ZoneView> {
      const data = parseInput(ZoneFields, input, 'zone');
      const surface = await findSurface(scope, data.surfaceId);
      if (await scope.em.count(Zone, { surface: surface.id, key: data.key })) {
        throw new ConflictError(`The surface already has a zone with key ${data.key}`);
      }
      const zone = scope.em.create(Zone, {
        ...ownedBy(scope),
        surface,
        name: data.name,
        key: data.key,
        kind: data.kind,
        constraints: data.constraints ?? {},
      });
      await scope.em.flush();
      return toZoneView(zone);
    },
  };
}

export type SurfacesService = ReturnType<typeof createSurfacesService>;
