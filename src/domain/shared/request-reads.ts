/**
 * Reads shared by the calls of one request: a page made of several tool calls (the console's analytics page asks
 * `query_analytics` for the A/B dashboard and for the insights, and both are built from the same experiments)
 * computes each shared read once. Only inside `sharingReads`, which a request opts into; everywhere else
 * (every MCP call, each its own request) `sharedRead` simply computes.
 *
 * What may be shared: a read-only result that depends only on its key (name the workspace and every input in
 * it) and is never mutated by its users. Nothing outlives the request, so nothing here is a cache: a second
 * request computes again.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const reads = new AsyncLocalStorage<Map<string, Promise<unknown>>>();

/** Runs `work` with reads shared between the calls it makes (concurrent ones included). */
export function sharingReads<T>(work: () => Promise<T>): Promise<T> {
  return reads.run(new Map(), work);
}

/** The result of `compute` for `key`, computed once per `sharingReads` (every time outside one). */
export function sharedRead<T>(key: string, compute: () => Promise<T>): Promise<T> {
  const shared = reads.getStore();
  if (!shared) return compute();
  let read = shared.get(key) as Promise<T> | undefined;
  if (!read) shared.set(key, (read = compute()));
  return read;
}
