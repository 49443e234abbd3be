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
}

export interface ImageItem {
  src: string;
  alt: string;
}

export type Block =
  | { kind: 'heading'; level: 2 | 3; text: string; anchor?: string | null }
  /** Free text: blank lines separate paragraphs, single newlines are kept as line breaks. */
  | { kind: 'text'; text: string; lead?: boolean }
  | { kind: 'facts'; facts: Fact[] }
  | { kind: 'links'; links: LinkItem[] }
  | { kind: 'images'; images: ImageItem[] }
  /** Shown where a list or a zone has nothing in it. */
  | { kind: 'empty'; text: string }
  /** Where the visitor's variant of `slot.campaignId` is spliced in at serve time. */
  | { kind: 'slot'; slot: PageSlot };

/** A JSON-LD node (schema.org); the page's nodes are written as one `@graph`. */
export type JsonLdNode = Record<string, unknown>;

export interface PageContent {
  path: string;
  /** The page's own title (its H1); the HTML `<title>` adds the brand name. */
  title: string;
  /** One-line summary for `<meta name="description">`. */
  description: string | null;
  lastModified: string;
  blocks: Block[];
  structuredData: JsonLdNode[];
  /** Heading level of the variant headlines spliced into this page's slots. */
  slotHeadingLevel: 2 | 3;
}

/** One variant's creative, as both fragment writers receive it. */
export interface VariantContent {
  headline: string;
  body: string;
  cta: { text: string; href: string };
  image: ImageItem | null;
}
