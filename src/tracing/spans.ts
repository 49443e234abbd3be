/**
 * The platform's own spans (the HTTP request, the tool call, a job's launch, PostgreSQL queries), written
 * against the OpenTelemetry API only, so any layer may use them without loading the SDK.
 *
 * Tracing is off unless `startTracing` (sdk.ts) ran: then `activeTracer()` is null and every helper here
 * returns after that one check, without creating a span, a context or a closure.
 *
 * Attributes name kinds, never contents: no secret, token, e-mail address, SQL text or query string goes into
 * a span (the collector is often outside the platform's trust boundary).
 */
import { SpanKind, SpanStatusCode, type Attributes, type Span, type Tracer } from '@opentelemetry/api';

let tracer: Tracer | null = null;

/** Set by `startTracing` and cleared by its `shutdown` (sdk.ts); nothing else calls it. */
export function setActiveTracer(next: Tracer | null): void {
  tracer = next;
}

/** The platform's tracer while tracing is on, else null. */
export function activeTracer(): Tracer | null {
  return tracer;
}

/**
 * Runs `fn` inside a new active span (child of the current one); `fn` gets null while tracing is off. A throw
 * marks the span failed with the error's kind (`error.type`), never its message, which may quote user data.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span | null) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  const current = tracer;
  if (!current) return fn(null);
  return current.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      markFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** ERROR status and `error.type`: the error's code when it has a short one, else its class name. */
export function markFailed(span: Span, error: unknown, type: string = errorType(error)): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute('error.type', type);
}

function errorType(error: unknown): string {
  if (error && typeof error === 'object') {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Za-z0-9_.-]{1,40}$/.test(code)) return code;
    const name = (error as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === 'string' && name) return name;
  }
  return 'unknown';
}
