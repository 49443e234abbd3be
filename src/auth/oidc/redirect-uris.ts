/**
 * The one rule for which redirect URIs a client may register (dynamic registration, client ID metadata
 * documents and static clients alike — the provider applies it whenever it builds a client, see provider.ts).
 *
 * A redirect URI is where the authorization server hands over a code, so it must be a place only the client
 * controls:
 * - `https:` to any host (the host's TLS certificate proves who receives the code);
 * - `http:` only to the loopback interface of the person's own machine — the IP literals `127.0.0.1` and
 *   `[::1]`, or `localhost` (RFC 8252 §7.3, §8.3). Plain http to any other host (a LAN address, a look-alike
 *   such as `localhost.evil.example`) sends the code in clear to whoever answers;
 * - a private-use scheme only in reverse-domain form, e.g. `com.example.app:/callback` (RFC 8252 §7.1), so
 *   an app cannot squat a short generic scheme another app also claims;
 * - never userinfo (`https://a@evil.example/` reads as one host to a person and is another to a browser),
 *   never a fragment (RFC 6749 §3.1.2), never a scheme that runs or reads something locally (`javascript:`,
 *   `data:`, `file:`…).
 */

/** Hostnames that are the person's own machine; loopback redirects of native apps match on any port here. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Schemes that execute or read content inside the browser or on the device instead of reaching an app. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'vbscript:', 'data:', 'blob:', 'file:', 'about:', 'filesystem:']);

/** RFC 3986 scheme syntax with at least one dot: a reversed domain name such as `com.example.app`. */
const REVERSE_DOMAIN_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9][a-z0-9+-]*)+:$/;

export type RedirectUriKind = 'https' | 'loopback' | 'private-use';

/**
 * Classifies a redirect URI, or explains why it is refused. The explanation is what the client sees as
 * `error_description`, so it names the URI and the rule.
 */
export function checkRedirectUri(uri: unknown): { kind: RedirectUriKind } | { problem: string } {
  if (typeof uri !== 'string' || uri.length === 0) return { problem: 'redirect_uris must only contain strings' };
  const shown = JSON.stringify(uri.length > 200 ? `${uri.slice(0, 200)}…` : uri);
  const url = URL.parse(uri);
  if (!url) return { problem: `redirect_uris must be absolute URIs; ${shown} is not` };
  if (uri.includes('#')) return { problem: `redirect_uris must not contain a fragment (${shown})` };
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(uri)) {
    return { problem: `redirect_uris must not contain userinfo (user@host), as in ${shown}` };
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol)) {
    return { problem: `redirect_uris must not use the ${url.protocol.slice(0, -1)}: scheme (${shown})` };
  }
  if (url.protocol === 'https:') {
    if (!url.hostname) return { problem: `redirect_uris with https must name a host (${shown})` };
    return { kind: 'https' };
  }
  if (url.protocol === 'http:') {
    if (LOOPBACK_HOSTS.has(url.hostname)) return { kind: 'loopback' };
    return {
      problem:
        `redirect_uris may use plain http only for the loopback addresses 127.0.0.1, [::1] or localhost ` +
        `(RFC 8252 §7.3); use https for ${shown}`,
    };
  }
  if (REVERSE_DOMAIN_SCHEME.test(url.protocol)) return { kind: 'private-use' };
  return {
    problem:
      `redirect_uris with a private-use scheme must use a reverse domain name such as ` +
      `com.example.app:/callback (RFC 8252 §7.1); ${shown} does not`,
  };
}

/** The first problem among a client's redirect URIs, or undefined when every one is acceptable. */
export function redirectUrisProblem(uris: unknown): string | undefined {
  if (uris === undefined) return undefined; // "missing" is the provider's own check (redirect_uris is required)
  if (!Array.isArray(uris)) return 'redirect_uris must be an array';
  for (const uri of uris) {
    const outcome = checkRedirectUri(uri);
    if ('problem' in outcome) return outcome.problem;
  }
  return undefined;
}

/**
 * True when every redirect URI lands on the person's own device (loopback http or an app's private-use
 * scheme): such a client is a native app (RFC 8252), whose loopback redirects match on any port.
 */
export function nativeOnly(redirectUris: unknown): boolean {
  if (!Array.isArray(redirectUris) || redirectUris.length === 0) return false;
  return redirectUris.every((uri) => {
    const outcome = checkRedirectUri(uri);
    return 'kind' in outcome && outcome.kind !== 'https';
  });
}
