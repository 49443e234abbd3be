import { defineEntity, p } from '@mikro-orm/core';
import { createdAtProperty, idProperty, updatedAtProperty } from '../shared/entity-properties.ts';
import { Workspace } from '../workspaces/workspace.entity.ts';

export interface Brandbook {
  colors: { primary: string; secondary: string; accent: string; background: string; text: string };
  fonts: { heading: string; body: string };
  logoUrl: string | null;
  /** Rules creative must follow ("never use all caps", "always show the price"). */
  rules: string[];
}

export interface BrandProfile {
  displayName: string;
  tagline: string | null;
  description: string | null;
  website: string | null;
  contactEmail: string | null;
  /** Social profile URLs (schema.org `sameAs`). */
  sameAs: string[];
}

export interface BrandVoice {
  tone: string | null;
  personality: string[];
  doSay: string[];
  dontSay: string[];
  sampleCopy: string | null;
}

export interface ConciergeSettings {
  enabled: boolean;
  greeting: string | null;
  faq: { question: string; answer: string }[];
  /** Where to send visitors when the concierge cannot answer. */
  escalation: string | null;
}

/** The workspace's brand: brand book, public profile, voice and concierge settings (one per workspace). */
export const BrandSchema = defineEntity({
  name: 'Brand',
  tableName: 'brands',
  properties: {
    id: idProperty('brand'),
    workspace: () => p.oneToOne(Workspace).ref().owner().unique(),
    brandbook: p.json<Brandbook>(),
    profile: p.json<BrandProfile>(),
    voice: p.json<BrandVoice>(),
    concierge: p.json<ConciergeSettings>(),
    version: p.integer().default(1),
    createdAt: createdAtProperty(),
    updatedAt: updatedAtProperty(),
  },
});
export class Brand extends BrandSchema.class {}
BrandSchema.setClass(Brand);
