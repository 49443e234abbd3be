import { z } from 'zod';
import { SURFACE_KINDS, ZONE_KINDS } from '../../domain/surfaces/surface.entity.ts';
import { defineAction, defineTool } from '../define-tool.ts';
import { Ids, Paging, SurfaceOut, WorkspaceEcho, ZoneOut } from '../schemas.ts';
import { surfaceReadActions, SurfacesReadOutput } from './query-surfaces.ts';

const OPERATIONS = ['create_surface', 'create_zone', 'list_surfaces', 'get_surface', 'list_zones'] as const;
const internalRead = <A extends object>(action: A) => ({ ...action, internalOnly: { useInstead: 'query_surfaces' } });

const ZoneConstraints = z
  .object({
    maxHeadlineLength: z.number().int().optional(),
    maxBodyLength: z.number().int().optional(),
    imageAspect: z.string().max(5).optional().describe('e.g. 16:9'),
  })
  .strict();

export default defineTool({
  name: 'manage_surfaces',
  toolset: 'surfaces',
  description: [
    'Create surfaces (a page of the brand site, an email, a social channel) and zones on them (the slots campaigns',
    'are deployed to). Confirm the names and paths with the user first; a new brand page appears on the brand site',
    'once a campaign is deployed to it. Read surfaces and zones with query_surfaces (the read operations here are',
    'deprecated and refused for external clients). No credits are spent here.',
  ].join(' '),
  annotations: {
    title: 'Manage surfaces',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  selector: 'operation',
  input: z.object({
    operation: z
      .enum(OPERATIONS)
      .describe(
        'create_surface | create_zone (list_surfaces, get_surface and list_zones are deprecated here: use query_surfaces)',
      ),
    surfaceId: Ids.surface.optional().describe('create_zone: the surface the zone belongs to.'),
    name: z
      .string()
      .max(120)
      .optional()
      .describe(
        'create_surface / create_zone (required): an internal label, never shown on the brand site (a brand page is titled from its path, a zone shows the names of the campaigns in it).',
      ),
    kind: z
      .string()
      .max(20)
      .optional()
      .describe(`create_surface: ${SURFACE_KINDS.join(', ')}; create_zone: ${ZONE_KINDS.join(', ')}.`),
    path: z
      .string()
      .max(200)
      .nullish()
      .describe('create_surface kind=brand_page: the page path, e.g. /summer (public: the page is titled "Summer").'),
    channel: z.string().max(40).nullish().describe('create_surface kind=social: the network, e.g. instagram.'),
    description: z
      .string()
      .max(1000)
      .nullish()
      .describe('create_surface: what the surface is for. Internal: never shown on the brand site.'),
    key: z.string().max(60).optional().describe('create_zone: short slot key, unique on the surface, e.g. hero.'),
    constraints: ZoneConstraints.optional().describe('create_zone: limits the deployed copy must respect.'),
    ...Paging,
  }),
  output: z.looseObject({
    operation: z.enum(OPERATIONS),
    ...SurfacesReadOutput,
    surface: SurfaceOut.optional(),
    zone: ZoneOut.optional(),
    workspace: WorkspaceEcho.optional(),
  }),
  actions: {
    create_surface: defineAction({
      summary: 'a surface: name and kind (brand_page needs a path, social a channel).',
      permission: 'content:write',
      input: z.object({
        operation: z.literal('create_surface'),
        name: z.string(),
        kind: z.string(),
        path: z.string().nullish(),
        channel: z.string().nullish(),
        description: z.string().nullish(),
      }),
      async run(ctx, { operation: _o, ...fields }) {
        const surface = await ctx.services.surfaces.createSurface(ctx.scope, fields as never);
        return {
          structured: { operation: 'create_surface', surface },
          text: `Created surface "${surface.name}" (${surface.id}, ${surface.kind}).`,
        };
      },
    }),
    create_zone: defineAction({
      summary: 'a zone on a surface: surfaceId, name, key and kind; optional constraints.',
      permission: 'content:write',
      input: z.object({
        operation: z.literal('create_zone'),
        surfaceId: Ids.surface,
        name: z.string(),
        key: z.string(),
        kind: z.string(),
        constraints: ZoneConstraints.optional(),
      }),
      async run(ctx, { operation: _o, ...fields }) {
        const zone = await ctx.services.surfaces.createZone(ctx.scope, fields as never);
        return {
          structured: { operation: 'create_zone', zone },
          text: `Created zone "${zone.name}" (${zone.id}, key ${zone.key}) on ${zone.surfaceId}.`,
        };
      },
    }),
    list_surfaces: internalRead(surfaceReadActions.list_surfaces),
    get_surface: internalRead(surfaceReadActions.get_surface),
    list_zones: internalRead(surfaceReadActions.list_zones),
  },
});
