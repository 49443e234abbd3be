/**
 * The OAuth authorization-code flow driven over plain HTTP with a cookie jar (the same requests a browser
 * makes: authorize → sign-in form → consent form → redirect), for the many security tests that need codes.
 * The full flow with a real browser lives in the e2e tests.
 */
import { createHash, randomBytes } from 'node:crypto';
import { CookieJar } from 'tough-cookie';
import { testFetch } from './http.ts';

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export class Browserless {
  readonly jar = new CookieJar();

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = await this.jar.getCookieString(url);
    if (cookie) headers.set('cookie', cookie);
    const response = await testFetch(url, { ...init, headers, redirect: 'manual' });
    for (const setCookie of response.headers.getSetCookie()) await this.jar.setCookie(setCookie, url);
    return response;
  }

  /** Follows redirects until a page answers or a redirect leaves `stayOn` (returned unfollowed). */
  async follow(url: string, stayOn: string, init: RequestInit = {}): Promise<{ response: Response; url: string }> {
    let current = url;
    let response = await this.fetch(current, init);
    for (let hops = 0; hops < 10 && response.status >= 300 && response.status < 400; hops += 1) {
      const location = new URL(response.headers.get('location')!, current).toString();
      if (!location.startsWith(stayOn)) return { response, url: location };
      current = location;
      response = await this.fetch(current);
    }
    return { response, url: current };
  }
}

function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error(`no CSRF token in page:\n${html.slice(0, 500)}`);
  return match[1]!;
}

function formPost(body: Record<string, string>): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body).toString(),
  };
}

export interface AuthorizeOptions {
  authUrl: string;
  clientId: string;
  redirectUri: string;
  scope?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  resource?: string;
  state?: string;
  email: string;
  password: string;
  /** Workspace to pick on the consent page. */
  workspaceId: string;
  browser?: Browserless;
  extra?: Record<string, string>;
}

/**
 * Runs authorize → sign-in → consent and returns where the authorization server finally sent the browser
 * (the client's redirect URI with `code`/`state`/`iss`, or with `error`), plus the page when it stopped on one.
 */
export async function authorizeOverHttp(
  options: AuthorizeOptions,
): Promise<{ redirect: URL | null; page: Response | null; browser: Browserless }> {
  const browser = options.browser ?? new Browserless();
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    scope: options.scope ?? 'mcp:read mcp:write',
    state: options.state ?? randomBytes(8).toString('hex'),
    ...(options.codeChallenge
      ? { code_challenge: options.codeChallenge, code_challenge_method: options.codeChallengeMethod ?? 'S256' }
      : {}),
    ...(options.resource ? { resource: options.resource } : {}),
    ...(options.extra ?? {}),
  });
  return completeAuthorization(`${options.authUrl}/oauth/authorize?${params}`, { ...options, browser });
}

/**
 * Opens an authorization URL someone else built (e.g. an MCP SDK's `redirectToAuthorization`) and signs in
 * and consents like `authorizeOverHttp`.
 */
export async function completeAuthorization(
  authorizationUrl: string,
  options: Pick<AuthorizeOptions, 'authUrl' | 'email' | 'password' | 'workspaceId' | 'browser'>,
): Promise<{ redirect: URL | null; page: Response | null; browser: Browserless }> {
  const browser = options.browser ?? new Browserless();
  let step = await browser.follow(authorizationUrl, options.authUrl);
  for (let round = 0; round < 4; round += 1) {
    if (!step.url.startsWith(options.authUrl)) return { redirect: new URL(step.url), page: null, browser };
    if (step.response.status !== 200 || !step.url.includes('/interaction/'))
      return { redirect: null, page: step.response, browser };
    const html = await step.response.text();
    const uid = /\/interaction\/([^/?#]+)/.exec(step.url)![1]!;
    if (html.includes(`action="/interaction/${uid}/login"`)) {
      step = await browser.follow(
        `${options.authUrl}/interaction/${uid}/login`,
        options.authUrl,
        formPost({ _csrf: csrfOf(html), email: options.email, password: options.password }),
      );
    } else if (html.includes(`action="/interaction/${uid}/confirm"`)) {
      step = await browser.follow(
        `${options.authUrl}/interaction/${uid}/confirm`,
        options.authUrl,
        formPost({ _csrf: csrfOf(html), workspace: options.workspaceId, decision: 'allow' }),
      );
    } else {
      return { redirect: null, page: new Response(html, { status: step.response.status }), browser };
    }
  }
  throw new Error('the authorization flow did not finish');
}

/**
 * The whole authorization-code round trip with PKCE: authorize (sign in, consent) and exchange the code at
 * the token endpoint, with `resource` in both requests when given. Returns the token response as it came
 * (the caller asserts its status) with the code and verifier, for tests that replay them.
 */
export async function authorizationCodeTokens(
  options: Omit<AuthorizeOptions, 'codeChallenge' | 'codeChallengeMethod'>,
): Promise<{ status: number; json: Record<string, any>; code: string; verifier: string }> {
  const { verifier, challenge } = pkce();
  const { redirect } = await authorizeOverHttp({ ...options, codeChallenge: challenge });
  const code = redirect!.searchParams.get('code')!;
  const { status, json } = await tokenRequest(options.authUrl, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: options.redirectUri,
    client_id: options.clientId,
    code_verifier: verifier,
    ...(options.resource ? { resource: options.resource } : {}),
  });
  return { status, json, code, verifier };
}

export async function registerClient(
  authUrl: string,
  body: Record<string, unknown>,
): Promise<{ status: number; json: Record<string, any> }> {
  const response = await testFetch(`${authUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, any> };
}

export async function tokenRequest(
  authUrl: string,
  body: Record<string, string>,
): Promise<{ status: number; json: Record<string, any>; headers: Headers }> {
  const response = await testFetch(`${authUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body).toString(),
  });
  return { status: response.status, json: (await response.json()) as Record<string, any>, headers: response.headers };
}

export async function revoke(authUrl: string, body: Record<string, string>): Promise<number> {
  const response = await testFetch(`${authUrl}/oauth/token/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body).toString(),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Calls `tools/call get_platform_info organization` with a bearer token; returns status, body and headers. */
export async function callWithBearer(mcpUrl: string, token: string, headers: Record<string, string> = {}) {
  const response = await testFetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_platform_info', arguments: { topic: 'organization' } },
    }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
}
