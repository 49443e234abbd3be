import { z } from 'zod';
import { defineAction, defineTool } from '../define-tool.ts';
import { BrandOut } from '../schemas.ts';

/** The read action, shared with the deprecated internal-only copy on manage_brand. */
export const brandGetAction = defineAction({
  summary: 'the brand book (colours, fonts, logo, rules), public profile, voice and concierge settings.',
  permission: 'workspace:read',
  input: z.object({ action: z.literal('get') }),
  async run(ctx) {
    const brand = await ctx.services.brand.get(ctx.scope);
    const voice = brand.voice.tone ? `; voice: ${brand.voice.tone}` : '';
    return {
      structured: { action: 'get', brand },
      text: `Brand "${brand.profile.displayName}" (version ${brand.version}); primary colour ${brand.brandbook.colors.primary}${voice}.`,
    };
  },
});

export default defineTool({
  name: 'query_brand',
  toolset: 'brand',
  description: [
    'Read the brand: brand book (colours, fonts, logo, rules), public profile, voice (tone, words to use and avoid)',
    'and the brand-site concierge settings. Read-only and free. Read it before writing or generating copy so the',
    'copy follows the voice and rules; pass its version as expectedVersion when you then update it.',
  ].join(' '),
  annotations: {
    title: 'Query brand',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  selector: 'action',
  input: z.object({ action: z.enum(['get']).describe('get') }),
  output: z.looseObject({ action: z.enum(['get']), brand: BrandOut }),
  actions: { get: brandGetAction },
});
