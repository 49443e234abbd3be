/**
 * Tracing's configuration and the parts that need no services: when it is off, nothing starts; the OTEL_*
 * variables parse as the OTLP exporter specification reads them, and a bad one is named without echoing a
 * secret; a query's span is named by operation and table, never by its text. The trace of a whole job is
 * test/integration/tracing.test.ts.
 */
import { trace } from '@opentelemetry/api';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { querySummary } from '../../src/tracing/pg-spans.ts';
import { currentTracing, startTracing } from '../../src/tracing/sdk.ts';
import { activeTracer } from '../../src/tracing/spans.ts';

const silent = createLogger({ level: 'silent', name: 'test' });

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('tracing configuration', () => {
  it('is off without an endpoint, and then starts nothing', () => {
    const config = loadConfig({});
    expect(config.tracing).toEqual({ tracesUrl: null, headers: {}, sampleRatio: 1 });
    expect(startTracing(config, 'api', silent)).toBeNull();
    expect(currentTracing()).toBeNull();
    expect(activeTracer()).toBeNull();
    // No global provider either: the API's default no-op answers.
    expect(trace.getTracer('probe').startSpan('probe').isRecording()).toBe(false);
  });

  it('reads the OTLP endpoint, headers and sampling ratio by the exporter specification', () => {
    const config = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-honeycomb-team=abc%3D%3D, X-Dataset = campaigns',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    });
    expect(config.tracing).toEqual({
      tracesUrl: 'http://collector:4318/v1/traces',
      headers: { 'x-honeycomb-team': 'abc==', 'x-dataset': 'campaigns' },
      sampleRatio: 0.25,
    });
    // The signal-specific URL is used as given and wins; OTEL_SDK_DISABLED turns everything off.
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://tempo.example.com/otlp/v1/traces',
      }).tracing.tracesUrl,
    ).toBe('https://tempo.example.com/otlp/v1/traces');
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing.tracesUrl,
    ).toBeNull();
  });

  it('refuses bad values with the variable named and no secret echoed', () => {
    const problems = problemsOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://user:hunter2@collector:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key',
      OTEL_TRACES_SAMPLER_ARG: '2',
    });
    expect(problems).toEqual([
      expect.stringMatching(/^OTEL_EXPORTER_OTLP_ENDPOINT must be an absolute http\(s\) URL without credentials/),
      'OTEL_EXPORTER_OTLP_HEADERS must be a comma-separated list of name=value pairs',
      'OTEL_TRACES_SAMPLER_ARG must be between 0 and 1',
    ]);
    expect(problems.join('\n')).not.toContain('hunter2');
    expect(problemsOf({ OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=%E0%A4%A' })).toEqual([
      'OTEL_EXPORTER_OTLP_HEADERS has a badly URL-encoded value for x-api-key',
    ]);
  });
});

describe('PostgreSQL span names', () => {
  it('name the operation and the first table, never the text', () => {
    expect(querySummary('select "c0".* from "campaigns" as "c0" where "c0"."id" = $1')).toEqual({
      operation: 'SELECT',
      table: 'campaigns',
    });
    expect(querySummary('insert into "public"."jobs" ("id") values ($1)')).toEqual({
      operation: 'INSERT',
      table: 'jobs',
    });
    expect(querySummary('UPDATE credit_quotes SET used_at = now()')).toEqual({
      operation: 'UPDATE',
      table: 'credit_quotes',
    });
    expect(querySummary('begin')).toEqual({ operation: 'BEGIN', table: null });
    expect(querySummary("select pg_advisory_xact_lock(hashtext('x'))")).toEqual({ operation: 'SELECT', table: null });
    expect(querySummary('vacuum analyze jobs')).toEqual({ operation: 'SQL', table: null });
    expect(querySummary(undefined)).toEqual({ operation: 'SQL', table: null });
  });
});
