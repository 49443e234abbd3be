/**
 * Meta — Facebook Pages and Instagram professional accounts — behind the channel adapter interface, through
 * the Graph API with plain `fetch` (the platform's SSRF guard) and nothing else that knows about the network.
 *
 * - **Connecting** is Facebook Login (`meta-oauth.ts`): one sign-in yields every Page the person granted and
 *   the Instagram account linked to each, as separate accounts (`kind`: `facebook_page`, `instagram`). Both
 *   are reached with the Page's access token; the person's long-lived user token (about 60 days) is what a
 *   refresh renews.
 * - **Publishing** (`meta-page-publish.ts`, `meta-instagram-publish.ts`) is exactly once across crashes: every
 *   id Meta returns is saved in the post's progress before the next call, and a repeat resumes or looks the
 *   post up.
 * - **Rules** (`meta-rules.ts`, `meta-post.ts`, `meta-instagram-rules.ts`): Instagram needs media, JPEG images, captions of 2,200 characters with at most
 *   30 hashtags, carousels of 2–10 items, 50 API posts per 24 hours (counted by the framework; `validate`
 *   also reads Meta's own count and warns). Page posts take 63,206 characters.
 * - **Errors and limits** (`meta-graph.ts`): rate limits wait what Meta's usage headers say, every answer's
 *   usage is the account's quota, a refused token is refreshed once.
 * - **Signing out** sends nothing: the platform's grant (`DELETE /me/permissions`) belongs to the person, not
 *   to one Page, and revoking it would break every other Page and Instagram account they connected.
 */
import { randomBytes } from 'node:crypto';
import type {
  AccountContext,
  ChannelAdapter,
  NetworkClient,
  NetworkCredentials,
  PostContent,
  QuotaObserver,
  ValidationResult,
} from '../channel-adapter.ts';
import {
  createGraph,
  DEFAULT_DIALOG_URL,
  DEFAULT_GRAPH_URL,
  GRAPH_VERSION,
  GraphApiError,
  MetaAccessExpiredError,
  translate,
} from './meta-graph.ts';
import { createMetaMetrics } from './meta-metrics.ts';
import { asCredentials, createMetaOAuth } from './meta-oauth.ts';
import { validateMetaPost } from './meta-post.ts';
import { accountKindOf, INSTAGRAM_LIMITS, META_POST_OPTIONS, META_RULES } from './meta-rules.ts';
import { publishToInstagram } from './meta-instagram-publish.ts';
import { publishToPage } from './meta-page-publish.ts';
import type { Polling } from './meta-publish.ts';

export { META_RULES } from './meta-rules.ts';

export interface MetaAdapterOptions {
  /** The platform's Meta app (`META_APP_ID`, `META_APP_SECRET`); empty when the operator has not registered one. */
  appId: string;
  appSecret: string;
  /** The Graph API (https://graph.facebook.com) and the Login dialog's host (https://www.facebook.com). */
  graphUrl?: string;
  dialogUrl?: string;
  graphVersion?: string;
  /** The guarded fetch every request goes through (`SafeFetch.apiFetch`). */
  fetch: typeof globalThis.fetch;
  /** How often and how long to wait for Meta to process videos and media containers. */
  polling?: Partial<Polling>;
  /** How long one Graph API call may take before it counts as Meta not answering (60 s). */
  requestTimeoutMs?: number;
  now?: () => Date;
}

/** "Unsupported delete request. Object with ID … does not exist": deleting twice is deleting once. */
const MISSING_OBJECT_SUBCODE = 33;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** Meta's own count of the account's API posts in the last 24 hours (the framework enforces the limit). */
interface PublishingLimit {
  data: { quota_usage?: number; config?: { quota_total?: number; quota_duration?: number } }[];
}

export function createMetaAdapter(options: MetaAdapterOptions): ChannelAdapter {
  const graphUrl = options.graphUrl ?? DEFAULT_GRAPH_URL;
  const version = options.graphVersion ?? GRAPH_VERSION;
  const now = options.now ?? (() => new Date());
  const polling: Polling = { intervalMs: 3_000, timeoutMs: 10 * 60_000, ...options.polling };
  const { oauth, refresh } = createMetaOAuth({
    graph: createGraph({ graphUrl, version, fetch: options.fetch, timeoutMs: options.requestTimeoutMs }),
    dialogUrl: options.dialogUrl ?? DEFAULT_DIALOG_URL,
    graphVersion: version,
    appId: options.appId,
    appSecret: options.appSecret,
    now,
  });

  function client(value: NetworkCredentials, onQuota: QuotaObserver, account: AccountContext): NetworkClient {
    const credentials = asCredentials(value);
    const kind = accountKindOf(account);
    const igUserId = credentials.igUserId ?? account.externalId;
    const token = credentials.pageAccessToken;
    const graph = createGraph({
      graphUrl,
      version,
      fetch: options.fetch,
      onQuota,
      timeoutMs: options.requestTimeoutMs,
    });
    const { metrics } = createMetaMetrics(graph, token);

    /** A warning when Meta counts the account's 24 hours full; none when it cannot say (it is advice only). */
    async function publishingLimitWarning(): Promise<ValidationResult['warnings']> {
      let answer: PublishingLimit;
      try {
        answer = await graph.call<PublishingLimit>('read the Instagram publishing limit', {
          path: `${igUserId}/content_publishing_limit`,
          token,
          query: { fields: 'quota_usage,config' },
        });
      } catch (error) {
        if (error instanceof MetaAccessExpiredError) throw error;
        return [];
      }
      const usage = answer.data[0]?.quota_usage ?? 0;
      const total = answer.data[0]?.config?.quota_total ?? INSTAGRAM_LIMITS.postsPer24h;
      if (usage < total) return [];
      return [
        {
          field: 'accountId',
          rule: 'publishing_limit_reached',
          message: `Instagram counts ${usage} posts through the API in the last 24 hours (it allows ${total}): this post waits until the oldest of them is 24 hours old`,
        },
      ];
    }

    return {
      async validate(content: PostContent) {
        const result = validateMetaPost(content, kind);
        if (kind !== 'instagram') return result;
        return { ...result, warnings: [...result.warnings, ...(await publishingLimitWarning())] };
      },

      async publish(input) {
        if (kind === 'instagram') return publishToInstagram(graph, { igUserId, token }, input, polling);
        return publishToPage(graph, { pageId: credentials.pageId, token }, input, polling);
      },

      async remove(externalId) {
        try {
          await graph.request({ method: 'DELETE', path: externalId, token });
        } catch (error) {
          if (error instanceof GraphApiError && error.code === 100 && error.subcode === MISSING_OBJECT_SUBCODE) return;
          translate(error, 'delete the post');
        }
      },

      metrics: (externalIds) => metrics(kind, externalIds),
    };
  }

  return {
    network: 'meta',
    rules: META_RULES,
    postOptions: META_POST_OPTIONS,
    oauth,
    refresh,

    async signOut(value) {
      // Nothing is revoked at Meta (see the module comment); the platform forgets the credentials.
      asCredentials(value);
    },

    client,

    validateOffline(content, account) {
      return validateMetaPost(content, accountKindOf(account));
    },

    newRecordKey() {
      // Meta takes no key of ours; this one names the post in the platform (16 random base32 characters).
      return [...randomBytes(16)].map((byte) => BASE32[byte % 32]).join('');
    },

    isAuthExpired(error) {
      return error instanceof MetaAccessExpiredError;
    },
  };
}
