/**
 * What the platform counts, as one small recording interface (a port): domain services, activities and the
 * edges call it, and only the composition roots decide what stands behind it — the prom-client registry of
 * the process (`prometheus.ts`), or nothing (`NO_METRICS`, the default, so a test or a CLI that builds a
 * service by hand records nowhere). Nothing here loads prom-client.
 *
 * Label values are bounded where they are recorded: every value is one of a fixed set (site kinds, route
 * patterns, tool and action names from the catalogue, error codes, job kinds, networks), never a workspace
 * id, a host name, a URL or anything a client chose. `boundedLabel` is the helper for values that come from a
 * request.
 */

/** The site a request was for (never its host name: custom domains are brand sites too). */
export type HostKind = 'platform' | 'auth' | 'root' | 'brand';

/** How a request authenticated, for the access log (never the credential itself). */
export type PrincipalKind = 'anonymous' | 'session' | 'api_key' | 'oauth';

export type JobOutcome = 'succeeded' | 'failed' | 'cancelled';

export interface HttpRequestRecord {
  host: HostKind;
  /** The matched route pattern (`/w/:workspaceId/keys`) or a fixed name (`document`, `unmatched`). */
  route: string;
  method: string;
  status: number;
  seconds: number;
}

export interface ToolCallRecord {
  tool: string;
  action: string;
  /** The MCP protocol era of the request: `legacy` (2025 revisions) or `modern` (2026-07-28). */
  era: string;
  /** `ok`, or the stable error code of the failed call (`validation_failed`, `forbidden`, …). */
  outcome: string;
  seconds: number;
}

export interface Metrics {
  httpRequest(record: HttpRequestRecord): void;
  toolCall(record: ToolCallRecord): void;
  /** A request refused by a rate-limit policy (`tool-server`, `concierge`, …). */
  rateLimited(policy: string): void;
  /** Credentials refused by the tool server's authenticator; `reason` is the error code. */
  authFailure(reason: string): void;
  /** A job whose workflow was started (not a start that returned the job already running on its key). */
  jobStarted(kind: string): void;
  /** A job that reached a terminal status, with the seconds from its creation (null when unknown). */
  jobFinished(kind: string, outcome: JobOutcome, seconds: number | null): void;
  /** A credit ledger entry written (replays of an idempotency key are not postings). */
  creditPosted(kind: string, amount: number): void;
  /** Analytics events written, by where they came from (`beacon`, `server_conversion`, `served`). */
  analyticsAccepted(source: string, count: number): void;
  /** Analytics events refused at ingestion (a beacon's or a conversion batch's invalid items). */
  analyticsRejected(source: string, count: number): void;
  /** A social post's publishing attempt or final state, by network and outcome. */
  channelPost(network: string, outcome: string): void;
}

const ignore = (): void => undefined;

/** Records nothing: the default wherever no registry was wired in. */
export const NO_METRICS: Metrics = {
  httpRequest: ignore,
  toolCall: ignore,
  rateLimited: ignore,
  authFailure: ignore,
  jobStarted: ignore,
  jobFinished: ignore,
  creditPosted: ignore,
  analyticsAccepted: ignore,
  analyticsRejected: ignore,
  channelPost: ignore,
};

/** `value` when it is one of `allowed`, else `fallback`: a label that a client's input can never widen. */
export function boundedLabel(value: unknown, allowed: ReadonlySet<string>, fallback = 'other'): string {
  return typeof value === 'string' && allowed.has(value) ? value : fallback;
}

const HTTP_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The request method as a label: the standard methods, `other` for anything a client invented. */
export function methodLabel(method: string): string {
  return boundedLabel(method, HTTP_METHODS);
}
