/**
 * What a social network is to the channel framework: one adapter per network behind this interface. The
 * framework (accounts, posts, workflows, metrics, tools, pages) is written once against it; adding a network
 * is writing an adapter and listing it in `adapters.ts`.
 *
 * Adapters speak their network's protocol and nothing else: no database, no scope, no job. Credentials come
 * in opened and go out to be sealed by the framework (`channel-access.ts`), which also decides when to refresh
 * them and what a refused refresh means for the account.
 */
import type { z } from 'zod';
import type { ChannelMetric, ChannelMetricCounts, ChannelNetwork } from './channel-networks.ts';
import type { ChannelQuota } from './channel-account.entity.ts';
import type { PostLink, PostMedia, PostOptions, PublishProgress } from './channel-post.entity.ts';

export type { PostOptions, PublishProgress };

/** What a person types to connect an account (a Bluesky handle and an app password). */
export interface ConnectRequest {
  identifier: string;
  secret: string;
}

/** A network's credentials for one account, opened (the framework seals them as JSON). */
export type NetworkCredentials = Record<string, unknown>;

export interface CredentialState {
  credentials: NetworkCredentials;
  /** When the access token expires; null when it does not (or the network does not say). */
  accessExpiresAt: Date | null;
}

export interface ConnectedIdentity extends CredentialState {
  externalId: string;
  handle: string;
  displayName: string | null;
  /** The account's kind within the network (`AccountContext.kind`); omitted where a network has one kind. */
  kind?: string | null;
}

/**
 * Connecting with the network's OAuth (authorization code with PKCE where the network supports it): the
 * dashboard sends the person to `authorizationUrl`, the network sends them back to the platform's callback with
 * a code, and `completeAuthorization` exchanges it for the accounts the person granted — several for one
 * sign-in where the network works that way (Meta: each Facebook Page and the Instagram account linked to it).
 */
export interface OAuthConnect {
  /** Whether the operator configured the platform's app for this network (client id and secret). */
  configured: boolean;
  /** The scopes the platform asks for (documented for operators registering the app). */
  scopes: readonly string[];
  authorizationUrl(input: { state: string; redirectUri: string; codeChallenge: string }): string;
  /** Throws `ValidationError` for a code the network refuses (expired, used, for another redirect URI). */
  completeAuthorization(input: {
    code: string;
    redirectUri: string;
    codeVerifier: string;
  }): Promise<ConnectedIdentity[]>;
}

/** The published-to-be content of a post: what validation checks and publishing sends. */
export interface PostContent {
  text: string;
  link: PostLink | null;
  media: PostMedia[];
  langs: string[];
  /** The network's own fields (see `PostOptions`); `{}` for a network that has none. */
  options: PostOptions;
}

/**
 * The connected account a post goes to, as validation and publishing need it: its kind within the network
 * (Meta: `facebook_page` or `instagram`; null where a network has one kind) and its ids.
 */
export interface AccountContext {
  kind: string | null;
  externalId: string;
  handle: string;
}

export interface ValidationIssue {
  /** The input field at fault (`text`, `media.0.alt`, `langs`), as the tools name them. */
  field: string;
  /** The rule it breaks, stable and machine-readable: `text_too_long`, `too_many_images`, `alt_text_missing`, … */
  rule: string;
  message: string;
}

/** A rich-text annotation of the post as the network will store it (offsets in the network's own unit). */
export interface PreviewFacet {
  kind: 'link' | 'mention' | 'tag';
  /** The text it annotates. */
  text: string;
  /** Where it leads: a URL, a resolved account id, or the tag. Null for a mention nobody answers to. */
  target: string | null;
  byteStart: number;
  byteEnd: number;
}

export interface PostPreview {
  /** The text exactly as it will be published (with the attributed link). */
  text: string;
  /** Its length in the unit the network limits it in. */
  length: number;
  limit: number;
  unit: 'graphemes' | 'characters';
  facets: PreviewFacet[];
}

export interface ValidationResult {
  /** True when the network would accept the post as it is. */
  valid: boolean;
  issues: ValidationIssue[];
  /** Not refusals, but worth telling the user (a mention that resolves to nobody becomes plain text). */
  warnings: ValidationIssue[];
  preview: PostPreview;
}

/**
 * What a network says about a published post: its counts, and where it has them, a ratio that is shown but
 * never summed, and whether someone other than the brand took the post down.
 */
export interface PostMeasurement extends ChannelMetricCounts {
  /** Reddit: the share of votes that are upvotes (0–1). */
  upvoteRatio?: number | null;
  /** Who removed the post on the network (a subreddit's moderators, the network), while it is removed. */
  removedBy?: string | null;
}

/** The network's answer to a publish. */
export interface PublishedPost {
  externalId: string;
  externalUrl: string;
}

/** Notes the network's budget as it reports it, on every answer (the account's `quota`). */
export type QuotaObserver = (quota: ChannelQuota) => void;

/** The limits and abilities validation, tools and docs describe. */
export interface NetworkRules {
  textLimit: number;
  textUnit: 'graphemes' | 'characters';
  /** Bytes of UTF-8 the text may take (the network's second limit), or null. */
  textBytesLimit: number | null;
  maxImages: number;
  maxImageBytes: number;
  /** Videos a post may carry (0: the platform does not post videos to the network). */
  maxVideos: number;
  altTextLimit: number;
  maxLangs: number;
  /** Whether a published post can be edited on the network (Bluesky: no). */
  editPublished: boolean;
  /** Whether the API can delete a published post (TikTok's cannot); default true. */
  deletePublished?: boolean;
  /** The engagement measures the network has; every other one is reported as unknown. */
  metrics: readonly ChannelMetric[];
  /**
   * Posts an account of a kind may publish through the API in any 24 hours (Instagram: 50), counted by the
   * platform across restarts; the next one waits until the oldest of them is 24 hours old.
   */
  postsPer24h?: Readonly<Record<string, number>>;
  /** What this network needs that others do not, in a sentence or two for the tools' descriptions. */
  guidance?: string;
}

/** A signed-in connection to the network for one account, built from its credentials. */
export interface NetworkClient {
  /** Validation that needs the network (resolving mentions, a subreddit's rules, a creator's privacy options). */
  validate(content: PostContent): Promise<ValidationResult>;
  /**
   * Publishes under `recordKey`, idempotently: publishing the same content under the same key again stores it
   * once. `createdAt` is the post's time on the network, the same on every attempt.
   *
   * A network without record keys gets the same guarantee from `progress`: save each step's result
   * (`saveProgress`) before the next call, and on a repeated attempt resume from what was saved — and where a
   * call's answer may have been lost with the worker, look the post up (by `recordKey`, which is in the
   * attributed link) before sending it again.
   */
  publish(input: {
    content: PostContent;
    recordKey: string;
    createdAt: Date;
    loadMedia(key: string): Promise<Buffer>;
    /**
     * A public, unguessable URL of a media file that expires after a while, for networks that fetch media
     * themselves at publish time (Instagram, TikTok's `PULL_FROM_URL`).
     */
    mediaUrl(key: string): string;
    /**
     * The key of a JPEG copy of an image of the media store (made once and stored beside it), for networks that
     * take JPEG only (Instagram); the platform's renders are PNG.
     */
    jpegCopy(key: string): Promise<string>;
    /** What an earlier, interrupted attempt of this post saved; null on the first attempt. */
    progress: PublishProgress | null;
    saveProgress(progress: PublishProgress): Promise<void>;
    /** Tells the run the publish is alive (long container or upload polling). */
    heartbeat(): void;
  }): Promise<PublishedPost>;
  /** Deletes a published post; a post already gone is not an error. */
  remove(externalId: string): Promise<void>;
  /** Engagement of published posts, by external id; a post the network no longer shows is left out. */
  metrics(externalIds: readonly string[]): Promise<Map<string, PostMeasurement>>;
}

export interface ChannelAdapter {
  network: ChannelNetwork;
  rules: NetworkRules;
  /**
   * The network's own post fields, as a flat zod object of optional fields the tools add to their input
   * (`PostOptions`); an empty object for a network that has none.
   */
  postOptions: z.ZodObject;
  /** Signs in with what a person typed (app-password networks); throws `ValidationError` for refused credentials. */
  connect?(request: ConnectRequest): Promise<ConnectedIdentity>;
  /** Connecting through the network's OAuth (the other networks). */
  oauth?: OAuthConnect;
  /**
   * New credentials before the old ones expire (or after a refusal). Throws `CredentialsRefusedError` when
   * only a person can fix it, `RateLimitedError` or `UnavailableError` when waiting can.
   */
  refresh(credentials: NetworkCredentials): Promise<CredentialState>;
  /** Ends the session on the network (the platform forgets the credentials right after). */
  signOut(credentials: NetworkCredentials): Promise<void>;
  /** A client for one account; `onQuota` hears every budget the network reports. */
  client(credentials: NetworkCredentials, onQuota: QuotaObserver, account: AccountContext): NetworkClient;
  /** Validation that needs no network (the dry run works without a connected account's session). */
  validateOffline(content: PostContent, account: AccountContext): ValidationResult;
  /** The network's key for a new post (chosen once, so a retried publish writes the same record). */
  newRecordKey(now: Date): string;
  /** Whether an error from `client` means the access token was refused (refresh, then try once more). */
  isAuthExpired(error: unknown): boolean;
}

/**
 * The network refused the account's stored credentials for good (an app password revoked, an account taken
 * down): only a person can help. The framework moves the account to `needs_reconnect` with this message.
 */
export class CredentialsRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialsRefusedError';
  }
}
