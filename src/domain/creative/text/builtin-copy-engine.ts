/**
 * The built-in copy engine: deterministic and offline. It writes from the product data, the brand voice and
 * the intent with templates chosen by a stable hash, so the same inputs always give the same copy (tests and
 * regenerations are reproducible) and different variants of one campaign differ in angle.
 *
 * Untrusted product text is reduced to plain text (`cleanText`) and sentences that read like instructions
 * are dropped before anything is quoted from it; the brand's "don't say" phrases never appear in the output.
 */
import { createHash } from 'node:crypto';
import type { BrandView } from '../../brand/brand.service.ts';
import { formatPrice } from '../../products/price.ts';
import type { ProductView } from '../../products/products.service.ts';
import type {
  BriefRequest,
  CampaignBrief,
  CopyDraft,
  CopyEngine,
  CopyRequest,
  FilmScript,
  FilmScriptRequest,
  ImageDirection,
  ImageDirectionRequest,
} from './copy-engine.ts';
import { cleanText, fitLength, looksLikeInstruction, scrubPhrases, sentencesOf, toHashtag } from './sanitize.ts';

const ANGLES = [
  { name: 'Benefit', lead: (p: string) => `Meet ${p}`, cta: 'Shop now' },
  { name: 'Problem–solution', lead: (p: string) => `${p}, made for everyday life`, cta: 'See how it works' },
  { name: 'Social proof', lead: (p: string) => `Why people choose ${p}`, cta: 'Get yours' },
  { name: 'Urgency', lead: (p: string) => `${p} — this season only`, cta: 'Order today' },
  { name: 'Craft', lead: (p: string) => `The details behind ${p}`, cta: 'Learn more' },
  { name: 'Value', lead: (p: string) => `More for less with ${p}`, cta: 'See the offer' },
];

/** A stable number in [0, n) from any text. */
function pick(seed: string, n: number): number {
  return createHash('sha256').update(seed).digest().readUInt32BE(0) % n;
}

/** Product facts safe to quote: cleaned, instruction-like sentences removed. */
function factsOf(product: ProductView | undefined): { title: string; sentences: string[]; price: string | null } {
  if (!product) return { title: 'our range', sentences: [], price: null };
  const title = cleanText(product.title, 80) || 'our product';
  const description = cleanText(product.description ?? '', 1200);
  const sentences = sentencesOf(description).filter((sentence) => !looksLikeInstruction(sentence));
  const price = formatPrice(product);
  return { title: looksLikeInstruction(title) ? 'our product' : title, sentences, price };
}

function voiceOf(brand: BrandView): string {
  const tone = cleanText(brand.voice.tone ?? '', 120);
  const personality = brand.voice.personality.map((word) => cleanText(word, 40)).filter(Boolean);
  return [tone, ...personality].filter(Boolean).join(', ') || 'clear, warm and confident';
}

function scrub(text: string, brand: BrandView, max: number, fallback?: string): string {
  return fitLength(scrubPhrases(text, brand.voice.dontSay, fallback), max);
}

export function createBuiltinCopyEngine(): CopyEngine {
  return {
    name: 'builtin',

    async writeBrief(request: BriefRequest): Promise<CampaignBrief> {
      const intent = cleanText(request.intent, 500);
      const facts = request.products.map(factsOf);
      const lead = facts[0] ?? factsOf(undefined);
      const keyMessages = [
        ...facts.slice(0, 3).map((f) => f.sentences[0] ?? `${f.title} is here`),
        ...(lead.price ? [`From ${lead.price}`] : []),
        ...request.brand.voice.doSay.slice(0, 2).map((phrase) => cleanText(phrase, 120)),
      ]
        .map((message) => scrub(message, request.brand, 200))
        .filter(Boolean)
        .slice(0, 5);
      const objective = cleanText(request.objective ?? '', 200);
      return {
        intent,
        audience: objective
          ? `People who ${objective.charAt(0).toLowerCase()}${objective.slice(1)}`
          : `People interested in ${lead.title}`,
        angle: ANGLES[pick(`${request.campaignName}|${intent}`, ANGLES.length)]!.name,
        keyMessages:
          keyMessages.length > 0 ? keyMessages : [`${lead.title}, from ${request.brand.profile.displayName}`],
        tone: voiceOf(request.brand),
        channels: request.channels,
        productIds: request.products.map((product) => product.id),
      };
    },

    async writeCopy(request: CopyRequest): Promise<CopyDraft[]> {
      const facts = factsOf(request.products[0]);
      const brand = request.brand;
      const start = pick(`${request.intent}|${request.brief.angle}`, ANGLES.length);
      const drafts: CopyDraft[] = [];
      for (let index = 0; index < request.variantCount; index += 1) {
        const angle = ANGLES[(start + index) % ANGLES.length]!;
        const message = request.brief.keyMessages[index % Math.max(1, request.brief.keyMessages.length)] ?? '';
        const detail = facts.sentences[(index + 1) % Math.max(1, facts.sentences.length)] ?? '';
        const headline = scrub(angle.lead(facts.title), brand, 120, facts.title);
        const body = scrub(
          [message, detail !== message ? detail : '', facts.price ? `Now ${facts.price}.` : '']
            .filter(Boolean)
            .join(' ') || `${facts.title} from ${brand.profile.displayName}.`,
          brand,
          600,
          `${facts.title} from ${brand.profile.displayName}.`,
        );
        const callToAction = scrub(angle.cta, brand, 40, 'See details');
        const hashtag = toHashtag(facts.title);
        drafts.push({
          name: `${angle.name} ${index + 1}`,
          headline,
          body,
          callToAction,
          channelFields: {
            ...(request.channels.includes('email')
              ? { email: { subject: fitLength(headline, 150), preheader: fitLength(body, 200) } }
              : {}),
            ...(request.channels.includes('social')
              ? {
                  social: {
                    caption: fitLength(`${headline} ${body}`, 2200),
                    hashtags:
                      hashtag && !brand.voice.dontSay.some((p) => hashtag.toLowerCase().includes(p.toLowerCase()))
                        ? [hashtag]
                        : [],
                  },
                }
              : {}),
            ...(request.channels.includes('web') ? { web: { eyebrow: fitLength(brand.profile.displayName, 80) } } : {}),
          },
        });
      }
      return drafts;
    },

    async describeImage(request: ImageDirectionRequest): Promise<ImageDirection> {
      const product = request.product ? factsOf(request.product).title : 'the product';
      const style = cleanText(request.style ?? '', 200) || 'clean editorial layout';
      const colours = Object.values(request.brand.brandbook.colors).slice(0, 3).join(', ');
      return {
        prompt: `${style}: ${product}, headline "${request.draft.headline}", brand colours ${colours}`,
        alt: fitLength(`${request.draft.headline} — ${product}`, 300),
      };
    },

    async writeFilmScript(request: FilmScriptRequest): Promise<FilmScript> {
      const title = cleanText(request.title, 120) || 'Untitled film';
      const sentences = sentencesOf(cleanText(request.brief, 2000)).filter((s) => !looksLikeInstruction(s));
      const notes = cleanText(request.notes ?? '', 300);
      const sceneCount = Math.max(2, Math.min(6, Math.round(request.durationSeconds / 5)));
      const seconds = request.durationSeconds / sceneCount;
      const scenes = Array.from({ length: sceneCount }, (_, index) => {
        const line = sentences[index % Math.max(1, sentences.length)] ?? title;
        const onScreen =
          index === 0 ? title : index === sceneCount - 1 ? request.brand.profile.displayName : fitLength(line, 60);
        return {
          index,
          seconds: Math.round(seconds * 10) / 10,
          visual: scrub(
            `${index === 0 ? 'Opening' : index === sceneCount - 1 ? 'Closing' : 'Scene'}: ${line}${notes ? ` (revised: ${notes})` : ''}`,
            request.brand,
            300,
          ),
          voiceover: scrub(line, request.brand, 300),
          onScreenText: scrub(onScreen, request.brand, 80, title),
        };
      });
      return { logline: scrub(`${title}: ${sentences[0] ?? title}`, request.brand, 200, title), scenes };
    },
  };
}
