/**
 * Bluesky (the AT Protocol) behind the channel adapter interface, with `@atproto/api` and nothing else that
 * knows about the network: the configured service URL (`BLUESKY_SERVICE_URL`, bsky.social by default) is
 * where accounts sign in, and each account's own server (its PDS, named by its DID document) is where its
 * posts are written.
 *
 * - **Sign-in** is an app password (`com.atproto.server.createSession`); an account's main password is
 *   refused, as it would give the platform the whole account. Access tokens last about two hours and are
 *   refreshed ahead of expiry with the refresh token (which rotates); when the refresh token is refused, the
 *   app password signs in again; when that is refused too, only a person can help (`CredentialsRefusedError`).
 * - **Publishing** writes `app.bsky.feed.post` under the record key the platform chose (`putRecord`), so a
 *   retried publish is the same record, never a second post. Images are uploaded as blobs first (a blob is
 *   content-addressed: uploading it again is the same blob).
 * - **Limits**: a 429 is `RateLimitedError` with the wait the server names (`RateLimit-Reset`); every answer's
 *   `RateLimit-*` headers are reported to the account's quota.
 * - Every connection goes through the SSRF guard (`net/safe-fetch.ts`): the PDS URL comes from the account's
 *   DID document, which its owner controls.
 */
import { Agent, AtUri, XRPCError, type AppBskyEmbedImages, type BlobRef } from '@atproto/api';
import { TID } from '@atproto/common-web';
import { randomInt } from 'node:crypto';
import { FetchRefusedError } from '../../../net/safe-fetch.ts';
import { ChannelRefusedError, RateLimitedError, UnavailableError, ValidationError } from '../../../errors.ts';
import type {
  ChannelAdapter,
  ConnectedIdentity,
  CredentialState,
  NetworkClient,
  NetworkCredentials,
  PostContent,
  QuotaObserver,
} from '../channel-adapter.ts';
import { CredentialsRefusedError } from '../channel-adapter.ts';
import type { ChannelQuota } from '../channel-account.entity.ts';
import { unknownMetrics, type ChannelMetricCounts } from '../channel-networks.ts';
import {
  BLUESKY_POST_OPTIONS,
  BLUESKY_RULES,
  composePost,
  POST_COLLECTION,
  resolveMentions,
  validateBlueskyPost,
  withResolvedMentions,
} from './bluesky-post.ts';

/** Where people see a post: Bluesky's web app, by the author's DID (stable when the handle changes). */
const APP_URL = 'https://bsky.app';
/** `app.bsky.feed.getPosts` takes at most this many URIs. */
const METRICS_BATCH = 25;

/** What is sealed for a Bluesky account. */
interface BlueskyCredentials {
  appPassword: string;
  accessJwt: string;
  refreshJwt: string;
  did: string;
  handle: string;
  /** The account's own server (from its DID document), where its records are written. */
  pdsUrl: string;
}

/** An access token refused as expired or invalid: refresh and try once more. */
class AccessExpiredError extends Error {
  constructor() {
    super('The Bluesky access token was refused');
    this.name = 'AccessExpiredError';
  }
}

function asCredentials(value: NetworkCredentials): BlueskyCredentials {
  const credentials = value as Partial<BlueskyCredentials>;
  for (const field of ['appPassword', 'accessJwt', 'refreshJwt', 'did', 'handle', 'pdsUrl'] as const) {
    if (typeof credentials[field] !== 'string') throw new Error(`Bluesky credentials lack ${field}`);
  }
  return credentials as BlueskyCredentials;
}

/** The claims of a token the server issued us (read, not verified: we only need its scope and expiry). */
function jwtClaims(token: string): { exp?: number; scope?: string } {
  try {
    return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      exp?: number;
      scope?: string;
    };
  } catch {
    return {};
  }
}

function expiryOf(accessJwt: string): Date | null {
  const exp = jwtClaims(accessJwt).exp;
  return typeof exp === 'number' ? new Date(exp * 1000) : null;
}

/** The `#atproto_pds` endpoint of a DID document, if it names one. */
function pdsOf(didDoc: unknown): string | null {
  const services = (didDoc as { service?: { id?: string; type?: string; serviceEndpoint?: unknown }[] })?.service;
  const pds = services?.find(
    (service) => service.id === '#atproto_pds' || service.type === 'AtprotoPersonalDataServer',
  );
  return typeof pds?.serviceEndpoint === 'string' ? pds.serviceEndpoint.replace(/\/+$/, '') : null;
}

/** The `RateLimit-*` headers (draft-ietf-httpapi-ratelimit-headers, as the PDS sends them). */
export function quotaOf(
  headers: Headers | Record<string, string | undefined> | undefined,
  now = new Date(),
): ChannelQuota | null {
  if (!headers) return null;
  const get = (name: string) =>
    headers instanceof Headers ? headers.get(name) : (headers[name] ?? headers[name.toLowerCase()] ?? null);
  const present = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'].map(get);
  // An absent header is no figure (Number(null) would read it as 0).
  if (present.some((value) => value === null || value.trim() === '')) return null;
  const [limit, remaining, reset] = present.map(Number) as [number, number, number];
  if (![limit, remaining, reset].every(Number.isFinite)) return null;
  // The PDS sends the reset as a Unix time in seconds; the draft standard as seconds from now. Tell them apart.
  const resetAt = reset > 1_000_000_000 ? new Date(reset * 1000) : new Date(now.getTime() + reset * 1000);
  return {
    policy: get('ratelimit-policy'),
    limit,
    remaining,
    resetAt: resetAt.toISOString(),
    observedAt: now.toISOString(),
  };
}

function retryAfterSeconds(headers: Record<string, string | undefined> | undefined): number {
  const quota = quotaOf(headers);
  if (quota) return Math.max(1, Math.ceil((Date.parse(quota.resetAt) - Date.now()) / 1000));
  const retryAfter = Number(headers?.['retry-after']);
  return Number.isFinite(retryAfter) && retryAfter > 0 ? Math.ceil(retryAfter) : 60;
}

/** A guard refusal that waiting cannot fix (an address or port the platform may not reach). */
function isPermanentRefusal(error: FetchRefusedError): boolean {
  return !['timeout', 'connection_failed', 'dns_failure', 'too_large'].includes(error.reason);
}

/**
 * Turns what `@atproto/api` threw into the platform's errors. `doing` completes "Bluesky refused to …" and
 * "Bluesky did not answer when asked to …".
 */
function translate(error: unknown, doing: string): never {
  const cause = error instanceof XRPCError ? error.cause : error;
  if (cause instanceof FetchRefusedError) {
    if (isPermanentRefusal(cause)) {
      throw new ChannelRefusedError(`Bluesky cannot be reached to ${doing}: ${cause.message}`, {
        network: 'bluesky',
        networkError: cause.reason,
        status: 0,
      });
    }
    throw new UnavailableError(`Bluesky did not answer when asked to ${doing} (${cause.message}); try again later`);
  }
  if (!(error instanceof XRPCError)) throw error;
  if (error.status === 429) {
    const wait = retryAfterSeconds(error.headers);
    throw new RateLimitedError(`Bluesky's rate limit is used up; it allows ${doing} again in ${wait} s`, wait);
  }
  if (error.error === 'ExpiredToken' || error.error === 'InvalidToken' || error.status === 401) {
    throw new AccessExpiredError();
  }
  if (error.status === 1 || error.status >= 500) {
    throw new UnavailableError(
      `Bluesky did not answer when asked to ${doing} (${error.status === 1 ? 'no response' : `HTTP ${error.status} ${error.error}`}); try again later`,
    );
  }
  throw new ChannelRefusedError(`Bluesky refused to ${doing}: ${error.message || error.error}`, {
    network: 'bluesky',
    networkError: error.error,
    status: error.status,
  });
}

async function attempt<T>(doing: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    translate(error, doing);
  }
}

export interface BlueskyAdapterOptions {
  /** Where accounts sign in: an entryway (https://bsky.social) or a PDS. */
  serviceUrl: string;
  /** The guarded fetch every request goes through (`SafeFetch.apiFetch`). */
  fetch: typeof globalThis.fetch;
}

export function createBlueskyAdapter(options: BlueskyAdapterOptions): ChannelAdapter {
  const { serviceUrl } = options;

  /** An agent whose requests go to `origin`, through the guard, with the access token when there is one. */
  function agentFor(origin: string, accessJwt: string | null, onQuota?: QuotaObserver): Agent {
    return new Agent(async (path: string, init: RequestInit) => {
      const headers = new Headers(init.headers);
      if (accessJwt) headers.set('authorization', `Bearer ${accessJwt}`);
      const response = await options.fetch(new URL(path, origin), { ...init, headers });
      const quota = onQuota ? quotaOf(response.headers) : null;
      if (quota) onQuota!(quota);
      return response;
    });
  }

  /** Signs in with the app password at the configured service. */
  async function signIn(identifier: string, appPassword: string, connecting: boolean): Promise<ConnectedIdentity> {
    const agent = agentFor(serviceUrl, null);
    let session;
    try {
      session = (await agent.com.atproto.server.createSession({ identifier, password: appPassword })).data;
    } catch (error) {
      if (error instanceof XRPCError && (error.status === 401 || error.error === 'AuthFactorTokenRequired')) {
        const why =
          error.error === 'AuthFactorTokenRequired'
            ? 'that is the account password of an account with two-factor sign-in; use an app password'
            : 'the handle or app password is wrong, or the app password was revoked';
        if (connecting) throw new ValidationError(`Bluesky refused the sign-in: ${why}`, { field: 'secret' });
        throw new CredentialsRefusedError(
          `Bluesky refused the app password: ${why}. Reconnect the account with a new app password.`,
        );
      }
      if (error instanceof XRPCError && ['AccountTakedown', 'AccountDeactivated'].includes(error.error)) {
        const why = `the account is ${error.error === 'AccountTakedown' ? 'taken down' : 'deactivated'} on Bluesky`;
        if (connecting) throw new ValidationError(`Bluesky refused the sign-in: ${why}`, { field: 'identifier' });
        throw new CredentialsRefusedError(`Bluesky refused the sign-in: ${why}.`);
      }
      translate(error, 'sign in');
    }
    const scope = jwtClaims(session.accessJwt).scope;
    if (scope === 'com.atproto.access') {
      // A full session can change the password and mint app passwords: the platform never holds one.
      throw new ValidationError(
        "That is the account's own password. Create an app password in Bluesky (Settings → Privacy and security → App passwords) and connect with it",
        { field: 'secret' },
      );
    }
    const credentials: BlueskyCredentials = {
      appPassword,
      accessJwt: session.accessJwt,
      refreshJwt: session.refreshJwt,
      did: session.did,
      handle: session.handle,
      pdsUrl: pdsOf(session.didDoc) ?? serviceUrl,
    };
    let displayName: string | null = null;
    if (connecting) {
      // The profile comes from the AppView through the PDS; without one the account still connects.
      displayName = await agentFor(credentials.pdsUrl, credentials.accessJwt)
        .app.bsky.actor.getProfile({ actor: credentials.did })
        .then((profile) => profile.data.displayName?.trim() || null)
        .catch(() => null);
    }
    return {
      externalId: session.did,
      handle: session.handle,
      displayName,
      credentials: { ...credentials },
      accessExpiresAt: expiryOf(session.accessJwt),
    };
  }

  return {
    network: 'bluesky',
    rules: BLUESKY_RULES,
    postOptions: BLUESKY_POST_OPTIONS,

    async connect(request) {
      const identifier = request.identifier.trim().replace(/^@/, '');
      if (!identifier)
        throw new ValidationError('Enter the Bluesky handle (name.bsky.social) or DID', { field: 'identifier' });
      if (!request.secret.trim()) throw new ValidationError('Enter an app password', { field: 'secret' });
      return signIn(identifier, request.secret.trim(), true);
    },

    async refresh(value): Promise<CredentialState> {
      const credentials = asCredentials(value);
      try {
        const session = (await agentFor(credentials.pdsUrl, credentials.refreshJwt).com.atproto.server.refreshSession())
          .data;
        const next: BlueskyCredentials = {
          ...credentials,
          accessJwt: session.accessJwt,
          refreshJwt: session.refreshJwt,
          handle: session.handle,
          pdsUrl: pdsOf(session.didDoc) ?? credentials.pdsUrl,
        };
        return { credentials: { ...next }, accessExpiresAt: expiryOf(session.accessJwt) };
      } catch (error) {
        try {
          translate(error, 'refresh the session');
        } catch (translated) {
          // Waiting helps these; a refused refresh token does not, but the app password may.
          if (!(translated instanceof AccessExpiredError) && !(translated instanceof ChannelRefusedError))
            throw translated;
        }
      }
      const signedIn = await signIn(credentials.did, credentials.appPassword, false);
      return { credentials: signedIn.credentials, accessExpiresAt: signedIn.accessExpiresAt };
    },

    async signOut(value) {
      const credentials = asCredentials(value);
      // Revokes the refresh token (and so the session); the app password itself stays the account owner's to revoke.
      await attempt('end the session', () =>
        agentFor(credentials.pdsUrl, credentials.refreshJwt).com.atproto.server.deleteSession(),
      );
    },

    client(value, onQuota): NetworkClient {
      const credentials = asCredentials(value);
      const agent = agentFor(credentials.pdsUrl, credentials.accessJwt, onQuota);
      const resolveHandle = (handle: string) =>
        agent.com.atproto.identity
          .resolveHandle({ handle })
          .then((answer) => answer.data.did as string)
          .catch((error: unknown) => {
            // An unknown handle is an answer (no such account); anything else is the network's trouble.
            if (error instanceof XRPCError && error.status === 400) return null;
            return translate(error, 'look up a mentioned handle');
          });

      return {
        async validate(content: PostContent) {
          const composed = composePost(content);
          const result = validateBlueskyPost(content, composed);
          const { facets, unresolved } = await resolveMentions(composed, resolveHandle);
          return withResolvedMentions(result, composed, facets, unresolved);
        },

        async publish({ content, recordKey, createdAt, loadMedia }) {
          const composed = composePost(content);
          const { facets } = await resolveMentions(composed, resolveHandle);
          const images: AppBskyEmbedImages.Image[] = [];
          for (const media of content.media) {
            const bytes = await loadMedia(media.key);
            const blob: BlobRef = await attempt(
              'take the image',
              async () => (await agent.com.atproto.repo.uploadBlob(bytes, { encoding: media.mimeType })).data.blob,
            );
            images.push({ image: blob, alt: media.alt, aspectRatio: { width: media.width, height: media.height } });
          }
          const record = {
            $type: POST_COLLECTION,
            text: composed.text,
            ...(facets.length ? { facets } : {}),
            ...(content.langs.length ? { langs: content.langs } : {}),
            ...(images.length ? { embed: { $type: 'app.bsky.embed.images', images } } : {}),
            createdAt: createdAt.toISOString(),
          };
          const written = await attempt(
            'publish the post',
            async () =>
              (
                await agent.com.atproto.repo.putRecord({
                  repo: credentials.did,
                  collection: POST_COLLECTION,
                  rkey: recordKey,
                  record,
                })
              ).data,
          );
          return { externalId: written.uri, externalUrl: `${APP_URL}/profile/${credentials.did}/post/${recordKey}` };
        },

        async remove(externalId) {
          const uri = new AtUri(externalId);
          // deleteRecord of a record that is not there succeeds: deleting twice is deleting once.
          await attempt('delete the post', () =>
            agent.com.atproto.repo.deleteRecord({ repo: credentials.did, collection: uri.collection, rkey: uri.rkey }),
          );
        },

        async metrics(externalIds) {
          const found = new Map<string, ChannelMetricCounts>();
          for (let start = 0; start < externalIds.length; start += METRICS_BATCH) {
            const uris = externalIds.slice(start, start + METRICS_BATCH);
            const { data } = await attempt('read the posts’ engagement', () =>
              agent.app.bsky.feed.getPosts({ uris: [...uris] }),
            );
            for (const post of data.posts) {
              found.set(post.uri, {
                ...unknownMetrics(),
                likes: post.likeCount ?? 0,
                reposts: post.repostCount ?? 0,
                replies: post.replyCount ?? 0,
                quotes: post.quoteCount ?? 0,
                bookmarks: typeof post.bookmarkCount === 'number' ? post.bookmarkCount : null,
              });
            }
          }
          return found;
        },
      };
    },

    validateOffline(content) {
      return validateBlueskyPost(content);
    },

    newRecordKey(now) {
      // A TID of the moment with random microseconds and clock id: unique in practice, and the database's
      // unique (account, record key) index catches the rest.
      return TID.fromTime(now.getTime() * 1000 + randomInt(1000), randomInt(1024)).toString();
    },

    isAuthExpired(error) {
      return error instanceof AccessExpiredError;
    },
  };
}
