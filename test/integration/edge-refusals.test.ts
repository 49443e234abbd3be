/**
 * Refusals of the HTTP edge itself, on the real platform: each is thrown and answered by the error boundary
 * from ERROR_TABLE, in the form of the router it happened on (`{error, error_description, details?}`, or a
 * JSON-RPC error object on the tool server), with the headers the refusal needs (Retry-After, no-store).
 * Brand pages and the concierge have theirs in brand-site.test.ts and concierge-a2a.test.ts.
 */
import { CONVERSIONS_PATH } from '../../src/http/routes/conversions.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'edgerefusals' });
});

afterAll(async () => {
  await platform?.close();
  await closeTestFetch();
});

async function answer(url: string, init: RequestInit = {}) {
  const response = await testFetch(url, init);
  return { status: response.status, headers: response.headers, body: (await response.json()) as unknown };
}

test('a media key that was never stored is 404 not_found', async () => {
  const { status, body } = await answer(`${platform.urls.platform}/media/ws_nothing/never-stored.png`);
  expect({ status, body }).toEqual({
    status: 404,
    body: { error: 'not_found', error_description: 'No such media file' },
  });
});

test('a host that is neither a configured site nor a verified domain is 404 not_found, never cached', async () => {
  const { status, headers, body } = await answer(`http://no-such-site.localhost:${platform.port}/`);
  expect({ status, body }).toEqual({
    status: 404,
    body: { error: 'not_found', error_description: 'No site is served at no-such-site.localhost' },
  });
  expect(headers.get('cache-control')).toBe('no-store');
});

test('no site serves /metrics unless METRICS_TOKEN is set (docs/metrics.md), whatever the credentials', async () => {
  for (const base of [platform.urls.platform, platform.urls.base, platform.urls.auth]) {
    const response = await testFetch(`${base}/metrics`, { headers: { authorization: 'Bearer anything' } });
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('# TYPE');
  }
});

describe('the tool server’s CORS preflight', () => {
  const preflight = (path: string, headers: Record<string, string>) =>
    answer(`${platform.urls.platform}${path}`, {
      method: 'OPTIONS',
      headers: { 'access-control-request-method': 'POST', ...headers },
    });

  test('refuses a foreign origin as the request itself would: 403 forbidden_origin, in the route’s form', async () => {
    const description = 'Origin https://evil.example is not allowed to call this server';
    expect(await preflight(CONVERSIONS_PATH, { origin: 'https://evil.example' })).toMatchObject({
      status: 403,
      body: { error: 'forbidden_origin', error_description: description },
    });
    const mcp = await preflight('/api/mcp', { origin: 'https://evil.example' });
    expect({ status: mcp.status, body: mcp.body }).toEqual({
      status: 403,
      body: {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: description, data: { code: 'forbidden_origin' } },
      },
    });
    expect(mcp.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('refuses a preflight that names no origin', async () => {
    expect(await preflight(CONVERSIONS_PATH, {})).toMatchObject({
      status: 403,
      body: { error: 'forbidden_origin', error_description: 'A CORS preflight must name its Origin' },
    });
  });
});

describe('dynamic registration’s own refusals (before oidc-provider reads the body)', () => {
  const register = (body: string) =>
    answer(`${platform.urls.auth}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });

  // Registrations are limited per address (30 an hour): these refusals count, and the last test uses up the rest.
  test('a body over oidc-provider’s 56 KiB limit is 413 payload_too_large, naming the limit', async () => {
    const huge = JSON.stringify({ client_name: 'x'.repeat(60 * 1024), redirect_uris: ['http://127.0.0.1/cb'] });
    expect(await register(huge)).toMatchObject({
      status: 413,
      body: {
        error: 'payload_too_large',
        error_description: 'registration request too large',
        details: { limitBytes: 56 * 1024 },
      },
    });
  });

  test('a body that is not JSON is 400 invalid_client_metadata (RFC 7591)', async () => {
    expect(await register('{"client_name": ')).toMatchObject({
      status: 400,
      body: { error: 'invalid_client_metadata', error_description: 'the registration body is not valid JSON' },
    });
  });

  test('past the per-address budget: 429 rate_limited with Retry-After, the retry named in the body', async () => {
    let refused: Awaited<ReturnType<typeof register>> | undefined;
    const statuses: number[] = [];
    for (let i = 0; i < 30 && !refused; i += 1) {
      const response = await register('not json');
      if (response.status === 429) refused = response;
      else statuses.push(response.status);
    }
    // Every request before the refusal reached registration (and was refused there for its body).
    expect(new Set(statuses)).toEqual(new Set([400]));
    expect(refused).toBeDefined();
    const retryAfter = Number(refused!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(refused!.body).toEqual({
      error: 'rate_limited',
      error_description: `Too many requests; retry in ${retryAfter} second(s)`,
      details: { retryAfterSeconds: retryAfter },
    });
  });
});
