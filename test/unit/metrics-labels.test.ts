/**
 * What keeps metric labels bounded and `/metrics` closed: label helpers never pass a client's value through,
 * the route label is a pattern or a fixed name, the token check, and the metrics settings' validation.
 */
import type { Context } from 'koa';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { hostKindOf, routeLabel } from '../../src/http/middleware/access-log.ts';
import { boundedLabel, methodLabel } from '../../src/observability/metrics.ts';
import { metricsRequestAuthorized } from '../../src/observability/metrics-endpoint.ts';
import { createPrometheusMetrics } from '../../src/observability/prometheus.ts';
import { bindAddress, workerRuntimeOptions } from '../../src/observability/temporal-runtime.ts';

const contextAt = (path: string, matchedRoute?: string) =>
  ({ path, _matchedRoute: matchedRoute }) as unknown as Context;

describe('metric labels', () => {
  it('boundedLabel keeps only values of its set, whatever the input', () => {
    const allowed = new Set(['beacon', 'served']);
    expect(boundedLabel('beacon', allowed)).toBe('beacon');
    for (const value of ['Beacon', 'ws_0123', 'https://x.example/', '', undefined, 42, { toString: () => 'beacon' }]) {
      expect(boundedLabel(value, allowed)).toBe('other');
    }
    expect(boundedLabel('nope', allowed, 'unknown')).toBe('unknown');
  });

  it('methodLabel passes the standard methods and folds invented ones', () => {
    expect(methodLabel('GET')).toBe('GET');
    expect(methodLabel('OPTIONS')).toBe('OPTIONS');
    expect(methodLabel('PROPFIND')).toBe('other');
    expect(methodLabel('get')).toBe('other');
  });

  it('the route label is the matched pattern, a brand endpoint, `document` or `unmatched`, never the path', () => {
    expect(routeLabel(contextAt('/w/ws_123/keys', '/w/:workspaceId/keys'), 'platform')).toBe('/w/:workspaceId/keys');
    expect(routeLabel(contextAt('/w/ws_123/anything?x=1'), 'platform')).toBe('unmatched');
    expect(routeLabel(contextAt('/_cp/events'), 'brand')).toBe('/_cp/events');
    expect(routeLabel(contextAt('/llms.txt'), 'brand')).toBe('document');
    expect(routeLabel(contextAt('/campaigns/summer-linen'), 'brand')).toBe('document');
    expect(hostKindOf({ kind: 'unknown' })).toBe('brand');
    expect(hostKindOf({ kind: 'brand', slug: 'acme' })).toBe('brand');
    expect(hostKindOf({ kind: 'auth' })).toBe('auth');
  });
});

describe('the metrics endpoint', () => {
  const token = 't'.repeat(40);

  it('asks for the exact bearer token when one is set', () => {
    expect(metricsRequestAuthorized(`Bearer ${token}`, token)).toBe(true);
    expect(metricsRequestAuthorized(`bearer ${token}`, token)).toBe(true);
    expect(metricsRequestAuthorized(`Bearer ${token}x`, token)).toBe(false);
    expect(metricsRequestAuthorized(token, token)).toBe(false);
    expect(metricsRequestAuthorized(undefined, token)).toBe(false);
    expect(metricsRequestAuthorized(undefined, undefined)).toBe(true);
  });

  it('keeps one registry per process: two never share a count', async () => {
    const first = createPrometheusMetrics();
    const second = createPrometheusMetrics();
    first.rateLimited('tool-server');
    expect((await first.scrape()).body).toContain('cp_rate_limited_total{policy="tool-server"} 1');
    expect((await second.scrape()).body).not.toContain('cp_rate_limited_total{policy="tool-server"}');
  });
});

describe('metrics settings', () => {
  it('are off unless set, and bind where HTTP does by default', () => {
    expect(loadConfig({}).metrics).toEqual({
      host: '127.0.0.1',
      apiPort: undefined,
      token: undefined,
      workerAppPort: undefined,
      workerSdkPort: undefined,
    });
    expect(workerRuntimeOptions(loadConfig({})).telemetryOptions).toBeUndefined();
  });

  it('refuse a short token and ports that collide, naming each', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN must be at least 32 characters/);
    expect(() => loadConfig({ METRICS_PORT: '3000' })).toThrow(ConfigError);
    expect(() => loadConfig({ WORKER_APP_METRICS_PORT: '9464', WORKER_METRICS_PORT: '9464' })).toThrow(
      /WORKER_APP_METRICS_PORT and WORKER_METRICS_PORT must all differ/,
    );
  });

  it('point the Temporal SDK exporter at METRICS_HOST and WORKER_METRICS_PORT', () => {
    const config = loadConfig({ METRICS_HOST: '0.0.0.0', WORKER_METRICS_PORT: '9465' });
    expect(workerRuntimeOptions(config).telemetryOptions?.metrics).toMatchObject({
      prometheus: { bindAddress: '0.0.0.0:9465', countersTotalSuffix: true, useSecondsForDurations: true },
    });
    expect(bindAddress('::', 9465)).toBe('[::]:9465');
  });
});
