import { checkRedirectUri, nativeOnly, redirectUrisProblem } from '../../src/auth/oidc/redirect-uris.ts';

describe('redirect URI rule (RFC 8252 §7, RFC 6749 §3.1.2)', () => {
  it.each([
    ['https://app.example.com/callback', 'https'],
    ['https://app.example.com:8443/cb?x=1', 'https'],
    ['http://127.0.0.1/callback', 'loopback'],
    ['http://127.0.0.1:45123/callback', 'loopback'],
    ['http://[::1]:8080/cb', 'loopback'],
    ['http://localhost:8765/cb', 'loopback'],
    ['http://LOCALHOST:8765/cb', 'loopback'],
    ['com.example.app:/oauth2redirect', 'private-use'],
    ['com.example.app://callback', 'private-use'],
    ['io.github.some-tool.cli:/cb', 'private-use'],
  ])('accepts %s as %s', (uri, kind) => {
    expect(checkRedirectUri(uri)).toEqual({ kind });
  });

  it.each([
    ['http://evil.example/cb', /plain http only for the loopback addresses/],
    ['http://10.0.0.1/cb', /plain http only for the loopback addresses/],
    ['http://192.168.1.20:8080/cb', /plain http only for the loopback addresses/],
    ['http://localhost.evil.example/cb', /plain http only for the loopback addresses/],
    ['http://127.0.0.1.nip.io/cb', /plain http only for the loopback addresses/],
    ['http://0.0.0.0/cb', /plain http only for the loopback addresses/],
    ['https://a@evil.example/cb', /must not contain userinfo/],
    ['https://a:b@evil.example/cb', /must not contain userinfo/],
    ['https://@evil.example/cb', /must not contain userinfo/],
    ['http://user@127.0.0.1/cb', /must not contain userinfo/],
    ['https://app.example.com/cb#frag', /must not contain a fragment/],
    ['https://app.example.com/cb#', /must not contain a fragment/],
    ['javascript:alert(1)', /must not use the javascript: scheme/],
    ['JavaScript:alert(1)', /must not use the javascript: scheme/],
    ['data:text/html,<script>alert(1)</script>', /must not use the data: scheme/],
    ['file:///etc/passwd', /must not use the file: scheme/],
    ['vbscript:msgbox', /must not use the vbscript: scheme/],
    ['myapp:/callback', /reverse domain name/],
    ['myapp://callback', /reverse domain name/],
    ['ftp://files.example.com/cb', /reverse domain name/],
    ['/callback', /must be absolute URIs/],
    ['', /must only contain strings/],
    [42, /must only contain strings/],
  ])('refuses %s', (uri, message) => {
    const outcome = checkRedirectUri(uri);
    expect(outcome).toEqual({ problem: expect.stringMatching(message) });
    // oidc-provider answers a metadata error whose description starts with "redirect_uris" as
    // invalid_redirect_uri (RFC 7591 §3.2.2), so every explanation must.
    expect((outcome as { problem: string }).problem).toMatch(/^redirect_uris /);
  });

  it('reports the first bad URI of a list, and nothing for a good list', () => {
    expect(redirectUrisProblem(['http://127.0.0.1/cb', 'https://app.example.com/cb'])).toBeUndefined();
    expect(redirectUrisProblem(['http://127.0.0.1/cb', 'http://evil.example/cb'])).toContain('http://evil.example/cb');
    expect(redirectUrisProblem('http://127.0.0.1/cb')).toBe('redirect_uris must be an array');
  });

  it('treats clients whose redirects all stay on the device as native apps', () => {
    expect(nativeOnly(['http://127.0.0.1/cb', 'com.example.app:/cb'])).toBe(true);
    expect(nativeOnly(['http://127.0.0.1/cb', 'https://app.example.com/cb'])).toBe(false);
    expect(nativeOnly(['http://evil.example/cb'])).toBe(false);
    expect(nativeOnly([])).toBe(false);
    expect(nativeOnly(['http://localhost:1/cb', 'http://[::1]:2/cb'])).toBe(true);
    expect(nativeOnly(['http://localhost.evil.example/cb', 'http://127.0.0.1/cb'])).toBe(false);
  });
});
