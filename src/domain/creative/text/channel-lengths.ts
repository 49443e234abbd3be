/**
 * How long each piece of generated copy may be, per surface. Both engines fit their output to these, and the
 * creative evaluation checks them.
 *
 * The social caption goes to whichever network a person posts it on, so it must fit the tightest of them:
 * the limit is read from the networks' own rules (`NETWORK_RULES`, Bluesky's 300 graphemes today), never
 * copied here. The rest are display limits: inboxes show about 60 characters of a subject and 100 of a
 * preheader; a headline of 70 fits a 1200×630 image in two lines at a legible size and a search result's
 * title; a call to action is a button label.
 */
import { NETWORK_RULES } from '../../channels/network-rules.ts';

export const COPY_LIMITS = {
  headline: 70,
  body: 400,
  callToAction: 24,
  emailSubject: 60,
  emailPreheader: 100,
  webEyebrow: 40,
} as const;

/** The social caption with its hashtags, in graphemes: the tightest text limit of the networks posted to. */
export const SOCIAL_CAPTION_LIMIT = Math.min(...Object.values(NETWORK_RULES).map((rules) => rules.textLimit));

/** User-perceived characters, as Bluesky counts them. */
export function graphemeCount(text: string): number {
  let count = 0;
  for (const _ of new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(text)) count += 1;
  return count;
}
