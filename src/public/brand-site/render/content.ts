/**
 * The content model of a brand-site page: what the page says, independent of how it is written. The page
 * builders produce it once; the HTML writer and the markdown writer both consume it, so a page and its
 * markdown twin always state the same facts (the twin is never scraped from the HTML).
 *
 * All text here is plain text, exactly as the brand or the imported product wrote it: each writer escapes
 * it for its own format. Links are site paths (`/campaigns/x`) or absolute URLs already checked by `safeUrl`.
 */
import type { PageSlot } from '../site-model.ts';

export interface LinkItem {
  text: string;
  href: string;
  /** A short description after the link (price, summary). */
  note?: string | null;
  /** Links taken from imported product data: no endorsement (`rel="nofollow"`). */
  untrusted?: boolean;
}

export interface Fact {
  label: string;
  value: string;
  href?: string | null;
  /** ISO time when the value is a date (HTML marks it up as `<time>`). */
  datetime?: string | null;
  untrusted?: boolean;
  /** The fact the page is about (a product's price): set larger in HTML. */
  highlight?: boolean;
}

/** The concierge's reply as the ask page shows it (the concierge service's reply has this shape). */
export interface AnswerView {
  answered: boolean;
  /** Plain text; `segments` has the same sentences with the source each one is quoted from. */
  answer: string;
  segments: { text: string; source: number }[];
  sources: { url: string; title: string }[];
  suggestions: string[];
}

/** Hidden fields that carry a conversation on: earlier questions (for follow-ups) and its id. */
export interface AskContext {
  previous: string[];
  conversationId: string | null;
}

export interface ImageItem {
  src: string;
  alt: string;
}

/** A link shown as a card in HTML (image, title, note); markdown writes it as a plain list item. */
export interface CardItem extends LinkItem {
  image: ImageItem | null;
}

/**
 * How a variant is spliced into one slot: its headline level, and whether the variant's own image is shown.
 * Where the page already shows the product photo beside the slot (a campaign page's head, the home page's
 * hero), the variant's still is left out: a photo with the copy as HTML text reads better than a picture of
 * words, and the copy is never shown twice.
 */
export interface SlotStyle {
  level: 2 | 3;
  image: boolean;
}

export type Block = BlockBody & {
  /** A block only one writer shows (HTML layout that has no place in the twin, or the reverse). */
  only?: 'html' | 'markdown';
};

type BlockBody =
  | { kind: 'heading'; level: 2 | 3; text: string; anchor?: string | null }
  /** Free text: blank lines separate paragraphs, single newlines are kept as line breaks. */
  | { kind: 'text'; text: string; lead?: boolean }
  | { kind: 'facts'; facts: Fact[] }
  | { kind: 'links'; links: LinkItem[] }
  /** Links to campaigns or products: a grid of cards in HTML, the same list as `links` in markdown. */
  | { kind: 'cards'; cards: CardItem[] }
  | { kind: 'images'; images: ImageItem[] }
  /** Shown where a list or a zone has nothing in it. */
  | { kind: 'empty'; text: string }
  /** Where the visitor's variant of `slot.campaignId` is spliced in at serve time. */
  | { kind: 'slot'; slot: PageSlot; style: SlotStyle }
  /** The concierge's answer on the page the ask form posts to (HTML only: there is no twin of it). */
  | { kind: 'answer'; question: string; reply: AnswerView; context: AskContext; origin: string; contact: Fact[] };

/**
 * The home page's hero (HTML only: the twin lists the same campaign among the others): the lead live
 * campaign with its product photo, the visitor's variant of it and a link to its page.
 */
export interface Feature {
  campaignName: string;
  campaignHref: string;
  image: ImageItem | null;
  slot: Block & { kind: 'slot' };
}

/** A JSON-LD node (schema.org); the page's nodes are written as one `@graph`. */
export type JsonLdNode = Record<string, unknown>;

export interface PageContent {
  path: string;
  /** The page's own title (its H1); the HTML `<title>` adds the brand name. */
  title: string;
  /** One-line summary for `<meta name="description">`. */
  description: string | null;
  lastModified: string;
  /**
   * What stands under the title in the page's head (HTML: the band at the top, beside `media`); the twin
   * writes these first, then `blocks`, so both say the same things in the same order.
   */
  intro: Block[];
  /** The pictures of the page head: the product photo of a campaign page, a product's photos (first large). */
  media: ImageItem[];
  /** `label`: the title is a small label over the variant's headline (campaign pages), else a display title. */
  titleStyle: 'display' | 'label';
  feature: Feature | null;
  blocks: Block[];
  structuredData: JsonLdNode[];
  /** Whether the page ends with the concierge's ask box (when the brand's concierge is on). */
  askBox: boolean;
}

/** One variant's creative, as both fragment writers receive it. */
export interface VariantContent {
  headline: string;
  body: string;
  cta: { text: string; href: string };
  image: ImageItem | null;
  /**
   * The copy drawn into the image: a generated still carries its headline (and sometimes its body) as
   * pixels, and its alt text says so. Where the image is shown, that copy is not printed again under it.
   */
  imageCarries: { headline: boolean; body: boolean };
}
