/**
 * The HTTP shell every network stand-in runs in (Meta, Reddit, TikTok: networks with no server we can run).
 * A stand-in is a real HTTP server on loopback; this module parses what arrives (query, JSON, url-encoded and
 * multipart forms), hands it to the stand-in's routes, and records every exchange — request and response —
 * so that it is checked against the vendor's published specification (`vendor-specs/spec-checker.ts`). A
 * stand-in that drifts from the real API, or a platform request the real API would not take, shows up in
 * `violations` and fails the test that asserts there are none.
 *
 * Media the networks fetch from the platform (Instagram's `image_url`, TikTok's `PULL_FROM_URL`) are fetched
 * with the tests' loopback-aware fetch: the platform's host names (`app.localhost`) resolve to loopback, as
 * browsers resolve them. A browser's own `/favicon.ico` request is no exchange with the API: answered 404,
 * unrecorded.
 *
 * Test hooks every stand-in gets:
 * - `hold(match)`: the next matching request is fully served (the network has acted on it) but its answer is
 *   kept back until `release()`: what a worker killed after the network accepted a post looks like.
 * - `exchanges`: everything that was asked and answered, in order.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A file part of a multipart form, as the stand-in (and the spec checker) sees it. */
export interface UploadedFile {
  filename: string;
  contentType: string;
  bytes: number;
  data: Buffer;
}

export type FormValue = string | UploadedFile;

export interface StandinRequest {
  method: string;
  url: URL;
  /** Lower-case names. */
  headers: Record<string, string>;
  contentType: string | null;
  /** The raw body. */
  raw: Buffer;
  /** A JSON body parsed, the fields of a form (url-encoded or multipart), or undefined (no body, or another type). */
  body: unknown;
}

export interface StandinResponse {
  status: number;
  headers?: Record<string, string>;
  /** A value sent as JSON, or a string/Buffer sent as it is (with the content type in `headers`). */
  body?: unknown;
}

export interface RecordedExchange {
  method: string;
  /** The absolute URL as the stand-in received it, query included. */
  url: string;
  requestHeaders: Record<string, string>;
  requestContentType: string | null;
  /** As `StandinRequest.body` (files as `{ filename, contentType, bytes }`, without their data). */
  requestBody: unknown;
  status: number;
  responseHeaders: Record<string, string>;
  /** Parsed JSON, or the text of a non-JSON answer. */
  responseBody: unknown;
}

export interface SpecViolation {
  /** `POST /v24.0/123/feed → 200` */
  exchange: string;
  problem: string;
}

export interface ExchangeChecker {
  check(exchange: RecordedExchange): SpecViolation[];
}

export type StandinRoute = (request: StandinRequest) => Promise<StandinResponse | null> | StandinResponse | null;

export interface StandinServer {
  url: string;
  exchanges: RecordedExchange[];
  violations: SpecViolation[];
  /**
   * Keeps back the answer to the next request `match` accepts (it is served: the network acts on it). Resolves
   * `arrived` when it came; `release()` sends the answer (to a client that may be gone by then).
   */
  hold(match: (request: StandinRequest) => boolean): { arrived: Promise<void>; release(): void };
  close(): Promise<void>;
}

export interface StandinOptions {
  /** The routes, tried in order; the first that answers (non-null) wins. Unmatched requests get a 404. */
  routes: StandinRoute[];
  /** Checks exchanges against the vendor's specification; none (e.g. for HTML OAuth pages) is allowed per call. */
  checker?: ExchangeChecker;
  /** Requests not checked against the specification (the stand-in's own test controls, its HTML pages). */
  unchecked?: (request: StandinRequest) => boolean;
  host?: string;
}

async function parseBody(method: string, url: URL, headers: Record<string, string>, raw: Buffer): Promise<unknown> {
  if (!raw.length) return undefined;
  const type = (headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('application/json')) {
    try {
      return JSON.parse(raw.toString('utf8')) as unknown;
    } catch {
      return raw.toString('utf8');
    }
  }
  if (type.startsWith('application/x-www-form-urlencoded')) {
    return Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
  }
  if (type.startsWith('multipart/form-data')) {
    // The platform's own fetch implementation (undici) parses multipart: no hand-written parser.
    const form = await new Request(url, {
      method,
      headers: { 'content-type': headers['content-type']! },
      body: new Uint8Array(raw),
    })
      .formData()
      .catch(() => null);
    if (!form) return undefined;
    const fields: Record<string, FormValue> = {};
    for (const [name, value] of form as unknown as Iterable<[string, string | File]>) {
      if (typeof value === 'string') fields[name] = value;
      else {
        const data = Buffer.from(await value.arrayBuffer());
        fields[name] = { filename: value.name, contentType: value.type, bytes: data.length, data };
      }
    }
    return fields;
  }
  return undefined;
}

/** The body as recorded: files without their bytes, so exchanges stay small and printable. */
function recordable(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  return Object.fromEntries(
    Object.entries(body as Record<string, unknown>).map(([name, value]) =>
      value && typeof value === 'object' && 'data' in value && Buffer.isBuffer((value as UploadedFile).data)
        ? [
            name,
            {
              filename: (value as UploadedFile).filename,
              contentType: (value as UploadedFile).contentType,
              bytes: (value as UploadedFile).bytes,
            },
          ]
        : [name, value],
    ),
  );
}

export async function startStandin(options: StandinOptions): Promise<StandinServer> {
  const exchanges: RecordedExchange[] = [];
  const violations: SpecViolation[] = [];
  const holds: { match: (request: StandinRequest) => boolean; arrived: () => void; released: Promise<void> }[] = [];

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const headers = Object.fromEntries(
          Object.entries(req.headers).map(([name, value]) => [
            name,
            Array.isArray(value) ? value.join(', ') : (value ?? ''),
          ]),
        );
        const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
        const raw = Buffer.concat(chunks);
        const method = req.method ?? 'GET';
        const request: StandinRequest = {
          method,
          url,
          headers,
          contentType: headers['content-type'] ?? null,
          raw,
          body: await parseBody(method, url, headers, raw),
        };
        if (method === 'GET' && url.pathname === '/favicon.ico') {
          res.writeHead(404).end();
          return;
        }
        let response: StandinResponse | null = null;
        try {
          for (const route of options.routes) {
            response = await route(request);
            if (response) break;
          }
        } catch (error) {
          response = { status: 500, body: { error: { message: `stand-in failure: ${(error as Error).message}` } } };
        }
        response ??= { status: 404, body: { error: { message: `no route for ${method} ${url.pathname}` } } };

        const isJson = !(typeof response.body === 'string' || Buffer.isBuffer(response.body));
        const responseHeaders: Record<string, string> = {
          ...(isJson && response.body !== undefined ? { 'content-type': 'application/json; charset=utf-8' } : {}),
          ...(response.headers ?? {}),
        };
        const payload =
          response.body === undefined
            ? ''
            : isJson
              ? JSON.stringify(response.body)
              : (response.body as string | Buffer);

        if (!options.unchecked?.(request)) {
          const exchange: RecordedExchange = {
            method,
            url: url.toString(),
            requestHeaders: headers,
            requestContentType: request.contentType,
            requestBody: recordable(request.body),
            status: response.status,
            responseHeaders: Object.fromEntries(Object.entries(responseHeaders).map(([k, v]) => [k.toLowerCase(), v])),
            responseBody: isJson ? response.body : String(payload),
          };
          exchanges.push(exchange);
          if (options.checker) violations.push(...options.checker.check(exchange));
        }

        const hold = holds.findIndex((candidate) => candidate.match(request));
        if (hold >= 0) {
          const [held] = holds.splice(hold, 1);
          held!.arrived();
          await held!.released;
        }
        if (res.destroyed) return; // the client is gone (a killed worker): the network acted all the same
        res.writeHead(response.status, responseHeaders).end(payload);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    exchanges,
    violations,
    hold(match) {
      let arrived!: () => void;
      let release!: () => void;
      const arrivedPromise = new Promise<void>((resolve) => (arrived = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      holds.push({ match, arrived, released });
      return { arrived: arrivedPromise, release };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
