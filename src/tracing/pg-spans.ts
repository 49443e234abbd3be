/**
 * A span per PostgreSQL query, for every path to the database at once: MikroORM (through Kysely), the named
 * prepared statements of the hot paths and plain `pg` clients all end in `pg.Client.prototype.query`.
 *
 * @opentelemetry/instrumentation-pg does the same through require/import hooks, which need a loader flag
 * (`--import`) that this project's type-stripped ESM entry points do not pass; the one method is wrapped here
 * instead, only while tracing is on (`startTracing` installs it, its shutdown restores the original).
 *
 * Only queries inside a traced operation get a span (a request, a tool call, an activity): pool housekeeping
 * and timers do not start traces of their own. The span names the operation and the table, never the SQL text
 * or its values.
 */
import { context, SpanKind, trace, type Tracer } from '@opentelemetry/api';
import pg from 'pg';
import { markFailed } from './spans.ts';

type Query = (this: pg.Client, ...args: unknown[]) => unknown;

const OPERATIONS = new Set([
  'SELECT',
  'INSERT',
  'UPDATE',
  'DELETE',
  'WITH',
  'BEGIN',
  'COMMIT',
  'ROLLBACK',
  'SAVEPOINT',
  'RELEASE',
  'SET',
  'SHOW',
  'LOCK',
  'COPY',
  'CREATE',
  'ALTER',
  'DROP',
  'TRUNCATE',
  'EXECUTE',
]);
const TABLE_AFTER =
  /\b(?:from|into|update)\s+"?([A-Za-z_][A-Za-z0-9_]{0,62})"?(?:\s*\.\s*"?([A-Za-z_][A-Za-z0-9_]{0,62})"?)?/i;

/** `SELECT jobs`, `INSERT audit_entry`, `COMMIT`: the operation and (for reads and writes) its first table. */
export function querySummary(sql: string | undefined): { operation: string; table: string | null } {
  const word = /^\s*([A-Za-z]+)/.exec(sql ?? '')?.[1]?.toUpperCase();
  const operation = word && OPERATIONS.has(word) ? word : 'SQL';
  if (!sql || !['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'WITH'].includes(operation)) return { operation, table: null };
  const match = TABLE_AFTER.exec(sql);
  return { operation, table: match ? (match[2] ?? match[1]!) : null };
}

function isSubmittable(value: unknown): boolean {
  return !!value && typeof value === 'object' && typeof (value as { submit?: unknown }).submit === 'function';
}

/** Wraps `pg.Client.prototype.query`; returns the function that puts the original back. */
export function tracePostgresQueries(tracer: Tracer): () => void {
  const prototype = pg.Client.prototype as unknown as { query: Query };
  const original = prototype.query;
  prototype.query = function tracedQuery(this: pg.Client, ...args: unknown[]): unknown {
    const parent = context.active();
    const first = args[0];
    // Cursors and COPY streams (submittables) report through events, not a promise: left untraced.
    if (!trace.getSpan(parent) || isSubmittable(first)) return original.apply(this, args);
    const sql = typeof first === 'string' ? first : (first as { text?: string } | null)?.text;
    const { operation, table } = querySummary(sql);
    const summary = table ? `${operation} ${table}` : operation;
    const span = tracer.startSpan(
      summary,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'db.system.name': 'postgresql',
          'db.namespace': this.database ?? '',
          'db.operation.name': operation,
          'db.query.summary': summary,
          ...(table ? { 'db.collection.name': table } : {}),
          'server.address': this.host ?? '',
          ...(typeof this.port === 'number' ? { 'server.port': this.port } : {}),
        },
      },
      parent,
    );
    const end = (error: unknown) => {
      if (error) markFailed(span, error);
      span.end();
    };
    const callbackAt = args.findLastIndex((arg) => typeof arg === 'function');
    if (callbackAt >= 0) {
      const callback = args[callbackAt] as (error: unknown, result: unknown) => void;
      args[callbackAt] = (error: unknown, result: unknown) => {
        end(error);
        callback(error, result);
      };
      return original.apply(this, args);
    }
    try {
      const result = original.apply(this, args) as Promise<unknown>;
      return result.then(
        (value) => {
          end(null);
          return value;
        },
        (error: unknown) => {
          end(error);
          throw error;
        },
      );
    } catch (error) {
      end(error);
      throw error;
    }
  };
  return () => {
    prototype.query = original;
  };
}
