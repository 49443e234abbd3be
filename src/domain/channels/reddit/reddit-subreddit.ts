/**
 * A subreddit's rules for a post, read live and checked before publishing: most Reddit posts that fail, fail
 * here — removed for a missing flair, a kind the community does not take, a banned word — so the platform
 * says so while the post can still be fixed.
 *
 * - `GET /r/{sr}/about`: whether it exists and who may post (its type, `submission_type`, `allow_images`, the
 *   account's standing). A name nobody has answers with a redirect to the subreddit search, or an empty
 *   listing; a private or banned one with 403 or 404 and a `reason`.
 * - `GET /api/v1/{sr}/post_requirements`: what its moderators require (flair, title length and words, body
 *   policy, blocked domains).
 * - `GET /r/{sr}/api/link_flair_v2`: the flairs a poster may choose (403 when posters may not choose any).
 */
import type { QuotaObserver, ValidationIssue } from '../channel-adapter.ts';
import type { RedditHttp } from './reddit-http.ts';
import { characters, type ComposedRedditPost } from './reddit-post.ts';

export interface SubredditAbout {
  display_name: string;
  subreddit_type?: string;
  submission_type?: string;
  allow_images?: boolean;
  user_is_banned?: boolean | null;
  user_is_contributor?: boolean | null;
  user_is_moderator?: boolean | null;
}

/** Moderator-set requirements; every field may be absent or null (no requirement). */
export interface PostRequirements {
  is_flair_required?: boolean;
  title_text_min_length?: number | null;
  title_text_max_length?: number | null;
  title_required_strings?: string[];
  title_blacklisted_strings?: string[];
  title_regexes?: string[];
  body_restriction_policy?: string;
  body_text_min_length?: number | null;
  body_text_max_length?: number | null;
  body_required_strings?: string[];
  body_blacklisted_strings?: string[];
  body_regexes?: string[];
  domain_blacklist?: string[];
  domain_whitelist?: string[];
  guidelines_text?: string | null;
}

export interface LinkFlair {
  id: string;
  text: string;
  text_editable?: boolean;
  mod_only?: boolean;
}

export type SubredditFacts =
  | { state: 'missing'; name: string }
  | { state: 'closed'; name: string; reason: string }
  | {
      state: 'open';
      name: string;
      about: SubredditAbout;
      requirements: PostRequirements;
      /** Null when the account may not choose flair there. */
      flairs: LinkFlair[] | null;
    };

/** Reads what `subredditIssues` checks, in three calls (the last two at once). */
export async function readSubreddit(
  http: RedditHttp,
  accessToken: string,
  name: string,
  onQuota: QuotaObserver,
): Promise<SubredditFacts> {
  const path = encodeURIComponent(name);
  const get = (at: string, doing: string, allow: number[]) =>
    http.api(accessToken, { method: 'GET', path: at, query: { raw_json: '1' }, doing, allow, onQuota });
  const about = await get(`/r/${path}/about`, `read r/${name}`, [301, 302, 403, 404]);
  const body = (about.body ?? {}) as { kind?: string; data?: SubredditAbout; reason?: string };
  if (about.status >= 300 && about.status < 400) return { state: 'missing', name };
  if (about.status === 403 || about.status === 404) {
    if (!body.reason) return { state: 'missing', name };
    return { state: 'closed', name, reason: body.reason };
  }
  if (body.kind !== 't5' || !body.data) return { state: 'missing', name };
  const [requirements, flairs] = await Promise.all([
    get(`/api/v1/${path}/post_requirements`, `read the posting rules of r/${name}`, [403, 404]),
    get(`/r/${path}/api/link_flair_v2`, `read the post flairs of r/${name}`, [403, 404]),
  ]);
  return {
    state: 'open',
    name: body.data.display_name || name,
    about: body.data,
    requirements: requirements.status === 200 ? ((requirements.body ?? {}) as PostRequirements) : {},
    flairs: flairs.status === 200 && Array.isArray(flairs.body) ? (flairs.body as LinkFlair[]) : null,
  };
}

const KIND_NAMES = { self: 'text', link: 'link', image: 'image' } as const;
/** Subreddit types only approved users (or nobody) may post in. */
const RESTRICTED_TYPES = new Set(['restricted', 'gold_restricted', 'gold_only', 'employees_only', 'private']);

function listFlairs(flairs: LinkFlair[]): string {
  const shown = flairs.slice(0, 12).map((flair) => `"${flair.text}" (flairId ${flair.id})`);
  return `${shown.join(', ')}${flairs.length > shown.length ? `, and ${flairs.length - shown.length} more` : ''}`;
}

const lower = (value: string) => value.toLowerCase();
const containing = (text: string, words: readonly string[] = []) =>
  words.filter((word) => word && lower(text).includes(lower(word)));

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return null;
  }
}

/** `example.com` covers `shop.example.com` too, as Reddit's domain lists do. */
const onDomain = (host: string, domain: string) => host === lower(domain) || host.endsWith(`.${lower(domain)}`);

function standingIssues(composed: ComposedRedditPost, sr: string, about: SubredditAbout): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const member = about.user_is_contributor === true || about.user_is_moderator === true;
  if (about.user_is_banned) {
    issues.push({ field: 'subreddit', rule: 'subreddit_banned', message: `The account is banned from ${sr}` });
  } else if (about.subreddit_type === 'archived') {
    issues.push({ field: 'subreddit', rule: 'subreddit_closed', message: `${sr} is archived: nobody can post there` });
  } else if (about.subreddit_type && RESTRICTED_TYPES.has(about.subreddit_type) && !member) {
    issues.push({
      field: 'subreddit',
      rule: 'subreddit_restricted',
      message: `Only approved members post in ${sr} (${about.subreddit_type}): ask its moderators, or choose another subreddit`,
    });
  }
  const only = about.submission_type;
  const refused =
    (only === 'link' && composed.kind === 'self') ||
    (only === 'self' && composed.kind !== 'self') ||
    (composed.kind === 'image' && about.allow_images === false);
  if (refused) {
    const takes = only === 'self' ? 'only text posts' : only === 'link' ? 'no text posts' : 'no image posts';
    const instead =
      only === 'self' ? 'postKind self' : composed.kind === 'image' ? 'postKind self or link' : 'postKind link';
    issues.push({
      field: 'postKind',
      rule: 'kind_not_allowed',
      message: `${sr} takes ${takes}, so a ${KIND_NAMES[composed.kind]} post would be refused: choose ${instead}`,
    });
  }
  return issues;
}

function flairIssues(composed: ComposedRedditPost, sr: string, facts: SubredditFacts & { state: 'open' }) {
  const issues: ValidationIssue[] = [];
  const choosable = (facts.flairs ?? []).filter((flair) => !flair.mod_only || facts.about.user_is_moderator);
  if (!composed.flairId) {
    if (facts.requirements.is_flair_required) {
      issues.push({
        field: 'flairId',
        rule: 'flair_required',
        message: choosable.length
          ? `${sr} requires a post flair: choose one (flairId): ${listFlairs(choosable)}`
          : `${sr} requires a post flair, but offers this account none to choose: ask its moderators`,
      });
    }
    return issues;
  }
  if (facts.flairs === null) {
    issues.push({
      field: 'flairId',
      rule: 'flair_unknown',
      message: `${sr} does not let this account choose a post flair: remove flairId`,
    });
    return issues;
  }
  const chosen = choosable.find((flair) => flair.id === composed.flairId);
  if (!chosen) {
    issues.push({
      field: 'flairId',
      rule: 'flair_unknown',
      message: choosable.length
        ? `${sr} has no post flair ${composed.flairId}: choose one of ${listFlairs(choosable)}`
        : `${sr} has no post flairs to choose: remove flairId`,
    });
  } else if (composed.flairText && !chosen.text_editable) {
    issues.push({
      field: 'flairText',
      rule: 'flair_text_not_editable',
      message: `The flair "${chosen.text}" of ${sr} cannot be given your own text: remove flairText`,
    });
  }
  return issues;
}

function titleIssues(composed: ComposedRedditPost, sr: string, rules: PostRequirements): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const length = characters(composed.title);
  if (rules.title_text_min_length && length < rules.title_text_min_length) {
    issues.push({
      field: 'title',
      rule: 'title_too_short',
      message: `${sr} wants titles of at least ${rules.title_text_min_length} characters; this one has ${length}`,
    });
  }
  if (rules.title_text_max_length && length > rules.title_text_max_length) {
    issues.push({
      field: 'title',
      rule: 'title_too_long',
      message: `${sr} takes titles of at most ${rules.title_text_max_length} characters; this one has ${length}`,
    });
  }
  const required = (rules.title_required_strings ?? []).filter(Boolean);
  if (required.length && containing(composed.title, required).length === 0) {
    issues.push({
      field: 'title',
      rule: 'title_words_missing',
      message: `${sr} wants one of these in every title: ${required.map((word) => `"${word}"`).join(', ')}`,
    });
  }
  const blocked = containing(composed.title, rules.title_blacklisted_strings);
  if (blocked.length) {
    issues.push({
      field: 'title',
      rule: 'title_words_blocked',
      message: `${sr} refuses titles with ${blocked.map((word) => `"${word}"`).join(', ')}: reword the title`,
    });
  }
  return issues;
}

function bodyIssues(composed: ComposedRedditPost, sr: string, rules: PostRequirements): ValidationIssue[] {
  if (composed.kind !== 'self') return [];
  const issues: ValidationIssue[] = [];
  const length = characters(composed.body);
  if (rules.body_restriction_policy === 'required' && !composed.body) {
    issues.push({ field: 'text', rule: 'body_required', message: `${sr} requires text in a text post: write some` });
  }
  if (rules.body_restriction_policy === 'notAllowed' && composed.body) {
    issues.push({
      field: 'text',
      rule: 'body_not_allowed',
      message: `${sr} takes text posts with a title only (the attributed link counts as text): remove the text, or post the link (postKind link)`,
    });
  }
  if (rules.body_text_min_length && composed.body && length < rules.body_text_min_length) {
    issues.push({
      field: 'text',
      rule: 'text_too_short',
      message: `${sr} wants at least ${rules.body_text_min_length} characters of text; this has ${length}`,
    });
  }
  if (rules.body_text_max_length && length > rules.body_text_max_length) {
    issues.push({
      field: 'text',
      rule: 'text_too_long',
      message: `${sr} takes at most ${rules.body_text_max_length} characters of text; this has ${length}`,
    });
  }
  const required = (rules.body_required_strings ?? []).filter(Boolean);
  if (required.length && containing(composed.body, required).length === 0) {
    issues.push({
      field: 'text',
      rule: 'text_words_missing',
      message: `${sr} wants one of these in the text: ${required.map((word) => `"${word}"`).join(', ')}`,
    });
  }
  const blocked = containing(composed.body, rules.body_blacklisted_strings);
  if (blocked.length) {
    issues.push({
      field: 'text',
      rule: 'text_words_blocked',
      message: `${sr} refuses posts with ${blocked.map((word) => `"${word}"`).join(', ')}: reword the text`,
    });
  }
  return issues;
}

function linkIssues(composed: ComposedRedditPost, sr: string, rules: PostRequirements): ValidationIssue[] {
  const host = composed.kind === 'link' && composed.url ? hostOf(composed.url) : null;
  if (!host) return [];
  if ((rules.domain_blacklist ?? []).some((domain) => onDomain(host, domain))) {
    return [
      {
        field: 'postKind',
        rule: 'link_domain_blocked',
        message: `${sr} refuses links to ${host}: post text instead (postKind self)`,
      },
    ];
  }
  const allowed = rules.domain_whitelist ?? [];
  if (allowed.length && !allowed.some((domain) => onDomain(host, domain))) {
    return [
      {
        field: 'postKind',
        rule: 'link_domain_not_allowed',
        message: `${sr} takes links to ${allowed.slice(0, 8).join(', ')} only, not ${host}: post text instead (postKind self)`,
      },
    ];
  }
  return [];
}

/** Where the post breaks the subreddit's rules, and what is worth knowing that the platform cannot check. */
export function subredditIssues(
  composed: ComposedRedditPost,
  facts: SubredditFacts,
): { issues: ValidationIssue[]; warnings: ValidationIssue[] } {
  const sr = `r/${facts.name}`;
  if (facts.state === 'missing') {
    return {
      issues: [{ field: 'subreddit', rule: 'subreddit_not_found', message: `${sr} does not exist: check the name` }],
      warnings: [],
    };
  }
  if (facts.state === 'closed') {
    return {
      issues: [
        { field: 'subreddit', rule: 'subreddit_closed', message: `${sr} cannot be posted to (${facts.reason})` },
      ],
      warnings: [],
    };
  }
  const rules = facts.requirements;
  const issues = [
    ...standingIssues(composed, sr, facts.about),
    ...flairIssues(composed, sr, facts),
    ...titleIssues(composed, sr, rules),
    ...bodyIssues(composed, sr, rules),
    ...linkIssues(composed, sr, rules),
  ];
  const warnings: ValidationIssue[] = [];
  const patterns = [...(rules.title_regexes ?? []), ...(rules.body_regexes ?? [])].filter(Boolean);
  if (patterns.length) {
    warnings.push({
      field: 'title',
      rule: 'subreddit_patterns_unchecked',
      message: `${sr} also checks titles or text against patterns the platform does not test: ${patterns.slice(0, 5).join(', ')}`,
    });
  }
  if (rules.guidelines_text?.trim()) {
    warnings.push({
      field: 'subreddit',
      rule: 'subreddit_guidelines',
      message: `${sr} asks posters to read: ${rules.guidelines_text.trim().slice(0, 500)}`,
    });
  }
  return { issues, warnings };
}
