/**
 * The vendored OpenAPI files of `test/fixtures/vendor-specs/` as one document each: the third-party file, plus its
 * supplement (operations the platform calls that the file lacks), plus its overrides (where the file contradicts
 * the vendor's own documentation, the vendor wins). Both are applied as JSON Merge Patches (RFC 7396): what a
 * reviewer reads in the YAML is exactly what the checker uses.
 *
 * Operations come out flat, with their `$ref`s resolved and a matcher for the request paths they answer (server
 * base path + path template).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
/** js-yaml ships no type declarations: the members used here. */
const jsYaml = require('js-yaml') as {
  load(text: string, options: { schema: unknown; json: boolean; filename: string }): unknown;
  CORE_SCHEMA: unknown;
};

export const VENDOR_SPECS_DIR = new URL('../../fixtures/vendor-specs/', import.meta.url);

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function readVendorFile(relativePath: string): string {
  return readFileSync(new URL(relativePath, VENDOR_SPECS_DIR), 'utf8');
}

function readYaml(relativePath: string): JsonObject {
  // CORE_SCHEMA: dates stay strings. `json: true`: a duplicated key keeps its last value instead of failing —
  // tiktok.yaml defines one path twice (tiktok-overrides.yaml says which definition TikTok's is).
  const value = jsYaml.load(readVendorFile(relativePath), {
    schema: jsYaml.CORE_SCHEMA,
    json: true,
    filename: relativePath,
  });
  if (!isObject(value)) throw new Error(`${relativePath} is not a YAML mapping`);
  return value;
}

/** RFC 7396: objects merge member by member, null removes a member, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const merged: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = mergePatch(merged[key], value);
  }
  return merged;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** A supplement adds operations, each written from a vendor page it names; it never rewrites the file's own. */
function assertSupplementOnlyAdds(name: string, base: JsonObject, supplement: JsonObject): void {
  const basePaths = isObject(base.paths) ? base.paths : {};
  for (const [path, item] of Object.entries(isObject(supplement.paths) ? supplement.paths : {})) {
    if (path in basePaths) throw new Error(`${name}-supplement.yaml redefines ${path} (an override's job)`);
    for (const method of HTTP_METHODS) {
      const operation = isObject(item) ? item[method] : undefined;
      if (isObject(operation) && typeof operation['x-source'] !== 'string') {
        throw new Error(`${name}-supplement.yaml: ${method.toUpperCase()} ${path} has no x-source`);
      }
    }
  }
}

/** The fragment files' own `openapi` and `info` describe the fragment, not the API. */
function patchOf(fragment: JsonObject): JsonObject {
  const { openapi: _openapi, info: _info, ...patch } = fragment;
  return patch;
}

export interface VendorDocument {
  /** `facebook`, `instagram`, `reddit`, `tiktok`: the third-party file's name. */
  name: string;
  root: JsonObject;
}

export function loadVendorDocument(name: string): VendorDocument {
  const base = readYaml(`getlate-dev-openapi-specs/${name}.yaml`);
  let root: unknown = base;
  if (existsSync(new URL(`${name}-supplement.yaml`, VENDOR_SPECS_DIR))) {
    const supplement = readYaml(`${name}-supplement.yaml`);
    assertSupplementOnlyAdds(name, base, supplement);
    root = mergePatch(root, patchOf(supplement));
  }
  if (existsSync(new URL(`${name}-overrides.yaml`, VENDOR_SPECS_DIR))) {
    root = mergePatch(root, patchOf(readYaml(`${name}-overrides.yaml`)));
  }
  return { name, root: root as JsonObject };
}

/** Follows a local `$ref` (`#/components/…`) until it reaches a value. */
export function resolve(document: VendorDocument, value: unknown): unknown {
  let current = value;
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string'; hops++) {
    if (hops > 20) throw new Error(`${document.name}: $ref loop at ${current.$ref}`);
    const ref = current.$ref;
    if (!ref.startsWith('#/')) throw new Error(`${document.name}: only local $refs are supported (${ref})`);
    current = ref
      .slice(2)
      .split('/')
      .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, token) => (isObject(node) ? node[token] : undefined), document.root);
    if (current === undefined) throw new Error(`${document.name}: ${ref} resolves to nothing`);
  }
  return current;
}

export interface Parameter {
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  required: boolean;
  schema: unknown;
}

export interface MediaType {
  schema?: unknown;
}

export interface RequestBody {
  required: boolean;
  content: Record<string, MediaType>;
}

export interface ResponseObject {
  content: Record<string, MediaType> | null;
}

export type SecurityRequirement = Record<string, string[]>;

export interface Operation {
  document: VendorDocument;
  method: string;
  /** The path as the file writes it: `/{page-id}/feed`. */
  template: string;
  parameters: Parameter[];
  requestBody: RequestBody | null;
  /** By status (`200`, `4XX`, `default`). */
  responses: Record<string, ResponseObject>;
  security: SecurityRequirement[];
  /** The operation object itself, for its `x-` extensions. */
  raw: JsonObject;
  /** Matches the request paths the operation answers: a server's base path, then the template. */
  matcher: RegExp;
  /** Concrete segments of the template: OpenAPI matches concrete paths before templated ones. */
  literalSegments: number;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** `{a}`, `{a}.json`: a path template segment as a pattern. */
function segmentPattern(segment: string): string {
  return segment
    .split(/(\{[^}]+\})/)
    .map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+' : escapeRegExp(part)))
    .join('');
}

/**
 * The base path of a server URL as a pattern. A Graph API version segment (`v24.0`) stands for any version: the
 * platform pins one in its configuration, and the stand-ins answer whichever it sends.
 */
function serverBasePattern(url: string): string {
  const path = url.replace(/^[a-z][a-z\d+.-]*:\/\/[^/]*/i, '').replace(/\/+$/, '');
  return path
    .split('/')
    .map((segment) => (/^v\d+\.\d+$/.test(segment) ? 'v\\d+\\.\\d+' : segmentPattern(segment)))
    .join('/');
}

function serverUrls(...levels: unknown[]): string[] {
  const servers = levels.find((level) => Array.isArray(level) && level.length) as unknown[] | undefined;
  return (servers ?? [{ url: '/' }]).map((server) => (isObject(server) ? String(server.url) : '/'));
}

function parametersOf(document: VendorDocument, pathLevel: unknown, operationLevel: unknown): Parameter[] {
  const byKey = new Map<string, Parameter>();
  for (const list of [pathLevel, operationLevel]) {
    for (const entry of Array.isArray(list) ? list : []) {
      const parameter = resolve(document, entry);
      if (!isObject(parameter)) continue;
      const location = String(parameter.in) as Parameter['in'];
      byKey.set(`${location}:${String(parameter.name)}`, {
        name: String(parameter.name),
        in: location,
        required: parameter.required === true || location === 'path',
        schema: parameter.schema ?? {},
      });
    }
  }
  return [...byKey.values()];
}

function contentOf(content: unknown): Record<string, MediaType> | null {
  if (!isObject(content)) return null;
  return Object.fromEntries(
    Object.entries(content).map(([type, media]) => [type, isObject(media) ? { schema: media.schema } : {}]),
  );
}

function requestBodyOf(document: VendorDocument, value: unknown): RequestBody | null {
  const body = resolve(document, value);
  if (!isObject(body)) return null;
  return { required: body.required === true, content: contentOf(body.content) ?? {} };
}

function responsesOf(document: VendorDocument, value: unknown): Record<string, ResponseObject> {
  if (!isObject(value)) return {};
  return Object.fromEntries(
    Object.entries(value).map(([status, response]) => {
      const resolved = resolve(document, response);
      return [status, { content: isObject(resolved) ? contentOf(resolved.content) : null }];
    }),
  );
}

export function operationsOf(document: VendorDocument): Operation[] {
  const operations: Operation[] = [];
  const paths = isObject(document.root.paths) ? document.root.paths : {};
  for (const [template, pathItem] of Object.entries(paths)) {
    if (!isObject(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      const raw = pathItem[method];
      if (!isObject(raw)) continue;
      const bases = serverUrls(raw.servers, pathItem.servers, document.root.servers).map(serverBasePattern);
      const templatePattern = template.split('/').map(segmentPattern).join('/');
      operations.push({
        document,
        method: method.toUpperCase(),
        template,
        parameters: parametersOf(document, pathItem.parameters, raw.parameters),
        requestBody: raw.requestBody === undefined ? null : requestBodyOf(document, raw.requestBody),
        responses: responsesOf(document, raw.responses),
        security: (Array.isArray(raw.security)
          ? raw.security
          : (document.root.security ?? [])) as SecurityRequirement[],
        raw,
        matcher: new RegExp(`^(?:${[...new Set(bases)].join('|')})${templatePattern}$`),
        literalSegments: template.split('/').filter((segment) => segment && !segment.includes('{')).length,
      });
    }
  }
  return operations;
}
