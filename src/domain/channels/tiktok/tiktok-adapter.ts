/**
 * TikTok (the Content Posting API) behind the channel adapter interface, with `fetch` and nothing else: TikTok
 * has no official Node SDK for posting.
 *
 * - **Connecting** is TikTok's Login Kit OAuth 2.0 with PKCE (S256): the person allows the platform's app on
 *   TikTok's consent page (`www.tiktok.com/v2/auth/authorize/`), and the code is exchanged at
 *   `open.tiktokapis.com/v2/oauth/token/`. The account is its `open_id`; its @username comes from
 *   `creator_info/query` (the `username` field of `/v2/user/info/` would need the `user.info.profile` scope,
 *   which the platform does not ask for). Access tokens last 24 hours and are refreshed with the refresh token
 *   (365 days, and it may change on refresh); a refused refresh token means reconnecting.
 * - **Publishing** is one video per post: `video/init` (or `inbox/video/init` for a draft the creator finishes in
 *   the app), the file uploaded in chunks (FILE_UPLOAD, the default) or fetched by TikTok from the platform's
 *   media link (PULL_FROM_URL, which needs the media domain verified with TikTok), then the status polled until
 *   TikTok has published it. Exactly once across crashes: see `tiktok-publish.ts`.
 * - **Rules**: an unaudited app may only post privately to the creator (`audited: false`, TikTok's typical
 *   refusal); the person must choose the privacy level; the creator's own settings (`creator_info/query`) bound
 *   the privacy options, interactions and the video's length (`tiktok-post.ts`).
 * - **Deleting** is not possible: TikTok's API cannot delete a published video (`remove` says so).
 */
import { randomBytes } from 'node:crypto';
import { ChannelRefusedError, ValidationError } from '../../../errors.ts';
import type {
  ChannelAdapter,
  ConnectedIdentity,
  CredentialState,
  NetworkClient,
  NetworkCredentials,
  PostContent,
} from '../channel-adapter.ts';
import { CredentialsRefusedError } from '../channel-adapter.ts';
import { createTikTokApi, oauthPost, TikTokAccessExpiredError, type TikTokApi } from './tiktok-api.ts';
import { readMetrics } from './tiktok-metrics.ts';
import { BUDGETS, publishVideo, type PublishTuning, type VideoSource } from './tiktok-publish.ts';
import {
  PRIVACY_LEVELS,
  TIKTOK_POST_OPTIONS,
  TIKTOK_RULES,
  validateTikTokPost,
  validateWithCreator,
  type CreatorInfo,
  type PrivacyLevel,
} from './tiktok-post.ts';

export { TIKTOK_RULES } from './tiktok-post.ts';

/** What the platform asks for: identity, direct posts, inbox drafts, and reading its own videos (metrics). */
export const TIKTOK_SCOPES = ['user.info.basic', 'video.publish', 'video.upload', 'video.list'] as const;

const DEFAULT_TUNING: PublishTuning = {
  pollIntervalMs: 5000,
  processingTimeoutMs: 10 * 60 * 1000,
  moderationWaitMs: 90 * 1000,
  uploadChunkBytes: 10 * 1024 * 1024,
};

export interface TikTokAdapterOptions {
  /** The platform's TikTok app (`TIKTOK_CLIENT_KEY`, `TIKTOK_CLIENT_SECRET`); empty: not set up. */
  clientKey: string;
  clientSecret: string;
  /** Where the consent page is (`TIKTOK_AUTH_URL`, https://www.tiktok.com). */
  authUrl?: string;
  /** The API's origin (`TIKTOK_API_URL`, https://open.tiktokapis.com). */
  apiUrl?: string;
  /** Whether TikTok has audited the app (`TIKTOK_AUDITED`); until then it may only post SELF_ONLY. */
  audited?: boolean;
  /** How TikTok gets a video (`TIKTOK_VIDEO_SOURCE`); PULL_FROM_URL needs the media domain verified with TikTok. */
  videoSource?: VideoSource;
  /** The guarded fetch every request goes through (`SafeFetch.apiFetch`). */
  fetch: typeof globalThis.fetch;
  /** Polling and upload figures (tests shorten them). */
  tuning?: Partial<PublishTuning>;
}

/** What is sealed for a TikTok account. */
interface TikTokCredentials {
  accessToken: string;
  refreshToken: string;
  openId: string;
  username: string;
  /** The scopes the person granted, comma-separated as TikTok writes them. */
  scope: string;
  refreshExpiresAt: string | null;
}

function asCredentials(value: NetworkCredentials): TikTokCredentials {
  const credentials = value as Partial<TikTokCredentials>;
  for (const field of ['accessToken', 'refreshToken', 'openId', 'username'] as const) {
    if (typeof credentials[field] !== 'string') throw new Error(`TikTok credentials lack ${field}`);
  }
  return credentials as TikTokCredentials;
}

interface TokenAnswer {
  access_token: string;
  expires_in: number;
  open_id: string;
  refresh_token: string;
  refresh_expires_in: number;
  scope: string;
}

const expiresIn = (seconds: unknown) =>
  typeof seconds === 'number' && seconds > 0 ? new Date(Date.now() + seconds * 1000) : null;

export function createTikTokAdapter(options: TikTokAdapterOptions): ChannelAdapter {
  const authUrl = options.authUrl ?? 'https://www.tiktok.com';
  const apiUrl = options.apiUrl ?? 'https://open.tiktokapis.com';
  const audited = options.audited ?? false;
  const tuning: PublishTuning = { ...DEFAULT_TUNING, ...options.tuning };
  const configured = Boolean(options.clientKey && options.clientSecret);
  const oauthOptions = { apiUrl, fetch: options.fetch };

  function requireConfigured(): void {
    if (configured) return;
    throw new ValidationError(
      "TikTok is not set up on this platform: the operator registers the platform's app with TikTok for Developers (Login Kit and the Content Posting API) and sets TIKTOK_CLIENT_KEY and TIKTOK_CLIENT_SECRET",
      { field: 'network' },
    );
  }

  const apiFor = (accessToken: string, onQuota?: Parameters<typeof createTikTokApi>[0]['onQuota']) =>
    createTikTokApi({ apiUrl, accessToken, fetch: options.fetch, onQuota });

  async function creatorInfo(api: TikTokApi): Promise<CreatorInfo> {
    const data = await api.call<{
      creator_username?: string;
      creator_nickname?: string;
      privacy_level_options?: string[];
      comment_disabled?: boolean;
      duet_disabled?: boolean;
      stitch_disabled?: boolean;
      max_video_post_duration_sec?: number;
    }>({
      doing: "read the creator's posting settings",
      method: 'POST',
      path: '/v2/post/publish/creator_info/query/',
      budget: BUDGETS.creatorInfo,
    });
    return {
      username: data.creator_username ?? '',
      nickname: data.creator_nickname ?? '',
      privacyOptions: (data.privacy_level_options ?? []).filter((level): level is PrivacyLevel =>
        (PRIVACY_LEVELS as readonly string[]).includes(level),
      ),
      commentDisabled: data.comment_disabled ?? false,
      duetDisabled: data.duet_disabled ?? false,
      stitchDisabled: data.stitch_disabled ?? false,
      maxDurationSec: data.max_video_post_duration_sec ?? 600,
    };
  }

  async function connectAccount(token: TokenAnswer): Promise<ConnectedIdentity> {
    const granted = String(token.scope ?? '').split(/[,\s]+/);
    const missing = TIKTOK_SCOPES.filter((scope) => !granted.includes(scope));
    if (missing.length > 0) {
      throw new ValidationError(
        `The TikTok account was connected without ${missing.join(', ')}, which the platform needs to post and read engagement. Connect it again and leave every permission on TikTok's page allowed.`,
        { field: 'code' },
      );
    }
    const api = apiFor(token.access_token);
    const { user } = await api.call<{ user?: { open_id?: string; display_name?: string } }>({
      doing: 'read the account',
      method: 'GET',
      path: '/v2/user/info/?fields=open_id,union_id,avatar_url,display_name',
    });
    let creator: CreatorInfo;
    try {
      creator = await creatorInfo(api);
    } catch (error) {
      // An account TikTok does not let post (a ban, a spent daily allowance of creators) is not worth connecting.
      if (error instanceof ChannelRefusedError) throw new ValidationError(error.message, { field: 'code' });
      throw error;
    }
    const credentials: TikTokCredentials = {
      accessToken: token.access_token,
      refreshToken: token.refresh_token,
      openId: user?.open_id ?? token.open_id,
      username: creator.username,
      scope: token.scope,
      refreshExpiresAt: expiresIn(token.refresh_expires_in)?.toISOString() ?? null,
    };
    return {
      externalId: credentials.openId,
      handle: creator.username,
      displayName: user?.display_name?.trim() || creator.nickname || null,
      kind: null,
      credentials: { ...credentials },
      accessExpiresAt: expiresIn(token.expires_in),
    };
  }

  return {
    network: 'tiktok',
    rules: TIKTOK_RULES,
    postOptions: TIKTOK_POST_OPTIONS,

    oauth: {
      configured,
      scopes: TIKTOK_SCOPES,

      authorizationUrl({ state, redirectUri, codeChallenge }) {
        requireConfigured();
        const url = new URL('/v2/auth/authorize/', authUrl);
        url.search = new URLSearchParams({
          client_key: options.clientKey,
          scope: TIKTOK_SCOPES.join(','),
          response_type: 'code',
          redirect_uri: redirectUri,
          state,
          code_challenge: codeChallenge,
          code_challenge_method: 'S256',
        }).toString();
        return url.toString();
      },

      async completeAuthorization({ code, redirectUri, codeVerifier }) {
        requireConfigured();
        const answer = await oauthPost(
          oauthOptions,
          '/v2/oauth/token/',
          {
            client_key: options.clientKey,
            client_secret: options.clientSecret,
            code,
            grant_type: 'authorization_code',
            redirect_uri: redirectUri,
            code_verifier: codeVerifier,
          },
          'finish the sign-in',
        );
        if (!answer.ok) {
          const { error, description } = answer.refusal;
          throw new ValidationError(
            `TikTok refused the sign-in (${error}${description ? `: ${description}` : ''}). Start again from Channels → Connect TikTok.`,
            { field: 'code' },
          );
        }
        return [await connectAccount(answer.body as unknown as TokenAnswer)];
      },
    },

    async refresh(value): Promise<CredentialState> {
      requireConfigured();
      const credentials = asCredentials(value);
      const answer = await oauthPost(
        oauthOptions,
        '/v2/oauth/token/',
        {
          client_key: options.clientKey,
          client_secret: options.clientSecret,
          grant_type: 'refresh_token',
          refresh_token: credentials.refreshToken,
        },
        'refresh the access token',
      );
      if (!answer.ok) {
        const { error, description, status } = answer.refusal;
        if (error === 'invalid_grant') {
          throw new CredentialsRefusedError(
            `TikTok refused the account's refresh token (${description || 'revoked, or older than 365 days'}): reconnect the account.`,
          );
        }
        throw new ChannelRefusedError(`TikTok refused to refresh the access token (${error}: ${description})`, {
          network: 'tiktok',
          networkError: error,
          status,
        });
      }
      const token = answer.body as unknown as TokenAnswer;
      const next: TikTokCredentials = {
        ...credentials,
        accessToken: token.access_token,
        // TikTok may hand back a new refresh token; the old one is then no longer good.
        refreshToken: token.refresh_token || credentials.refreshToken,
        scope: token.scope || credentials.scope,
        refreshExpiresAt: expiresIn(token.refresh_expires_in)?.toISOString() ?? credentials.refreshExpiresAt,
      };
      return { credentials: { ...next }, accessExpiresAt: expiresIn(token.expires_in) };
    },

    async signOut(value) {
      const credentials = asCredentials(value);
      // A token TikTok no longer knows is signed out already: a refusal changes nothing.
      await oauthPost(
        oauthOptions,
        '/v2/oauth/revoke/',
        { client_key: options.clientKey, client_secret: options.clientSecret, token: credentials.accessToken },
        'end the session',
      );
    },

    client(value, onQuota): NetworkClient {
      const credentials = asCredentials(value);
      const api = apiFor(credentials.accessToken, onQuota);

      return {
        async validate(content: PostContent) {
          const offline = validateTikTokPost(content, { audited });
          // A draft is finished in the app, under the creator's settings there.
          if (content.options?.asDraft === true) return offline;
          let creator: CreatorInfo;
          try {
            creator = await creatorInfo(api);
          } catch (error) {
            if (!(error instanceof ChannelRefusedError)) throw error;
            const issues = [
              ...offline.issues,
              { field: 'account', rule: 'creator_cannot_post', message: error.message },
            ];
            return { ...offline, valid: false, issues };
          }
          return validateWithCreator(content, offline, creator);
        },

        async publish(input) {
          const checked = validateTikTokPost(input.content, { audited });
          if (!checked.valid) {
            throw new ValidationError(`The post cannot go to TikTok: ${checked.issues[0]!.message}`, {
              issues: checked.issues,
            });
          }
          return publishVideo(
            {
              api,
              fetch: options.fetch,
              username: credentials.username,
              videoSource: options.videoSource ?? 'FILE_UPLOAD',
              tuning,
            },
            input,
          );
        },

        async remove() {
          throw new ChannelRefusedError(
            `TikTok's API cannot delete a published video: delete it in the TikTok app (the video's ⋯ menu → Delete), signed in as @${credentials.username}`,
            { network: 'tiktok', networkError: 'delete_not_supported', status: 0 },
          );
        },

        metrics: (externalIds) => readMetrics(api, externalIds),
      };
    },

    validateOffline(content) {
      return validateTikTokPost(content, { audited });
    },

    newRecordKey() {
      // TikTok has no record keys: this one only names the post on the platform (16 base32 characters).
      const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
      return [...randomBytes(16)].map((byte) => alphabet[byte % 32]).join('');
    },

    isAuthExpired(error) {
      return error instanceof TikTokAccessExpiredError;
    },
  };
}
