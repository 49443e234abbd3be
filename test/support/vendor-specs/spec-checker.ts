/**
 * Checks every exchange a network stand-in records (standin-server.ts) against the vendor's specification, so that a
 * stand-in that drifts from the real API — or a platform request the real API would refuse — fails the build.
 *
 * The specifications are vendored in test/fixtures/vendor-specs/ (its README says from where): the third-party
 * OpenAPI files of getlate-dev/openapi-specs, each with a supplement (operations the platform calls that the file
 * lacks) and overrides (where it contradicts the vendor, the vendor wins); for Meta also Meta's own node specs
 * (facebook-business-sdk-codegen), which are authoritative on the Graph API's parameters and fields.
 *
 * For each exchange: the operation (method + path, the servers' base paths included: `/v24.0/` — any Graph API
 * version — for Meta, `/v2/` for TikTok); the request (credentials, required parameters, parameters the operation
 * does not declare, types and enums, the body's schema and content type); the response (the schema declared for its
 * status, the vendor's error shape for an error, undeclared success statuses). Strict where a specification is
 * precise; silent where it is: an operation without a response schema is listed by `uncheckedOperations()`.
 */
import type { ExchangeChecker, RecordedExchange, SpecViolation } from '../standins/standin-server.ts';
import { GraphSpecs, graphTargetOf, parseFields, type GraphEndpoint, type GraphNode } from './graph-node-specs.ts';
import { declaredMembers, SchemaValidators } from './json-schemas.ts';
import {
  isObject,
  loadVendorDocument,
  operationsOf,
  resolve,
  type Operation,
  type Parameter,
  type ResponseObject,
  type VendorDocument,
} from './openapi-documents.ts';

export type SpecApi = 'meta' | 'reddit' | 'tiktok';

interface ApiProfile {
  /** The third-party files (test/fixtures/vendor-specs/getlate-dev-openapi-specs/<name>.yaml). */
  documents: string[];
  /**
   * The Graph API's rules (Meta): parameters count wherever they come (query string, url-encoded, multipart or
   * JSON body), the token may be an `access_token` parameter, and Meta's node specs are checked too.
   */
  graph: boolean;
  /** Other spellings of a request path the API answers as the same operation. */
  pathVariants(path: string): string[];
  /** Whether a success answer of the operation must carry the API's error object with code "ok" (TikTok). */
  successEnvelope(operation: Operation): boolean;
}

const PROFILES: Record<SpecApi, ApiProfile> = {
  meta: {
    documents: ['facebook', 'instagram'],
    graph: true,
    pathVariants: (path) => [path],
    successEnvelope: () => false,
  },
  reddit: {
    documents: ['reddit'],
    graph: false,
    // Reddit answers a path with `.json` appended as the path itself (`/api/info.json` is `/api/info`).
    pathVariants: (path) => (path.endsWith('.json') ? [path, path.slice(0, -'.json'.length)] : [path]),
    successEnvelope: () => false,
  },
  tiktok: {
    documents: ['tiktok'],
    graph: false,
    pathVariants: (path) => [path],
    // "error" with code "ok" on every answer of the v2 API
    // (https://developers.tiktok.com/doc/tiktok-api-v2-error-handling); the OAuth endpoints answer in OAuth's own
    // shape, and the upload URL with no body.
    successEnvelope: (operation) =>
      !/^\/(oauth|auth)\//.test(operation.template) && operation.raw['x-vendor-error-shape'] !== false,
  },
};

/** Headers OpenAPI says a parameter may not describe (the content type and credentials have their own rules). */
const HEADERS_NOT_PARAMETERS = new Set(['accept', 'content-type', 'authorization']);

interface RequestView {
  method: string;
  path: string;
  query: Map<string, string>;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** The media type alone, lower-case (`application/json`). */
  contentType: string | null;
  body: unknown;
  hasBody: boolean;
}

/** The node and edge of Meta's node specs an operation calls, when the specs have the node. */
type GraphTarget = { node: GraphNode; edge: string | null; endpoint: GraphEndpoint | undefined } | null;

interface Verdict {
  problems: string[];
  /** Why the answer could not be checked (no schema for it), when it could not. */
  unchecked: string | null;
}

const uncheckedByApi = new Map<SpecApi, Set<string>>();

/**
 * The operations (with the status) whose answers the checkers met but could not check, the specification giving
 * no schema for them: `reddit POST /api/del (reddit.yaml) → 200`. For the stand-in suites to list their coverage.
 */
export function uncheckedOperations(api?: SpecApi): string[] {
  const apis = api ? [api] : [...uncheckedByApi.keys()];
  return apis.flatMap((name) => [...(uncheckedByApi.get(name) ?? [])]).sort();
}

function requestViewOf(exchange: RecordedExchange, url: URL): RequestView {
  const headers = exchange.requestHeaders;
  return {
    method: exchange.method.toUpperCase(),
    path: url.pathname,
    query: new Map(url.searchParams),
    headers,
    contentType: exchange.requestContentType?.split(';')[0]?.trim().toLowerCase() || null,
    body: exchange.requestBody,
    hasBody:
      exchange.requestBody !== undefined ||
      Number(headers['content-length'] ?? 0) > 0 ||
      headers['transfer-encoding'] !== undefined,
  };
}

function describeOperation(operation: Operation): string {
  return `${operation.method} ${operation.template} (${operation.document.name}.yaml)`;
}

/** The response a status falls under: its own, its class (`4XX`), or `default`. */
function responseFor(operation: Operation, status: number): ResponseObject | undefined {
  const { responses } = operation;
  return responses[String(status)] ?? responses[`${Math.floor(status / 100)}XX`] ?? responses.default;
}

/** The JSON schema of a response or request content, if it has one. */
function jsonSchemaOf(content: ResponseObject['content']): unknown {
  const type = Object.keys(content ?? {}).find((name) => /[/+]json$/i.test(name.split(';')[0]!.trim()));
  return type ? content![type]!.schema : undefined;
}

function mediaTypeMatches(declared: string, actual: string): boolean {
  const [declaredType, declaredSubtype] = declared.toLowerCase().split(';')[0]!.trim().split('/');
  const [actualType, actualSubtype] = actual.split('/');
  return (
    (declaredType === '*' || declaredType === actualType) &&
    (declaredSubtype === '*' || declaredSubtype === actualSubtype)
  );
}

function isFormType(type: string): boolean {
  return /^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(type);
}

function isEmptyBody(body: unknown): boolean {
  return body === undefined || body === '' || (isObject(body) && Object.keys(body).length === 0);
}

class VendorSpecChecker implements ExchangeChecker {
  private readonly documents: VendorDocument[];
  private readonly operations: Operation[];
  private readonly schemas: SchemaValidators;
  private readonly graph: GraphSpecs | null;
  private readonly errorSchemas = new Map<string, unknown>();

  private readonly api: SpecApi;
  private readonly profile: ApiProfile;

  constructor(api: SpecApi, profile: ApiProfile) {
    this.api = api;
    this.profile = profile;
    this.documents = profile.documents.map(loadVendorDocument);
    this.operations = this.documents.flatMap(operationsOf);
    this.schemas = new SchemaValidators({ dateTimeFormat: profile.graph ? 'graph-date-time' : 'date-time' });
    this.graph = profile.graph ? new GraphSpecs() : null;
    for (const document of this.documents) {
      const ref = document.root['x-error-schema'];
      if (typeof ref === 'string') this.errorSchemas.set(document.name, { $ref: ref });
    }
  }

  check(exchange: RecordedExchange): SpecViolation[] {
    const url = new URL(exchange.url);
    const label = `${exchange.method} ${url.pathname} → ${exchange.status}`;
    const request = requestViewOf(exchange, url);
    const found = this.operationsFor(request);
    if (typeof found === 'string') return [{ exchange: label, problem: found }];

    // Where several operations answer the path (the Graph API's `/{id}` is any node), the exchange is right if
    // it is right for one of them; otherwise the closest one's problems are reported.
    const verdicts = found.map((operation) => ({ operation, ...this.verdictFor(operation, request, exchange) }));
    const best = verdicts.reduce((closest, verdict) =>
      verdict.problems.length < closest.problems.length ? verdict : closest,
    );
    if (best.unchecked) {
      const unchecked = uncheckedByApi.get(this.api) ?? new Set<string>();
      uncheckedByApi.set(this.api, unchecked.add(`${this.api} ${best.unchecked}`));
    }
    const closest = found.length > 1 ? `, the closest of the ${found.length} operations of this path` : '';
    return best.problems.map((problem) => ({
      exchange: label,
      problem: `${describeOperation(best.operation)}${closest}: ${problem}`,
    }));
  }

  /** The operations that answer the request's method and path, the most concrete first; or why there is none. */
  private operationsFor(request: RequestView): Operation[] | string {
    for (const path of this.profile.pathVariants(request.path)) {
      const matching = this.operations.filter((operation) => operation.matcher.test(path));
      if (!matching.length) continue;
      const sameMethod = matching.filter((operation) => operation.method === request.method);
      if (!sameMethod.length) {
        const others = [...new Set(matching.map((operation) => `${operation.method} ${operation.template}`))];
        return `${request.method} is not an operation of this path in the specification (it has ${others.join(', ')})`;
      }
      const mostConcrete = Math.max(...sameMethod.map((operation) => operation.literalSegments));
      return sameMethod.filter((operation) => operation.literalSegments === mostConcrete);
    }
    const servers = new Set(
      this.documents.flatMap((document) =>
        ((document.root.servers as { url: string }[] | undefined) ?? []).map((server) => server.url),
      ),
    );
    const where = `servers: ${[...servers].join(', ')}`;
    return `no operation of the specification answers ${request.method} ${request.path} (${where})`;
  }

  private verdictFor(operation: Operation, request: RequestView, exchange: RecordedExchange): Verdict {
    const target = this.graphTarget(operation);
    const requestProblems = [
      ...this.credentialProblems(operation, request),
      ...(this.profile.graph
        ? this.graphRequestProblems(operation, request, target)
        : this.requestProblems(operation, request)),
    ];
    const response = this.responseVerdict(operation, request, exchange, target);
    return { problems: [...requestProblems, ...response.problems], unchecked: response.unchecked };
  }

  // ——— credentials ———

  private credentialProblems(operation: Operation, request: RequestView): string[] {
    if (!operation.security.length) return [];
    const met = operation.security.some((requirement) =>
      Object.keys(requirement).every((name) => this.schemeMet(operation.document, name, request)),
    );
    if (met) return [];
    const wanted = operation.security.map((requirement) => Object.keys(requirement).join(' + ') || 'none').join(' or ');
    return [`request: no credentials of the kind the operation takes (${wanted})`];
  }

  private schemeMet(document: VendorDocument, name: string, request: RequestView): boolean {
    const components = isObject(document.root.components) ? document.root.components : {};
    const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {};
    const scheme = resolve(document, schemes[name]);
    if (!isObject(scheme)) throw new Error(`${document.name}: unknown security scheme ${name}`);
    const authorization = request.headers.authorization ?? '';
    const bearer = /^bearer\s+\S/i.test(authorization);
    switch (scheme.type) {
      case 'http':
        return String(scheme.scheme).toLowerCase() === 'basic' ? /^basic\s+\S/i.test(authorization) : bearer;
      case 'oauth2':
      case 'openIdConnect':
        // The Graph API takes the token as an access_token parameter, or as `Authorization: OAuth <token>`.
        return (
          bearer ||
          (this.profile.graph &&
            (this.graphParameters(request).has('access_token') || /^oauth\s+\S/i.test(authorization)))
        );
      case 'apiKey':
        if (scheme.in === 'header') return request.headers[String(scheme.name).toLowerCase()] !== undefined;
        if (scheme.in === 'query') return request.query.has(String(scheme.name));
        return true;
      default:
        return true;
    }
  }

  // ——— requests (Reddit, TikTok) ———

  /** The parameters every operation of the document takes (its supplement's `x-common-parameters`). */
  private commonParameters(operation: Operation): Parameter[] {
    const common = operation.document.root['x-common-parameters'];
    return (Array.isArray(common) ? common : [])
      .filter(isObject)
      .filter((entry) => !Array.isArray(entry['x-methods']) || entry['x-methods'].includes(operation.method))
      .map((entry) => ({ name: String(entry.name), in: 'query', required: false, schema: entry.schema ?? {} }));
  }

  private requestProblems(operation: Operation, request: RequestView): string[] {
    return [
      ...this.queryProblems(operation, request),
      ...this.headerProblems(operation, request),
      ...this.bodyProblems(operation, request),
    ];
  }

  private queryProblems(operation: Operation, request: RequestView): string[] {
    const declared = [
      ...operation.parameters.filter((parameter) => parameter.in === 'query'),
      ...this.commonParameters(operation),
    ];
    const problems = [...request.query].flatMap(([name, value]) => {
      const parameter = declared.find((candidate) => candidate.name === name);
      if (!parameter) return [`request: query parameter "${name}" is not declared`];
      return this.schemas.textProblems(
        operation.document,
        parameter.schema,
        value,
        `request: query parameter "${name}"`,
      );
    });
    const missing = declared
      .filter((parameter) => parameter.required && !request.query.has(parameter.name))
      .map((parameter) => `request: required query parameter "${parameter.name}" is missing`);
    return [...problems, ...missing];
  }

  private headerProblems(operation: Operation, request: RequestView): string[] {
    return operation.parameters
      .filter((parameter) => parameter.in === 'header' && !HEADERS_NOT_PARAMETERS.has(parameter.name.toLowerCase()))
      .flatMap((parameter) => {
        const value = request.headers[parameter.name.toLowerCase()];
        if (value === undefined) {
          return parameter.required ? [`request: required header "${parameter.name}" is missing`] : [];
        }
        return this.schemas.textProblems(
          operation.document,
          parameter.schema,
          value,
          `request: header "${parameter.name}"`,
        );
      });
  }

  private bodyProblems(operation: Operation, request: RequestView): string[] {
    const body = operation.requestBody;
    if (!body) {
      return request.hasBody && !isEmptyBody(request.body)
        ? ['request: a body was sent to an operation that takes none']
        : [];
    }
    if (!request.hasBody) return body.required ? ['request: the required body is missing'] : [];
    const types = Object.keys(body.content);
    const type = request.contentType
      ? types.find((declared) => mediaTypeMatches(declared, request.contentType!))
      : undefined;
    if (!type) {
      const sent = request.contentType ?? '(none)';
      return [`request: the body's content type ${sent} is not one the operation takes (${types.join(', ')})`];
    }
    const schema = body.content[type]!.schema;
    if (schema === undefined || (request.body === undefined && !/json|form/i.test(type))) return [];
    const form = isFormType(type);
    const value = form ? (JSON.parse(JSON.stringify(request.body ?? {})) as unknown) : request.body;
    return [
      ...this.schemas.problems(operation.document, schema, value, 'request body', form ? 'coercing' : 'strict'),
      ...this.schemas
        .undeclaredMembers(operation.document, schema, request.body)
        .map((pointer) => `request body: member ${pointer} is not declared`),
    ];
  }

  // ——— requests (the Graph API) ———

  private graphTarget(operation: Operation): GraphTarget {
    const target = graphTargetOf(operation.document.name, operation.template);
    const node = target && this.graph?.node(target.node);
    if (!target || !node) return null;
    return { node, edge: target.edge, endpoint: this.graph!.endpoint(node, operation.method, target.edge) };
  }

  /** The Graph API reads parameters from the query string and from any body alike. */
  private graphParameters(request: RequestView): Map<string, unknown> {
    const parameters = new Map<string, unknown>(request.query);
    if (isObject(request.body)) for (const [name, value] of Object.entries(request.body)) parameters.set(name, value);
    return parameters;
  }

  private graphRequestProblems(operation: Operation, request: RequestView, target: GraphTarget): string[] {
    const problems: string[] = [];
    if (target && !target.endpoint) {
      const call = target.edge ? `${operation.method} /${target.edge}` : `${operation.method} on the node itself`;
      problems.push(`Meta's node spec ${target.node.name}.json has no ${call}: not a call of the Graph API`);
    }
    const parameters = this.graphParameters(request);
    const openApi = this.openApiParameterSchemas(operation);
    const metaParameters = target?.endpoint?.params ?? [];
    for (const [name, value] of parameters) {
      const metaParameter = metaParameters.find((candidate) => candidate.name === name);
      if (metaParameter) {
        // Meta's own spec wins over the third-party file's for the parameters it declares.
        const problem = this.graph!.valueProblem(metaParameter.type, value);
        if (problem) problems.push(`request: parameter "${name}" ${problem} (${target!.node.name}.json)`);
        continue;
      }
      const schema = openApi.get(name);
      if (schema === undefined) {
        const meta = target ? ` nor by Meta's ${target.node.name}.json` : '';
        problems.push(`request: parameter "${name}" is declared neither by the operation${meta}`);
        continue;
      }
      problems.push(
        ...this.schemas.textProblems(
          operation.document,
          schema,
          this.graphValue(operation, schema, value),
          `request: parameter "${name}"`,
        ),
      );
    }
    const required = new Set([
      ...operation.parameters
        .filter((parameter) => parameter.in === 'query' && parameter.required)
        .map((parameter) => parameter.name),
      ...this.bodyRequiredMembers(operation),
      ...metaParameters.filter((parameter) => parameter.required).map((parameter) => parameter.name),
    ]);
    for (const name of required) {
      if (!parameters.has(name)) problems.push(`request: required parameter "${name}" is missing`);
    }
    return [...problems, ...this.fieldsProblems(parameters.get('fields'), target)];
  }

  /** `fields=` may name only fields and edges of what the call returns (nested ones of their own node). */
  private fieldsProblems(fields: unknown, target: GraphTarget): string[] {
    const returned = target?.endpoint && typeof fields === 'string' ? this.graph!.node(target.endpoint.return) : null;
    if (!returned) return [];
    return this.graph!.selectionProblems(returned, parseFields(fields as string)).map(
      (problem) => `request: fields: ${problem}`,
    );
  }

  /** Every parameter the operation declares, wherever: query parameters, body members, the common ones. */
  private openApiParameterSchemas(operation: Operation): Map<string, unknown> {
    const schemas = new Map<string, unknown>();
    for (const parameter of this.commonParameters(operation)) schemas.set(parameter.name, parameter.schema);
    for (const media of Object.values(operation.requestBody?.content ?? {})) {
      for (const [name, memberSchemas] of declaredMembers(operation.document, media.schema) ?? []) {
        schemas.set(name, memberSchemas[0]);
      }
    }
    for (const parameter of operation.parameters.filter((candidate) => candidate.in === 'query')) {
      schemas.set(parameter.name, parameter.schema);
    }
    return schemas;
  }

  private bodyRequiredMembers(operation: Operation): string[] {
    return Object.values(operation.requestBody?.content ?? {}).flatMap((media) => {
      const schema = resolve(operation.document, media.schema);
      return isObject(schema) && Array.isArray(schema.required) ? schema.required.map(String) : [];
    });
  }

  /** A Graph API parameter of a list or object type may be JSON text, or (a list) names separated by commas. */
  private graphValue(operation: Operation, schema: unknown, value: unknown): unknown {
    const resolved = resolve(operation.document, schema);
    const type = isObject(resolved) ? resolved.type : undefined;
    if (typeof value !== 'string' || (type !== 'array' && type !== 'object')) return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return type === 'array' ? value.split(',').map((item) => item.trim()) : value;
    }
  }

  // ——— responses ———

  private responseVerdict(
    operation: Operation,
    request: RequestView,
    exchange: RecordedExchange,
    target: GraphTarget,
  ): Verdict {
    const { status } = exchange;
    const label = `response ${status}`;
    const declared = responseFor(operation, status);
    const schema = declared ? jsonSchemaOf(declared.content) : undefined;
    const unchecked = (why: string): Verdict => ({
      problems: [],
      unchecked: `${describeOperation(operation)} → ${status}: ${why}`,
    });
    const validate = (against: unknown, what: string) =>
      this.schemas.problems(operation.document, against, exchange.responseBody, what, 'strict');

    if (status >= 400) {
      if (schema !== undefined) return { problems: validate(schema, label), unchecked: null };
      const errorSchema = this.errorSchemas.get(operation.document.name);
      if (operation.raw['x-vendor-error-shape'] === false || !errorSchema) {
        return unchecked('no error body is specified');
      }
      return { problems: validate(errorSchema, `${label} (the vendor's error shape)`), unchecked: null };
    }
    if (!declared) {
      return {
        problems: [
          `${label}: the status is not one the operation answers (${Object.keys(operation.responses).join(', ')})`,
        ],
        unchecked: null,
      };
    }
    const problems = [
      ...this.envelopeProblems(operation, exchange, label),
      ...this.graphAnswerProblems(operation, request, exchange, target),
    ];
    if (schema === undefined) return problems.length ? { problems, unchecked: null } : unchecked('no response schema');
    return { problems: [...validate(schema, label), ...problems], unchecked: null };
  }

  /** TikTok's v2 API answers every call with its error object, code "ok" when it succeeded. */
  private envelopeProblems(operation: Operation, exchange: RecordedExchange, label: string): string[] {
    if (!this.profile.successEnvelope(operation)) return [];
    const errorSchema = this.errorSchemas.get(operation.document.name);
    const problems = this.schemas.problems(
      operation.document,
      errorSchema,
      exchange.responseBody,
      `${label} (TikTok's error object, on every answer)`,
      'strict',
    );
    const body = exchange.responseBody;
    const code = isObject(body) && isObject(body.error) ? body.error.code : undefined;
    if (!problems.length && code !== 'ok') {
      problems.push(`${label}: a success must say error.code "ok", not ${JSON.stringify(code)}`);
    }
    return problems;
  }

  /** What a Graph API read answers: members of the node read (or of each item of an edge), and only those asked for. */
  private graphAnswerProblems(
    operation: Operation,
    request: RequestView,
    exchange: RecordedExchange,
    target: GraphTarget,
  ): string[] {
    if (operation.method !== 'GET' || !target?.endpoint) return [];
    const returned = this.graph!.node(target.endpoint.return);
    if (!returned) return [];
    const fields = this.graphParameters(request).get('fields');
    const selections = typeof fields === 'string' ? parseFields(fields) : null;
    const problems = target.edge
      ? this.graph!.edgeAnswerProblems(returned, exchange.responseBody, selections)
      : this.graph!.nodeAnswerProblems(returned, exchange.responseBody, selections);
    return problems.map((problem) => `response ${exchange.status} ${problem} (${returned.name}.json)`);
  }
}

const checkers = new Map<SpecApi, VendorSpecChecker>();

/** The checker of one API's exchanges, built once (the specifications are parsed and compiled on first use). */
export function loadSpecChecker(api: SpecApi): ExchangeChecker {
  let checker = checkers.get(api);
  if (!checker) {
    checker = new VendorSpecChecker(api, PROFILES[api]);
    checkers.set(api, checker);
  }
  return checker;
}
