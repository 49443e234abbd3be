/**
 * Workflow interceptors, bundled into the workflow code (`workflowInterceptorModules`, see workflows-path.ts):
 * @temporalio/interceptors-opentelemetry's, behind a gate.
 *
 * The bundle is built once (`npm run build`) and runs whether or not tracing is configured, and workflow code
 * cannot read the configuration. What it can read, deterministically on every replay, is its start header:
 * a start from a traced client carries the trace context. A workflow started without it (tracing off, or a
 * schedule) runs with every interceptor passing straight through, and never creates the sandbox's tracer.
 */
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import type { WorkflowInterceptors } from '@temporalio/workflow';

/** The header the OpenTelemetry client interceptor writes (`TRACE_HEADER` in the package's instrumentation). */
const TRACE_HEADER = '_tracer-data';

type Interceptor = Record<string, (input: unknown, next: (input: unknown) => unknown) => unknown>;

/**
 * An object with the methods of `Kind`'s prototype, each calling `Kind`'s (built on first use) while `traced()`
 * holds and going straight to `next` otherwise.
 */
function gated(Kind: new () => object, traced: () => boolean): Interceptor {
  let instance: Interceptor | undefined;
  const methods = Object.getOwnPropertyNames(Kind.prototype).filter((name) => name !== 'constructor');
  return Object.fromEntries(
    methods.map((name) => [
      name,
      (input: unknown, next: (input: unknown) => unknown) => {
        if (!traced()) return next(input);
        instance ??= new Kind() as Interceptor;
        return instance[name]!(input, next);
      },
    ]),
  );
}

export const interceptors = (): WorkflowInterceptors => {
  let traced = false;
  const isTraced = () => traced;
  const inbound = gated(OpenTelemetryInboundInterceptor, isTraced);
  const execute = inbound.execute!;
  inbound.execute = (input, next) => {
    traced = TRACE_HEADER in ((input as { headers?: Record<string, unknown> }).headers ?? {});
    return execute(input, next);
  };
  return {
    inbound: [inbound],
    outbound: [gated(OpenTelemetryOutboundInterceptor, isTraced)],
    internals: [gated(OpenTelemetryInternalsInterceptor, isTraced)],
  } as WorkflowInterceptors;
};
