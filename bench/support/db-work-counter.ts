/**
 * Counts the database work each HTTP listener of a benchmark server causes: PostgreSQL statements (every call of
 * `pg.Client.prototype.query`, the one method MikroORM through Kysely, the named prepared statements and plain
 * `pg` clients all end in; `src/tracing/pg-spans.ts` wraps the same method for spans) and MikroORM
 * `EntityManager` forks (`EntityManager.prototype.fork` of @mikro-orm/core, which the PostgreSQL EntityManager
 * inherits).
 *
 * Attribution is by async context: each listener's requests run inside an AsyncLocalStorage store that is that
 * listener's tally, so a statement counts for the listener whose request caused it, and timers and pool
 * housekeeping outside any request count as `background`. A tally is per listener, not per request, because a
 * pooled connection handed over from one request to a waiting one may carry the releasing request's context:
 * both are requests of the same listener, and the benchmark loads one listener at a time.
 *
 * Statements are also counted by kind, as the tracing names their spans (`querySummary`: `INSERT
 * rate_limit_log`, `SELECT campaigns`) followed by a prepared statement's name, so a count can say which
 * statements a call ran.
 *
 * Install it in the server process before any request is served; the wrappers cost a store lookup and an
 * increment per statement or fork.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type http from 'node:http';
import { EntityManager } from '@mikro-orm/core';
import pg from 'pg';
import { querySummary } from '../../src/tracing/pg-spans.ts';

export interface DbWork {
  /** Requests that reached the listener. */
  requests: number;
  statements: number;
  /** Statements by their summary (`SELECT campaigns`). */
  byKind: Record<string, number>;
  forks: number;
}

const tallies = new Map<string, DbWork>();
const background = emptyWork();
const current = new AsyncLocalStorage<DbWork>();
let installed = false;

function emptyWork(): DbWork {
  return { requests: 0, statements: 0, byKind: {}, forks: 0 };
}

/**
 * `SELECT api_keys`, and a named prepared statement's name after it (`SELECT variants (campaign-list)`): the
 * summary names the first table in the text, which for a statement with subqueries may not be its subject.
 */
function kindOf(first: unknown): string {
  const query = typeof first === 'string' ? { text: first } : (first as { text?: string; name?: string } | null);
  const { operation, table } = querySummary(query?.text);
  const summary = table ? `${operation} ${table}` : operation;
  return query?.name ? `${summary} (${query.name})` : summary;
}

function install(): void {
  if (installed) return;
  installed = true;
  const client = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = client.query;
  client.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
    const work = current.getStore() ?? background;
    const kind = kindOf(args[0]);
    work.statements += 1;
    work.byKind[kind] = (work.byKind[kind] ?? 0) + 1;
    return query.apply(this, args);
  };
  const manager = EntityManager.prototype as unknown as { fork: (...args: unknown[]) => unknown };
  const fork = manager.fork;
  manager.fork = function countedFork(this: EntityManager, ...args: unknown[]) {
    (current.getStore() ?? background).forks += 1;
    return fork.apply(this, args);
  };
}

/** `listener`, with the database work of its requests counted under `name`. */
export function countedListener(name: string, listener: http.RequestListener): http.RequestListener {
  install();
  const tally = emptyWork();
  tallies.set(name, tally);
  return (req, res) => {
    tally.requests += 1;
    current.run(tally, () => listener(req, res));
  };
}

/** A copy of every listener's tally so far, and of the work done outside any request. */
export function dbWorkSoFar(): { listeners: Record<string, DbWork>; background: DbWork } {
  return {
    listeners: Object.fromEntries([...tallies].map(([name, tally]) => [name, copy(tally)])),
    background: copy(background),
  };
}

function copy(work: DbWork): DbWork {
  return { ...work, byKind: { ...work.byKind } };
}
