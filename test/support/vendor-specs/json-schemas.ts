/**
 * OpenAPI 3.0 schemas checked with ajv: converted to JSON Schema (draft-07) — `nullable`, `$ref`s to
 * `#/components/schemas/…` (each document's schemas are one ajv schema, so recursive ones work), OpenAPI's
 * formats — and compiled once per schema object.
 *
 * Two validators: a strict one for JSON (request bodies, responses) and a coercing one for values that arrive as
 * text (query strings, url-encoded and multipart forms, headers), where `"true"` is a boolean and `"25"` a number.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import { isObject, resolve, type JsonObject, type VendorDocument } from './openapi-documents.ts';

/** A file part of a multipart form, as standin-server.ts records it. */
const UPLOADED_FILE_SCHEMA = { type: 'object', required: ['filename', 'contentType', 'bytes'] };

/**
 * Meta's datetime fields (`"created_time": "2026-03-01T12:00:00+0000"`, as the Graph API reference shows them)
 * are ISO 8601 with an offset JSON Schema's date-time (RFC 3339) refuses for lack of a colon. Both offset forms,
 * and `Z`, are taken.
 */
const GRAPH_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;

/** OpenAPI keywords with no JSON Schema meaning (documentation, XML, discriminators). */
const DROPPED_KEYWORDS = new Set([
  'nullable',
  'example',
  'examples',
  'xml',
  'externalDocs',
  'discriminator',
  'readOnly',
  'writeOnly',
  'deprecated',
]);

/** OpenAPI formats that add nothing to `type` (sizes of numbers) or are handled apart (`binary`). */
const TYPE_ONLY_FORMATS = new Set(['int32', 'int64', 'float', 'double', 'byte', 'password']);

export interface SchemaOptions {
  /** The format OpenAPI's `date-time` is checked with (`graph-date-time` for Meta). */
  dateTimeFormat: 'date-time' | 'graph-date-time';
}

const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf'];

/** JSON as it is; an object of text members (coerced); one text value. */
type ValidationMode = 'strict' | 'coercing' | 'text';

export class SchemaValidators {
  private readonly strict: Ajv;
  private readonly coercing: Ajv;
  private readonly compiled = new WeakMap<object, Partial<Record<ValidationMode, ValidateFunction>>>();
  private readonly registered = new Set<string>();

  private readonly options: SchemaOptions;

  constructor(options: SchemaOptions) {
    this.options = options;
    this.strict = this.newAjv(false);
    this.coercing = this.newAjv(true);
  }

  private newAjv(coerceTypes: boolean): Ajv {
    // strict: false — the vendors' schemas use keywords in places draft-07's strict mode rejects (a `default`
    // beside a `$ref`, `required` naming a member `properties` does not list).
    const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes, logger: false });
    ajvFormats.default(ajv);
    ajv.addFormat('graph-date-time', GRAPH_DATE_TIME);
    return ajv;
  }

  /** `urn:vendor-spec:facebook`: where a document's component schemas live in ajv. */
  private register(document: VendorDocument): string {
    const id = `urn:vendor-spec:${document.name}`;
    if (this.registered.has(id)) return id;
    this.registered.add(id);
    const components = isObject(document.root.components) ? document.root.components : {};
    const schemas = isObject(components.schemas) ? components.schemas : {};
    const definitions = Object.fromEntries(
      Object.entries(schemas).map(([name, schema]) => [name, this.convert(schema, id)]),
    );
    for (const ajv of [this.strict, this.coercing]) ajv.addSchema({ $id: id, definitions });
    return id;
  }

  /** OpenAPI 3.0 → JSON Schema draft-07. Walks keywords only, so a member named `format` stays a member. */
  convert(schema: unknown, documentId: string): unknown {
    if (typeof schema === 'boolean') return schema;
    if (!isObject(schema)) return {};
    if (typeof schema.$ref === 'string') {
      const name = /^#\/components\/schemas\/(.+)$/.exec(schema.$ref)?.[1];
      if (!name) throw new Error(`unsupported schema $ref ${schema.$ref}`);
      return this.nullable(schema, { $ref: `${documentId}#/definitions/${name}` });
    }
    if (schema.format === 'binary') return UPLOADED_FILE_SCHEMA;
    const converted: JsonObject = {};
    for (const [keyword, value] of Object.entries(schema)) {
      if (DROPPED_KEYWORDS.has(keyword) || keyword.startsWith('x-')) continue;
      if (keyword === 'properties' && isObject(value)) {
        converted.properties = Object.fromEntries(
          Object.entries(value).map(([name, member]) => [name, this.convert(member, documentId)]),
        );
      } else if ((keyword === 'items' || keyword === 'not') && isObject(value)) {
        converted[keyword] = this.convert(value, documentId);
      } else if (keyword === 'additionalProperties' && isObject(value)) {
        converted.additionalProperties = this.convert(value, documentId);
      } else if (SUBSCHEMA_LISTS.includes(keyword) && Array.isArray(value)) {
        converted[keyword] = value.map((member) => this.convert(member, documentId));
      } else if (keyword === 'format') {
        const format = this.formatOf(String(value));
        if (format) converted.format = format;
      } else converted[keyword] = value;
    }
    return this.nullable(schema, converted);
  }

  private formatOf(format: string): string | null {
    if (TYPE_ONLY_FORMATS.has(format)) return null;
    if (format === 'url') return 'uri';
    if (format === 'date-time') return this.options.dateTimeFormat;
    return format;
  }

  /** `nullable: true`: null is one more value the schema takes. */
  private nullable(schema: JsonObject, converted: JsonObject): JsonObject {
    if (schema.nullable !== true) return converted;
    if (typeof converted.type === 'string' && !converted.enum) return { ...converted, type: [converted.type, 'null'] };
    return { anyOf: [converted, { type: 'null' }] };
  }

  private validator(document: VendorDocument, schema: unknown, mode: ValidationMode): ValidateFunction {
    const key = isObject(schema) ? schema : { schema };
    const entry = this.compiled.get(key) ?? {};
    this.compiled.set(key, entry);
    if (!entry[mode]) {
      const converted = this.convert(schema, this.register(document)) as object;
      entry[mode] =
        mode === 'strict'
          ? this.strict.compile(converted)
          : // ajv coerces a value only inside an object or array: a lone text value is checked as a member.
            this.coercing.compile(mode === 'text' ? { type: 'object', properties: { value: converted } } : converted);
    }
    return entry[mode]!;
  }

  /**
   * What is wrong with `value` (empty: nothing), each problem starting with `label` and the JSON pointer of the
   * member at fault. `strict` checks JSON as it is; `coercing` an object whose members arrived as text (a form),
   * converted in place — pass a copy.
   */
  problems(document: VendorDocument, schema: unknown, value: unknown, label: string, mode: 'strict' | 'coercing') {
    const validate = this.validator(document, schema, mode);
    if (validate(value)) return [];
    return describeErrors(validate.errors ?? []).map(
      ({ pointer, text }) => `${label}${pointer ? ` ${pointer}` : ''} ${text}`,
    );
  }

  /** What is wrong with one value that arrived as text (a query or header parameter), as `problems` says it. */
  textProblems(document: VendorDocument, schema: unknown, value: unknown, label: string): string[] {
    const validate = this.validator(document, schema, 'text');
    if (validate({ value })) return [];
    return describeErrors(validate.errors ?? []).map(({ pointer, text }) => {
      const inner = pointer.replace(/^\/value/, '');
      return `${label}${inner ? ` ${inner}` : ''} ${text}`;
    });
  }

  /**
   * The members of `value` (and of the objects inside it) its schema does not declare. Lenient where the schema
   * is silent: an object schema with no `properties`, or with `additionalProperties`, takes any member; and a
   * member any branch of an `anyOf`/`oneOf` declares is declared.
   */
  undeclaredMembers(document: VendorDocument, schema: unknown, value: unknown, pointer = ''): string[] {
    const resolved = resolve(document, schema);
    if (!isObject(resolved)) return [];
    if (Array.isArray(value)) {
      return value.flatMap((item, index) =>
        this.undeclaredMembers(document, resolved.items, item, `${pointer}/${index}`),
      );
    }
    if (!isObject(value) || resolved.format === 'binary') return [];
    const declared = declaredMembers(document, resolved);
    if (!declared) return [];
    return Object.entries(value).flatMap(([name, member]) => {
      if (!declared.has(name)) return [`${pointer}/${name}`];
      // Declared by several branches: undeclared inside only if every branch's schema says so.
      const perSchema = declared
        .get(name)!
        .map((memberSchema) => this.undeclaredMembers(document, memberSchema, member, `${pointer}/${name}`));
      return perSchema[0]!.filter((found) => perSchema.every((list) => list.includes(found)));
    });
  }
}

/**
 * An object schema's members and their schemas, merged over allOf/anyOf/oneOf; null when it takes any member
 * (it declares none, or allows others with `additionalProperties`).
 */
export function declaredMembers(document: VendorDocument, schema: unknown): Map<string, unknown[]> | null {
  const found = collectMembers(document, schema);
  return found === 'open' || !found.declares ? null : found.members;
}

function collectMembers(
  document: VendorDocument,
  schema: unknown,
): { members: Map<string, unknown[]>; declares: boolean } | 'open' {
  const resolved = resolve(document, schema);
  const members = new Map<string, unknown[]>();
  if (!isObject(resolved)) return { members, declares: false };
  if (resolved.additionalProperties !== undefined && resolved.additionalProperties !== false) return 'open';
  let declares = isObject(resolved.properties);
  for (const [name, member] of Object.entries(isObject(resolved.properties) ? resolved.properties : {})) {
    members.set(name, [member]);
  }
  for (const keyword of SUBSCHEMA_LISTS) {
    for (const branch of Array.isArray(resolved[keyword]) ? resolved[keyword] : []) {
      const found = collectMembers(document, branch);
      if (found === 'open') return 'open';
      // A branch of constraints only (`required: [image_url]`) declares nothing.
      if (!found.declares) continue;
      declares = true;
      for (const [name, schemas] of found.members) members.set(name, [...(members.get(name) ?? []), ...schemas]);
    }
  }
  return { members, declares };
}

interface DescribedError {
  /** The JSON pointer of the value at fault ('' for the value itself). */
  pointer: string;
  text: string;
}

/** ajv's errors in words, one per problem; an anyOf/oneOf no branch matched says why each branch failed. */
function describeErrors(errors: ErrorObject[]): DescribedError[] {
  const branchings = errors.filter((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf');
  const inBranch = (error: ErrorObject, branching: ErrorObject) =>
    error.schemaPath.startsWith(`${branching.schemaPath}/`);
  const described = errors
    .filter((error) => !branchings.some((branching) => inBranch(error, branching)))
    .map((error): DescribedError => {
      if (error.keyword !== 'anyOf' && error.keyword !== 'oneOf') return describeError(error);
      const branches = new Map<string, string>();
      for (const branchError of errors.filter((candidate) => inBranch(candidate, error))) {
        const branch = branchError.schemaPath.slice(error.schemaPath.length + 1).split('/')[0]!;
        if (branches.has(branch)) continue;
        const { pointer, text } = describeError(branchError);
        const relative = pointer.slice(error.instancePath.length);
        branches.set(branch, `${relative ? `${relative} ` : ''}${text}`);
      }
      const reasons = [...branches.values()].join('; or ');
      return {
        pointer: error.instancePath,
        text: `matches none of the shapes it may take${reasons ? ` (${reasons})` : ''}`,
      };
    });
  const unique = new Map(described.map((entry) => [`${entry.pointer} ${entry.text}`, entry]));
  return [...unique.values()].slice(0, 5);
}

function describeError(error: ErrorObject): DescribedError {
  const params = error.params as Record<string, unknown>;
  const pointer = error.instancePath;
  if (error.keyword === 'enum') {
    const allowed = (params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ');
    return { pointer, text: `must be one of ${allowed}` };
  }
  if (error.keyword === 'required')
    return { pointer, text: `lacks the required member "${String(params.missingProperty)}"` };
  if (error.keyword === 'additionalProperties') {
    return { pointer, text: `has a member "${String(params.additionalProperty)}" it may not have` };
  }
  return { pointer, text: error.message ?? error.keyword };
}
