/**
 * What a social network is to the channel framework: one adapter per network behind this interface. The
 * framework (accounts, posts, workflows, metrics, tools, pages) is written once against it; adding a network
 * is writing an adapter and listing it in `adapters.ts`.
 *
 * Adapters speak their network's protocol and nothing else: no database, no scope, no job. Credentials come
 * in opened and go out to be sealed by the framework (`channel-access.ts`), which also decides when to refresh
 * them and what a refused refresh means for the account.
 */
import type { ChannelMetric, ChannelMetricCounts, ChannelNetwork } from './channel-networks.ts';
import type { ChannelQuota } from './channel-account.entity.ts';
import type { PostLink, PostMedia } from './channel-post.entity.ts';

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
}

/** The published-to-be content of a post: what validation checks and publishing sends. */
export interface PostContent {
  text: string;
  link: PostLink | null;
  media: PostMedia[];
  langs: string[];
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
  /** The engagement measures the network has; every other one is reported as unknown. */
  metrics: readonly ChannelMetric[];
}

/** A signed-in connection to the network for one account, built from its credentials. */
export interface NetworkClient {
  /** Validation that needs the network (resolving mentions). */
  validate(content: PostContent): Promise<ValidationResult>;
  /**
   * Publishes under `recordKey`, idempotently: publishing the same content under the same key again stores it
   * once. `createdAt` is the post's time on the network, the same on every attempt.
   */
  publish(input: {
    content: PostContent;
    recordKey: string;
    createdAt: Date;
    loadMedia(key: string): Promise<Buffer>;
  }): Promise<PublishedPost>;
  /** Deletes a published post; a post already gone is not an error. */
  remove(externalId: string): Promise<void>;
  /** Engagement of published posts, by external id; a post the network no longer shows is left out. */
  metrics(externalIds: readonly string[]): Promise<Map<string, ChannelMetricCounts>>;
}

export interface ChannelAdapter {
  network: ChannelNetwork;
  rules: NetworkRules;
  /** Signs in with what a person typed; throws `ValidationError` for credentials the network refuses. */
  connect(request: ConnectRequest): Promise<ConnectedIdentity>;
  /**
   * New credentials before the old ones expire (or after a refusal). Throws `CredentialsRefusedError` when
   * only a person can fix it, `RateLimitedError` or `UnavailableError` when waiting can.
   */
  refresh(credentials: NetworkCredentials): Promise<CredentialState>;
  /** Ends the session on the network (the platform forgets the credentials right after). */
  signOut(credentials: NetworkCredentials): Promise<void>;
  /** A client for one account; `onQuota` hears every budget the network reports. */
  client(credentials: NetworkCredentials, onQuota: QuotaObserver): NetworkClient;
  /** Validation that needs no network (the dry run works without a connected account's session). */
  validateOffline(content: PostContent): ValidationResult;
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
