/**
 * What a new workspace's brand starts with. Plain values apart from the entity module, so the brand-site
 * renderers (src/public, which must not load the ORM) can fall back to them.
 */
import type { Brandbook, BrandVoice, ConciergeSettings } from './brand.entity.ts';

export const DEFAULT_BRANDBOOK: Brandbook = {
  colors: { primary: '#1B4D3E', secondary: '#F2E8CF', accent: '#BC4749', background: '#FFFFFF', text: '#1B1F24' },
  fonts: { heading: 'Georgia, serif', body: 'system-ui, sans-serif' },
  logoUrl: null,
  rules: [],
};

export const DEFAULT_VOICE: BrandVoice = { tone: null, personality: [], doSay: [], dontSay: [], sampleCopy: null };

export const DEFAULT_CONCIERGE: ConciergeSettings = { enabled: true, greeting: null, faq: [], escalation: null };
