/**
 * The workspace's brand: brand book, public profile, voice and concierge settings. Read returns defaults for
 * a workspace that never set them; each update merges the given fields into one section, bumps the version
 * and republishes (the brand shapes every brand-site page).
 */
import { z } from 'zod';
import { ConflictError, NotFoundError } from '../../errors.ts';
import { ownedBy, type WorkspaceScope } from '../shared/scope.ts';
import { parseInput } from '../shared/validate.ts';
import { Workspace } from '../workspaces/workspace.entity.ts';
import type { RepublishPort } from '../campaigns/campaigns.service.ts';
import { DEFAULT_BRANDBOOK, DEFAULT_CONCIERGE, DEFAULT_VOICE } from './brand-defaults.ts';
import { Brand, type Brandbook, type BrandProfile, type BrandVoice, type ConciergeSettings } from './brand.entity.ts';
import { HttpUrl } from '../shared/schemas.ts';

const Color = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex colour like #1B4D3E');
const Phrase = z.string().trim().min(1).max(300);

export const BrandbookUpdate = z.object({
  colors: z
    .object({ primary: Color, secondary: Color, accent: Color, background: Color, text: Color })
    .partial()
    .optional(),
  fonts: z
    .object({ heading: z.string().trim().min(1).max(100), body: z.string().trim().min(1).max(100) })
    .partial()
    .optional(),
  logoUrl: HttpUrl.nullish(),
  rules: z.array(Phrase).max(30, 'at most 30 rules').optional(),
});

export const ProfileUpdate = z.object({
  displayName: z.string().trim().min(1).max(120).optional(),
  tagline: z.string().trim().max(200).nullish(),
  description: z.string().trim().max(3000).nullish(),
  website: HttpUrl.nullish(),
  contactEmail: z.email({ error: 'must be an email address' }).nullish(),
  sameAs: z.array(HttpUrl).max(10).optional(),
});

export const VoiceUpdate = z.object({
  tone: z.string().trim().max(300).nullish(),
  personality: z.array(z.string().trim().min(1).max(60)).max(10).optional(),
  doSay: z.array(Phrase).max(20).optional(),
  dontSay: z.array(Phrase).max(20).optional(),
  sampleCopy: z.string().trim().max(2000).nullish(),
});

export const ConciergeUpdate = z.object({
  enabled: z.boolean().optional(),
  greeting: z.string().trim().max(300).nullish(),
  faq: z
    .array(z.object({ question: z.string().trim().min(3).max(300), answer: z.string().trim().min(1).max(2000) }))
    .max(50, 'at most 50 FAQ entries')
    .optional(),
  escalation: z.string().trim().max(300).nullish(),
});

export interface BrandView {
  brandbook: Brandbook;
  profile: BrandProfile;
  voice: BrandVoice;
  concierge: ConciergeSettings;
  version: number;
  updatedAt: string | null;
}

type Section = 'brandbook' | 'profile' | 'voice' | 'concierge';

function merge<T extends object>(current: T, patch: Record<string, unknown>): T {
  const next: Record<string, unknown> = { ...(current as Record<string, unknown>) };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const existing = next[key];
    next[key] =
      value &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      existing &&
      typeof existing === 'object' &&
      !Array.isArray(existing)
        ? { ...existing, ...value }
        : value;
  }
  return next as T;
}

export function createBrandService(deps: { republish: RepublishPort }) {
  async function defaults(scope: WorkspaceScope): Promise<Omit<BrandView, 'version' | 'updatedAt'>> {
    const workspace = await scope.em.findOne(Workspace, { id: scope.workspaceId });
    if (!workspace) throw new NotFoundError('Workspace', scope.workspaceId);
    return {
      brandbook: DEFAULT_BRANDBOOK,
      profile: {
        displayName: workspace.name,
        tagline: null,
        description: null,
        website: null,
        contactEmail: null,
        sameAs: [],
      },
      voice: DEFAULT_VOICE,
      concierge: DEFAULT_CONCIERGE,
    };
  }

  async function get(scope: WorkspaceScope): Promise<BrandView> {
    const brand = await scope.em.findOne(Brand, {});
    if (!brand) return { ...(await defaults(scope)), version: 0, updatedAt: null };
    return {
      brandbook: brand.brandbook,
      profile: brand.profile,
      voice: brand.voice,
      concierge: brand.concierge,
      version: brand.version,
      updatedAt: brand.updatedAt.toISOString(),
    };
  }

  async function update(
    scope: WorkspaceScope,
    section: Section,
    patch: Record<string, unknown>,
    expectedVersion?: number,
  ): Promise<BrandView> {
    let brand = await scope.em.findOne(Brand, {});
    if (!brand) {
      brand = scope.em.create(Brand, { ...ownedBy(scope), ...(await defaults(scope)), version: 0 });
    }
    if (expectedVersion !== undefined && expectedVersion !== brand.version) {
      throw new ConflictError(
        `The brand changed since you read it (now version ${brand.version}); read it again and reapply`,
        {
          currentVersion: brand.version,
        },
      );
    }
    (brand as unknown as Record<Section, object>)[section] = merge(brand[section] as object, patch);
    brand.version += 1;
    await scope.em.flush();
    await deps.republish.requestRepublish(scope, `brand ${section} updated`);
    return get(scope);
  }

  return {
    get,
    updateBrandbook: (scope: WorkspaceScope, input: unknown, expectedVersion?: number) =>
      update(scope, 'brandbook', parseInput(BrandbookUpdate, input, 'brand book'), expectedVersion),
    updateProfile: (scope: WorkspaceScope, input: unknown, expectedVersion?: number) =>
      update(scope, 'profile', parseInput(ProfileUpdate, input, 'profile'), expectedVersion),
    updateVoice: (scope: WorkspaceScope, input: unknown, expectedVersion?: number) =>
      update(scope, 'voice', parseInput(VoiceUpdate, input, 'voice'), expectedVersion),
    updateConcierge: (scope: WorkspaceScope, input: unknown, expectedVersion?: number) =>
      update(scope, 'concierge', parseInput(ConciergeUpdate, input, 'concierge settings'), expectedVersion),
  };
}

export type BrandService = ReturnType<typeof createBrandService>;
