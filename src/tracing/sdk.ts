/**
 * Starts OpenTelemetry tracing for one process (the API or the worker), or does nothing.
 *
 * Off unless an OTLP endpoint is configured (config.tracing.tracesUrl): then no provider, context manager,
 * propagator or exporter exists, the Temporal interceptors are not installed, and the spans of spans.ts cost
 * one null check. On: spans are batched and POSTed as OTLP/HTTP JSON; W3C `traceparent` carries the context
 * into the process (HTTP) and across Temporal (the interceptors' workflow and activity headers).
 *
 * Only entry points call `startTracing` (main.ts, worker.ts, and tests with their own exporter): a provider
 * is process-wide, like the OpenTelemetry API's globals it registers.
 */
import { context, diag, DiagLogLevel, propagation, trace, type DiagLogger } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { PLATFORM_NAME, PLATFORM_VERSION } from '../version.ts';
import { tracePostgresQueries } from './pg-spans.ts';
import { activeTracer, setActiveTracer } from './spans.ts';

/** The `service.name` of each process kind, so a trace shows which side did what. */
export const SERVICE_NAMES = { api: `${PLATFORM_NAME}-api`, worker: `${PLATFORM_NAME}-worker` } as const;

export interface Tracing {
  /** What the Temporal worker hands workflow spans to (they are built inside the workflow sandbox). */
  processor: SpanProcessor;
  resource: Resource;
  /** Flushes, then puts everything back as it was before `startTracing`. */
  shutdown(): Promise<void>;
}

let running: Tracing | null = null;

/** The running tracing of this process, or null when it is off. */
export function currentTracing(): Tracing | null {
  return running;
}

/** Export failures reach the process's log at warn level (the exporter's own messages name no header). */
function diagnostics(log: Logger): DiagLogger {
  const warn = (message: string, ...args: unknown[]) =>
    log.warn({ component: 'opentelemetry', detail: args.map(String).join(' ').slice(0, 500) }, message);
  const quiet = () => undefined;
  return { error: warn, warn, info: quiet, debug: quiet, verbose: quiet };
}

/**
 * Starts tracing when `config.tracing.tracesUrl` is set, or when a test passes its own `exporter` (then spans
 * go there, unbatched, and the URL is not used). Returns null, having done nothing, otherwise.
 */
export function startTracing(
  config: Pick<Config, 'env' | 'tracing'>,
  service: keyof typeof SERVICE_NAMES,
  log: Logger,
  options: { exporter?: SpanExporter } = {},
): Tracing | null {
  const { tracesUrl, headers, sampleRatio } = config.tracing;
  if (!tracesUrl && !options.exporter) return null;
  if (running || activeTracer()) throw new Error('tracing is already running in this process');
  const resource = new Resource({
    'service.name': SERVICE_NAMES[service],
    'service.namespace': PLATFORM_NAME,
    'service.version': PLATFORM_VERSION,
    'deployment.environment.name': config.env,
  });
  const processor = options.exporter
    ? new SimpleSpanProcessor(options.exporter)
    : new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl!, headers, timeoutMillis: 10_000 }), {
        // Stated, not left to the SDK's own reading of OTEL_BSP_* (config.ts is the one reader of the
        // environment); docs/tracing.md gives these numbers.
        scheduledDelayMillis: 5000,
        maxExportBatchSize: 512,
        maxQueueSize: 2048,
        exportTimeoutMillis: 30_000,
      });
  const provider = new BasicTracerProvider({
    resource,
    // A caller's sampling decision (an incoming traceparent, a workflow started from a traced request) is kept.
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(sampleRatio) }),
    spanProcessors: [processor],
  });
  diag.setLogger(diagnostics(log), DiagLogLevel.WARN);
  const contextManager = new AsyncLocalStorageContextManager().enable();
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const tracer = provider.getTracer(PLATFORM_NAME, PLATFORM_VERSION);
  const restorePg = tracePostgresQueries(tracer);
  setActiveTracer(tracer);
  const tracing: Tracing = {
    processor,
    resource,
    async shutdown() {
      setActiveTracer(null);
      restorePg();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
      diag.disable();
      running = null;
    },
  };
  running = tracing;
  if (tracesUrl && !options.exporter) {
    // The URL without its query (a vendor may put a key there); the headers are never logged.
    log.info({ tracesUrl: tracesUrl.split('?')[0], sampleRatio, service: SERVICE_NAMES[service] }, 'tracing on');
  }
  return tracing;
}
