/**
 * Connecting Facebook Pages and Instagram accounts with Facebook Login (the manually built login flow), and
 * keeping their tokens alive.
 *
 * - The person is sent to Meta's Login dialog with the platform's scopes; Meta sends them back with a code,
 *   which is exchanged (`GET /oauth/access_token`) for a short-lived user token, then for a long-lived one
 *   (`grant_type=fb_exchange_token`, about 60 days). PKCE (`code_challenge` / `code_verifier`) is sent as Meta's
 *   OIDC-with-PKCE guide documents it; the app secret is sent too (the platform is a confidential client).
 * - `GET /me/accounts` lists the Pages the person granted, each with its Page access token (long-lived when it
 *   comes from a long-lived user token) and the Instagram professional account linked to it: one identity per
 *   Page and one per Instagram account. A Page without an access token in the answer (the person has no task
 *   on it that allows posting) is left out.
 * - A refresh exchanges the long-lived user token again and re-reads the Page token; Meta refusing the user
 *   token (code 190) is for a person to fix (`CredentialsRefusedError`).
 */
import { ValidationError } from '../../../errors.ts';
import type { ConnectedIdentity, CredentialState, NetworkCredentials, OAuthConnect } from '../channel-adapter.ts';
import { CredentialsRefusedError } from '../channel-adapter.ts';
import { GraphApiError, isRateLimit, translate, type Graph } from './meta-graph.ts';

/** Meta's message without its closing full stop, to be followed by the platform's advice. */
const sentence = (message: string) => message.replace(/\.+$/, '');

/** Meta refusing a token, a code or the app: a 4xx that is neither a rate limit nor transient. */
function isRefusal(error: unknown): error is GraphApiError {
  return (
    error instanceof GraphApiError &&
    !isRateLimit(error) &&
    !error.error.is_transient &&
    error.status >= 400 &&
    error.status < 500
  );
}

/** What the platform asks Meta for (operators list these when registering the app). */
export const META_SCOPES = [
  'pages_show_list',
  'pages_read_engagement',
  'pages_manage_posts',
  'read_insights',
  'instagram_basic',
  'instagram_content_publish',
  'instagram_manage_insights',
  'business_management',
] as const;

/** What is sealed for a Page or an Instagram account (both are reached with the Page's token). */
export interface MetaCredentials {
  /** The person's long-lived user token: what a refresh exchanges. */
  userAccessToken: string;
  /** When it expires (ISO), or null when Meta did not say. */
  userTokenExpiresAt: string | null;
  pageId: string;
  /** The Page access token every Graph call for the account uses. */
  pageAccessToken: string;
  /** The Instagram professional account (Instagram accounts only). */
  igUserId?: string;
}

export function asCredentials(value: NetworkCredentials): MetaCredentials {
  const credentials = value as Partial<MetaCredentials>;
  for (const field of ['userAccessToken', 'pageId', 'pageAccessToken'] as const) {
    if (typeof credentials[field] !== 'string') throw new Error(`Meta credentials lack ${field}`);
  }
  return credentials as MetaCredentials;
}

interface TokenAnswer {
  access_token: string;
  token_type?: string;
  expires_in?: number;
}

interface PageAnswer {
  id: string;
  name?: string;
  username?: string;
  access_token?: string;
  instagram_business_account?: { id: string; username?: string; name?: string };
}

interface Paged<T> {
  data: T[];
  paging?: { cursors?: { after?: string }; next?: string };
}

/** Fields of each granted Page: its token and the Instagram professional account linked to it. */
const PAGE_FIELDS = 'id,name,username,access_token,instagram_business_account{id,username,name}';
/** `/me/accounts` is paged; nobody manages more Pages than this through one sign-in. */
const MAX_PAGE_BATCHES = 10;

export interface MetaOAuthOptions {
  graph: Graph;
  dialogUrl: string;
  graphVersion: string;
  appId: string;
  appSecret: string;
  now: () => Date;
}

export function createMetaOAuth(options: MetaOAuthOptions) {
  const { graph } = options;
  const configured = options.appId.trim() !== '' && options.appSecret.trim() !== '';

  function requireConfigured(): void {
    if (!configured) {
      throw new ValidationError(
        'Meta is not set up on this platform: the operator must register a Meta app (developers.facebook.com, Facebook Login for Business) and set META_APP_ID and META_APP_SECRET',
        { field: 'network' },
      );
    }
  }

  function expiryOf(answer: TokenAnswer): string | null {
    if (typeof answer.expires_in !== 'number' || answer.expires_in <= 0) return null;
    return new Date(options.now().getTime() + answer.expires_in * 1000).toISOString();
  }

  /** The request that exchanges a user token (short- or long-lived) for a long-lived one. */
  function extension(userToken: string) {
    return {
      path: 'oauth/access_token',
      query: {
        grant_type: 'fb_exchange_token',
        client_id: options.appId,
        client_secret: options.appSecret,
        fb_exchange_token: userToken,
      },
    };
  }

  async function grantedPages(userToken: string): Promise<PageAnswer[]> {
    const pages: PageAnswer[] = [];
    let after: string | undefined;
    for (let batch = 0; batch < MAX_PAGE_BATCHES; batch++) {
      const answer = await graph.call<Paged<PageAnswer>>('list the Pages you granted', {
        path: 'me/accounts',
        token: userToken,
        query: { fields: PAGE_FIELDS, limit: 100, after },
      });
      pages.push(...answer.data);
      after = answer.paging?.next ? answer.paging.cursors?.after : undefined;
      if (!after) break;
    }
    return pages;
  }

  function identitiesOf(pages: PageAnswer[], user: TokenAnswer): ConnectedIdentity[] {
    const userTokenExpiresAt = expiryOf(user);
    const accessExpiresAt = userTokenExpiresAt ? new Date(userTokenExpiresAt) : null;
    const identities: ConnectedIdentity[] = [];
    for (const page of pages) {
      if (!page.access_token) continue;
      const base: MetaCredentials = {
        userAccessToken: user.access_token,
        userTokenExpiresAt,
        pageId: page.id,
        pageAccessToken: page.access_token,
      };
      identities.push({
        externalId: page.id,
        handle: page.username || page.name || page.id,
        displayName: page.name ?? null,
        kind: 'facebook_page',
        credentials: { ...base },
        accessExpiresAt,
      });
      const ig = page.instagram_business_account;
      if (ig?.id) {
        identities.push({
          externalId: ig.id,
          handle: ig.username || ig.id,
          displayName: ig.name ?? null,
          kind: 'instagram',
          credentials: { ...base, igUserId: ig.id },
          accessExpiresAt,
        });
      }
    }
    return identities;
  }

  const oauth: OAuthConnect = {
    configured,
    scopes: META_SCOPES,

    authorizationUrl({ state, redirectUri, codeChallenge }) {
      requireConfigured();
      const url = new URL(`${options.dialogUrl.replace(/\/+$/, '')}/${options.graphVersion}/dialog/oauth`);
      url.searchParams.set('client_id', options.appId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('state', state);
      url.searchParams.set('scope', META_SCOPES.join(','));
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('code_challenge', codeChallenge);
      url.searchParams.set('code_challenge_method', 'S256');
      return url.toString();
    },

    async completeAuthorization({ code, redirectUri, codeVerifier }) {
      requireConfigured();
      const restart = 'Start again from Channels → Connect Meta.';
      let short: TokenAnswer;
      try {
        short = await graph.request<TokenAnswer>({
          path: 'oauth/access_token',
          query: {
            client_id: options.appId,
            client_secret: options.appSecret,
            redirect_uri: redirectUri,
            code,
            code_verifier: codeVerifier,
          },
        });
      } catch (error) {
        if (isRefusal(error)) {
          throw new ValidationError(`Meta refused the sign-in (${error.message}). ${restart}`, { field: 'code' });
        }
        translate(error, 'exchange the sign-in code');
      }
      let long: TokenAnswer;
      try {
        long = await graph.request<TokenAnswer>(extension(short.access_token));
      } catch (error) {
        if (isRefusal(error)) {
          throw new ValidationError(`Meta refused to extend the sign-in (${error.message}). ${restart}`, {
            field: 'code',
          });
        }
        translate(error, 'extend the sign-in');
      }
      return identitiesOf(await grantedPages(long.access_token), long);
    },
  };

  async function refresh(value: NetworkCredentials): Promise<CredentialState> {
    const credentials = asCredentials(value);
    const reconnect = 'Reconnect the account (Channels → Connect Meta).';
    let user: TokenAnswer;
    try {
      user = await graph.request<TokenAnswer>(extension(credentials.userAccessToken));
    } catch (error) {
      if (isRefusal(error)) {
        throw new CredentialsRefusedError(
          `Meta refused to renew the sign-in: ${sentence(error.message)}. ${reconnect}`,
        );
      }
      translate(error, 'renew the sign-in');
    }
    let page: { id: string; access_token?: string };
    try {
      page = await graph.request({
        path: credentials.pageId,
        token: user.access_token,
        query: { fields: 'access_token' },
      });
    } catch (error) {
      if (isRefusal(error)) {
        throw new CredentialsRefusedError(`Meta refused the Page's token: ${sentence(error.message)}. ${reconnect}`);
      }
      translate(error, "read the Page's token");
    }
    if (!page.access_token) {
      throw new CredentialsRefusedError(
        `Meta no longer gives the platform a token for this Page (the person who connected it lost their role on it, or removed the permission). ${reconnect}`,
      );
    }
    const userTokenExpiresAt = expiryOf(user);
    const next: MetaCredentials = {
      ...credentials,
      userAccessToken: user.access_token,
      userTokenExpiresAt,
      pageAccessToken: page.access_token,
    };
    return { credentials: { ...next }, accessExpiresAt: userTokenExpiresAt ? new Date(userTokenExpiresAt) : null };
  }

  return { oauth, refresh };
}
