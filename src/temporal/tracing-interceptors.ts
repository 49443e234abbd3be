/**
 * Trace context across Temporal (@temporalio/interceptors-opentelemetry), installed only while tracing is on
 * (src/tracing/sdk.ts): the client's workflow start carries the caller's span in a header; the workflow's
 * interceptors (bundled with the workflows, see workflow-tracing-interceptors.ts) continue it and hand their
 * spans to the worker through the `exporter` sink; the activity interceptor continues it on the worker.
 */
import type { ClientInterceptors } from '@temporalio/client';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks, WorkerOptions } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import { currentTracing } from '../tracing/sdk.ts';

/** A Temporal client's interceptors: none while tracing is off. */
export function clientTracingInterceptors(): ClientInterceptors | undefined {
  return currentTracing() ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
}

/**
 * The worker's activity interceptors and the workflow span sink. The sink is registered even while tracing is
 * off, as a no-op: a workflow started by a traced API (its start header says so) still reports its spans, and
 * an unregistered sink would be logged as an error on every call.
 */
export function workerTracingOptions(): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  const tracing = currentTracing();
  const sinks: InjectedSinks<OpenTelemetrySinks> = {
    exporter: tracing ? workflowSpanSink(tracing.processor, tracing.resource) : { export: { fn: () => undefined } },
  };
  if (!tracing) return { sinks };
  return {
    sinks,
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
  };
}

/**
 * The package's sink copies the whole `WorkflowInfo` into every workflow span's attributes: memo, search
 * attributes and nested objects an OTLP attribute cannot hold. It gets the run's identity only.
 */
function workflowSpanSink(
  processor: Parameters<typeof makeWorkflowExporter>[0],
  resource: Parameters<typeof makeWorkflowExporter>[1],
): InjectedSinks<OpenTelemetrySinks>['exporter'] {
  const exporter = makeWorkflowExporter(processor, resource);
  return {
    export: {
      fn: (info, spans) => {
        const identity = {
          workflowId: info.workflowId,
          runId: info.runId,
          workflowType: info.workflowType,
          taskQueue: info.taskQueue,
          namespace: info.namespace,
          attempt: info.attempt,
        };
        exporter.export.fn(identity as unknown as WorkflowInfo, spans);
      },
    },
  };
}
