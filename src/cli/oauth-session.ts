/**
 * CLI tokens: `campaignctl login` signs a person in through the platform's own OAuth flow as a native app
 * (the pre-registered `campaignctl` client, a loopback redirect on a random port, PKCE S256), then keeps the
 * tokens in a 0600 file for its own commands (`whoami`, `tools:call`), refreshing them as needed.
 *
 * Discovery starts from the MCP endpoint alone, like any MCP client: protected-resource metadata → the
 * authorization server's metadata.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import * as oauth from 'oauth4webapi';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { CLI_CLIENT_ID } from '../auth/oidc/provider.ts';
import { loopbackAwareFetch } from '../net/loopback-aware-fetch.ts';

export interface StoredCliSession {
  mcpUrl: string;
  issuer: string;
  accessToken: string;
  refreshToken: string | null;
  /** Epoch milliseconds. */
  expiresAt: number;
}

const SCOPE = 'mcp:read mcp:write offline_access';
const client: oauth.Client = { client_id: CLI_CLIENT_ID, token_endpoint_auth_method: 'none' };
const fetchOptions = (insecure: boolean) =>
  ({ [oauth.customFetch]: loopbackAwareFetch, ...(insecure ? { [oauth.allowInsecureRequests]: true } : {}) }) as const;

/** Plain http is only tolerated for loopback names (a local `npm start` stack). */
function insecureAllowed(url: URL): boolean {
  const host = url.hostname;
  return (
    url.protocol === 'http:' &&
    (host === 'localhost' || host.endsWith('.localhost') || host === '127.0.0.1' || host === '[::1]')
  );
}

async function discover(mcpUrl: string): Promise<oauth.AuthorizationServer> {
  const endpoint = new URL(mcpUrl);
  const prm = await loopbackAwareFetch(new URL(`/.well-known/oauth-protected-resource${endpoint.pathname}`, endpoint));
  if (!prm.ok) throw new Error(`No protected-resource metadata at ${endpoint.origin} (HTTP ${prm.status})`);
  const { authorization_servers: servers } = (await prm.json()) as { authorization_servers?: string[] };
  const issuer = new URL(servers?.[0] ?? '');
  const response = await oauth.discoveryRequest(issuer, {
    ...fetchOptions(insecureAllowed(issuer)),
    algorithm: 'oauth2',
  });
  return oauth.processDiscoveryResponse(issuer, response);
}

export async function readSession(file: string, mcpUrl: string): Promise<StoredCliSession | null> {
  try {
    const all = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, StoredCliSession>;
    return all[mcpUrl] ?? null;
  } catch {
    return null;
  }
}

async function writeSession(file: string, session: StoredCliSession | null, mcpUrl: string): Promise<void> {
  let all: Record<string, StoredCliSession> = {};
  try {
    all = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch {
    // first session
  }
  if (session) all[mcpUrl] = session;
  else delete all[mcpUrl];
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await fs.writeFile(file, JSON.stringify(all, null, 2), { mode: 0o600 });
  await fs.chmod(file, 0o600);
}

/**
 * Runs the authorization-code flow: prints the URL to open, waits for the loopback redirect, exchanges the
 * code. `announce` receives the URL (the CLI prints it; tests open it in a browser).
 */
export async function login(options: {
  mcpUrl: string;
  file: string;
  announce(url: string): void;
  timeoutMs?: number;
}): Promise<StoredCliSession> {
  const as = await discover(options.mcpUrl);
  const insecure = insecureAllowed(new URL(as.issuer));
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();

  let resolveCallback!: (url: URL) => void;
  const callback = new Promise<URL>((resolve) => {
    resolveCallback = resolve;
  });
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', connection: 'close' })
      .end('<p>Signed in. You can close this tab and return to the terminal.</p>');
    resolveCallback(url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  try {
    const authorize = new URL(as.authorization_endpoint!);
    authorize.search = new URLSearchParams({
      client_id: CLI_CLIENT_ID,
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: SCOPE,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      resource: options.mcpUrl,
    }).toString();
    options.announce(authorize.toString());
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(
        () => reject(new Error('Timed out waiting for the browser sign-in')),
        options.timeoutMs ?? 5 * 60_000,
      ).unref(),
    );
    const returned = await Promise.race([callback, timeout]);
    const params = oauth.validateAuthResponse(as, client, returned, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      redirectUri,
      verifier,
      {
        ...fetchOptions(insecure),
        additionalParameters: { resource: options.mcpUrl },
      },
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    const session: StoredCliSession = {
      mcpUrl: options.mcpUrl,
      issuer: as.issuer,
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token ?? null,
      expiresAt: Date.now() + (tokens.expires_in ?? 3600) * 1000,
    };
    await writeSession(options.file, session, options.mcpUrl);
    return session;
  } finally {
    server.close();
    // The browser may hold a keep-alive connection open; it must not keep the CLI running.
    server.closeAllConnections();
  }
}

/** The stored session with a fresh access token (refreshed, and the rotated refresh token saved, if needed). */
export async function activeSession(file: string, mcpUrl: string): Promise<StoredCliSession> {
  const session = await readSession(file, mcpUrl);
  if (!session) throw new Error(`Not signed in to ${mcpUrl}; run: campaignctl login`);
  if (session.expiresAt - Date.now() > 60_000) return session;
  if (!session.refreshToken) throw new Error('The session expired; run: campaignctl login');
  const as = await discover(mcpUrl);
  const insecure = insecureAllowed(new URL(as.issuer));
  try {
    const tokens = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), session.refreshToken, fetchOptions(insecure)),
    );
    const refreshed: StoredCliSession = {
      ...session,
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token ?? session.refreshToken,
      expiresAt: Date.now() + (tokens.expires_in ?? 3600) * 1000,
    };
    await writeSession(file, refreshed, mcpUrl);
    return refreshed;
  } catch {
    await writeSession(file, null, mcpUrl);
    throw new Error('The session could not be refreshed (revoked or expired); run: campaignctl login');
  }
}

/** Revokes the stored tokens at the authorization server and forgets them. */
export async function logout(file: string, mcpUrl: string): Promise<boolean> {
  const session = await readSession(file, mcpUrl);
  if (!session) return false;
  const as = await discover(mcpUrl);
  const insecure = insecureAllowed(new URL(as.issuer));
  for (const token of [session.refreshToken, session.accessToken]) {
    if (!token) continue;
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, oauth.None(), token, fetchOptions(insecure)),
    );
  }
  await writeSession(file, null, mcpUrl);
  return true;
}

/** Calls one tool of the MCP server with the stored token, through the MCP client SDK. */
export async function callToolWithSession(file: string, mcpUrl: string, name: string, args: Record<string, unknown>) {
  const session = await activeSession(file, mcpUrl);
  const mcp = new Client({ name: 'campaignctl', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      fetch: loopbackAwareFetch,
      requestInit: { headers: { authorization: `Bearer ${session.accessToken}` } },
    }),
  );
  try {
    return await mcp.callTool({ name, arguments: args });
  } finally {
    await mcp.close();
  }
}
