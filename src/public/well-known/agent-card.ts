/**
 * The brand's A2A agent card (`/.well-known/agent-card.json`): its concierge, reachable anonymously through
 * the A2A JSON-RPC binding at `/a2a`. The card is typed with the installed A2A SDK's `AgentCard` (protocol
 * 1.0) and serialized with the SDK's own `AgentCard.toJSON`, which writes the protobuf-JSON form that A2A 1.0
 * clients parse (empty defaults omitted, enums as names).
 */
import { AgentCard, type AgentSkill } from '@a2a-js/sdk';
import type { PublishedSite } from '../brand-site/site-model.ts';
import { conciergeAgentInterfaces } from '../../domain/concierge/a2a-binding.ts';

/** One line of text: collapses whitespace (brand text is typed by people) and caps the length. */
export function oneLine(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

/** What the public documents call the brand, and how they describe it, from its published profile. */
export function brandIdentity(site: PublishedSite): { name: string; about: string | null; website: string } {
  const { profile } = site.snapshot.brand;
  const name = oneLine(profile.displayName || site.snapshot.workspace.name, 120) || site.slug;
  const aboutSource = profile.description ?? profile.tagline;
  const about = aboutSource ? oneLine(aboutSource, 400) || null : null;
  return { name, about, website: profile.website ?? site.origin };
}

function skill(fields: Pick<AgentSkill, 'id' | 'name' | 'description' | 'tags' | 'examples'>): AgentSkill {
  return { ...fields, inputModes: [], outputModes: [], securityRequirements: [] };
}

/** Example questions: the brand's own FAQ first, then its live campaigns, then generic ones. */
function exampleQuestions(site: PublishedSite, brandName: string): string[] {
  const faq = site.snapshot.brand.concierge.faq.map((entry) => oneLine(entry.question, 200)).filter(Boolean);
  const campaigns = site.snapshot.campaigns.map((campaign) => `What is the ${oneLine(campaign.name, 120)} offer?`);
  const generic = [`Which campaigns is ${brandName} running right now?`, `Which products does ${brandName} sell?`];
  return [...new Set([...faq, ...campaigns, ...generic])].slice(0, 4);
}

export function buildBrandAgentCard(site: PublishedSite): AgentCard {
  const { name, about, website } = brandIdentity(site);
  const examples = exampleQuestions(site, name);
  return {
    name: `${name} concierge`,
    description:
      `Answers questions about ${name}'s live campaigns and products from its published site, with links to ` +
      `the pages it used. Anonymous: no credentials.${about ? ` About ${name}: ${about}` : ''}`,
    // Exactly what the concierge's A2A binding speaks: JSON-RPC at /a2a, A2A 1.0 first, 0.3 for older clients.
    supportedInterfaces: conciergeAgentInterfaces(site.origin),
    provider: { organization: name, url: website },
    // Major: this card's layout; minor: the publication it describes (each republish changes what it knows).
    version: `1.${site.version}.0`,
    documentationUrl: `${site.origin}/llms.txt`,
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'text/markdown'],
    skills: [
      skill({
        id: 'ask-venue',
        name: `Ask ${name}`,
        description: `Answer a question about ${name} from its published campaigns, products and FAQ, citing source pages.`,
        tags: ['brand', 'questions', 'products', 'campaigns'],
        examples,
      }),
      skill({
        id: 'campaign-guide',
        name: `What ${name} is promoting`,
        description: `Say which campaigns ${name} is running now, what they offer and where to read them.`,
        tags: ['campaigns', 'offers', 'discovery'],
        examples: [`Which campaigns is ${name} running right now?`],
      }),
    ],
    signatures: [],
  };
}

export function renderBrandAgentCardJson(site: PublishedSite): string {
  return `${JSON.stringify(AgentCard.toJSON(buildBrandAgentCard(site)), null, 2)}\n`;
}
