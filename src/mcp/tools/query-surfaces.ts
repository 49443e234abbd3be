import { z } from 'zod';
import { SURFACE_KINDS } from '../../domain/surfaces/surface.entity.ts';
import { defineAction, defineTool } from '../define-tool.ts';
import { Ids, NextCursor, Paging, SurfaceOut, ZoneOut } from '../schemas.ts';

const OPERATIONS = ['list_surfaces', 'get_surface', 'list_zones'] as const;

/** The read actions, shared with the deprecated internal-only copies on manage_surfaces. */
export const surfaceReadActions = {
  list_surfaces: defineAction({
    summary: 'surfaces (brand-site pages, email, social) newest first; optional kind filter.',
    permission: 'workspace:read',
    input: z.object({ operation: z.literal('list_surfaces'), kind: z.enum(SURFACE_KINDS).optional(), ...Paging }),
    async run(ctx, args) {
      const page = await ctx.services.surfaces.listSurfaces(ctx.scope, args);
      return {
        structured: { operation: 'list_surfaces', surfaces: page.items, nextCursor: page.nextCursor },
        text: page.items.length
          ? page.items.map((s) => `${s.name} (${s.id}, ${s.kind}${s.url ? `, ${s.url}` : ''})`).join('\n')
          : 'No surfaces yet; create one with manage_surfaces create_surface.',
      };
    },
  }),
  get_surface: defineAction({
    summary: 'one surface with all its zones.',
    permission: 'workspace:read',
    input: z.object({ operation: z.literal('get_surface'), surfaceId: Ids.surface }),
    async run(ctx, args) {
      const surface = await ctx.services.surfaces.getSurface(ctx.scope, args.surfaceId);
      const zones = surface.zones ?? [];
      return {
        structured: { operation: 'get_surface', surface },
        text: `Surface "${surface.name}" (${surface.id}, ${surface.kind}) with ${zones.length} zone(s)${zones.length ? `: ${zones.map((z) => `${z.key} (${z.id})`).join(', ')}` : ''}.`,
      };
    },
  }),
  list_zones: defineAction({
    summary: 'zones (slots campaigns are deployed to), of one surface or all.',
    permission: 'workspace:read',
    input: z.object({ operation: z.literal('list_zones'), surfaceId: Ids.surface.optional(), ...Paging }),
    async run(ctx, args) {
      const page = await ctx.services.surfaces.listZones(ctx.scope, args);
      return {
        structured: { operation: 'list_zones', zones: page.items, nextCursor: page.nextCursor },
        text: page.items.length
          ? page.items.map((z) => `${z.name} (${z.id}, ${z.kind}) on ${z.surfaceId}`).join('\n')
          : 'No zones.',
      };
    },
  }),
};

export const SurfacesReadOutput = {
  surfaces: z.array(SurfaceOut).optional(),
  surface: SurfaceOut.optional(),
  zones: z.array(ZoneOut).optional(),
  nextCursor: NextCursor,
};

export default defineTool({
  name: 'query_surfaces',
  toolset: 'surfaces',
  description: [
    'Read the touchpoints where campaigns are deployed: surfaces (brand-site pages, email, social) and their zones',
    '(slots such as a hero or a sidebar card). Read-only and free. Use list_zones to find the zoneId that',
    'manage_campaigns deploy needs. Lists are paginated: pass nextCursor back as cursor to continue.',
  ].join(' '),
  annotations: {
    title: 'Query surfaces',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  selector: 'operation',
  input: z.object({
    operation: z.enum(OPERATIONS).describe(OPERATIONS.join(' | ')),
    surfaceId: Ids.surface.optional().describe('get_surface (required); list_zones: only this surface.'),
    kind: z.enum(SURFACE_KINDS).optional().describe('list_surfaces: only this kind.'),
    ...Paging,
  }),
  output: z.looseObject({ operation: z.enum(OPERATIONS), ...SurfacesReadOutput }),
  actions: surfaceReadActions,
});
