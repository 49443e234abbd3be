/**
 * An MCP SDK OAuth client provider that keeps everything in memory and records where the SDK would send the
 * person (`authorizationUrl`) instead of opening a browser. It fits the v2 client's `OAuthClientProvider` and,
 * structurally, the v1 SDK's.
 */
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from '@modelcontextprotocol/client';

export class TestOAuthProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  stored?: OAuthTokens;
  verifier?: string;
  discovery?: OAuthDiscoveryState;
  lastState?: string;
  authorizationUrl?: URL;
  private readonly callback: string;
  private readonly metadata: Partial<OAuthClientMetadata>;
  /** `metadata` replaces parts of the registration body (e.g. no `grant_types`, as a minimal client sends). */
  constructor(callback: string, metadata: Partial<OAuthClientMetadata> = {}) {
    this.callback = callback;
    this.metadata = metadata;
  }
  /** Called by the SDK when the authorization server rejects what is stored (e.g. a revoked refresh token). */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.stored = undefined;
    if (scope === 'all' || scope === 'client') this.info = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
  get redirectUrl() {
    return this.callback;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'E2E MCP client',
      redirect_uris: [this.callback],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...this.metadata,
    };
  }
  state() {
    this.lastState = crypto.randomUUID();
    return this.lastState;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: OAuthTokens) {
    this.stored = tokens;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no verifier');
    return this.verifier;
  }
}
