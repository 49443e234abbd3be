/**
 * Meta's own machine-readable specification of the Graph API: the node specs of facebook-business-sdk-codegen
 * (`api_specs/specs/<Node>.json`, vendored in test/fixtures/vendor-specs/facebook-business-sdk-codegen/). Each
 * node lists its fields (with types) and its edges and node calls (`apis[]`: method, edge, parameters with types,
 * the node type returned), and `enum_types.json` the values of the enum types.
 *
 * They check what the third-party OpenAPI files cannot: the parameters Meta takes on an edge (and their types),
 * the names in `fields=` (fields and edges of the node read, nested ones included), and the members of what a
 * read answers.
 */
import { existsSync } from 'node:fs';
import { isObject, readVendorFile, VENDOR_SPECS_DIR } from './openapi-documents.ts';

const CODEGEN_DIR = 'facebook-business-sdk-codegen/';

export interface GraphParameter {
  name: string;
  required?: boolean;
  type: string;
}

export interface GraphEndpoint {
  method: string;
  /** The edge (`feed`); absent for calls on the node itself, which have a `name` instead. */
  endpoint?: string;
  /** `#get`, `#update`, `#delete`. */
  name?: string;
  return: string;
  params: GraphParameter[];
}

export interface GraphNode {
  name: string;
  apis: GraphEndpoint[];
  fields: { name: string; type: string }[];
}

/** One name of `fields=`: `comments.summary(true){id,message}` is `comments`, with `id` and `message` inside. */
export interface FieldSelection {
  name: string;
  /** `.as(alias)`: the member's name in the answer. */
  alias: string | null;
  children: FieldSelection[] | null;
}

/**
 * Which node a path of the third-party files (and their supplements) reads: its first segment names it. The
 * Graph API does not say in a path what an id is, so the OpenAPI files name the path parameters after the node.
 */
const NODE_OF_FIRST_SEGMENT: Record<string, Record<string, string>> = {
  facebook: {
    me: 'User',
    '{user-id}': 'User',
    '{page-id}': 'Page',
    '{post-id}': 'PagePost',
    '{comment-id}': 'Comment',
    '{photo-id}': 'Photo',
    '{video-id}': 'AdVideo',
  },
  instagram: {
    me: 'IGUser',
    '{user-id}': 'IGUser',
    '{media-id}': 'IGMedia',
    '{comment-id}': 'IGComment',
    '{hashtag-id}': 'ShadowIGHashtag',
    '{ig-container-id}': 'ShadowIGMediaBuilder',
  },
};

/** The node and edge a path template calls (`/{page-id}/feed`: Page, `feed`); null for other paths. */
export function graphTargetOf(documentName: string, template: string): { node: string; edge: string | null } | null {
  const segments = template.split('/').filter(Boolean);
  const node = NODE_OF_FIRST_SEGMENT[documentName]?.[segments[0] ?? ''];
  if (!node || segments.length > 2 || segments[1]?.includes('{')) return null;
  return { node, edge: segments[1] ?? null };
}

const NODE_CALL_NAMES: Record<string, string> = { GET: '#get', POST: '#update', DELETE: '#delete' };

/** `list<IGMedia>` → `IGMedia`. */
function elementType(type: string): string | null {
  return /^list<(.+)>$/.exec(type)?.[1] ?? null;
}

interface UploadedFileLike {
  filename: string;
  bytes: number;
}

function isUploadedFile(value: unknown): value is UploadedFileLike {
  return isObject(value) && typeof value.filename === 'string' && typeof value.bytes === 'number';
}

/** A list parameter as the Graph API takes it: a JSON array, or names separated by commas. */
function asList(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value;
  if (typeof value !== 'string') return [value];
  if (value.trim().startsWith('[')) {
    try {
      const parsed = JSON.parse(value) as unknown;
      return Array.isArray(parsed) ? parsed : null;
    } catch {
      return null;
    }
  }
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function isJsonObject(value: unknown): boolean {
  if (isObject(value)) return true;
  if (typeof value !== 'string') return false;
  try {
    return isObject(JSON.parse(value));
  } catch {
    return false;
  }
}

const SCALAR_CHECKS: Record<string, (value: unknown) => boolean> = {
  string: (value) => ['string', 'number', 'boolean'].includes(typeof value),
  bool: (value) => typeof value === 'boolean' || /^(true|false|1|0)$/.test(String(value)),
  int: (value) => /^-?\d+$/.test(String(value)),
  'unsigned int': (value) => /^\d+$/.test(String(value)),
  float: (value) => typeof value !== 'object' && value !== '' && Number.isFinite(Number(value)),
  // A Unix time, or a time strtotime() reads (ISO 8601 and the like).
  datetime: (value) =>
    (typeof value === 'number' && Number.isFinite(value)) ||
    (typeof value === 'string' && (/^\d+$/.test(value) || !Number.isNaN(Date.parse(value)))),
};

export function parseFields(text: string): FieldSelection[] {
  return splitTopLevel(text)
    .map((item) => item.trim())
    .filter(Boolean)
    .map(parseSelection);
}

/** Splits at the commas outside parentheses and braces. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '(' || char === '{') depth++;
    else if (char === ')' || char === '}') depth--;
    else if (char === ',' && depth === 0) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function parseSelection(item: string): FieldSelection {
  const name = /^[\w]+/.exec(item)?.[0] ?? item;
  const brace = item.indexOf('{');
  const modifiers = brace >= 0 ? item.slice(name.length, brace) : item.slice(name.length);
  const alias = /\.as\(([^)]+)\)/.exec(modifiers)?.[1] ?? null;
  const children = brace >= 0 ? parseFields(item.slice(brace + 1, item.lastIndexOf('}'))) : null;
  return { name, alias, children };
}

/** The members an edge's answer has besides its list. */
const EDGE_WRAPPER_MEMBERS = new Set(['data', 'paging', 'summary']);

export class GraphSpecs {
  private readonly nodes = new Map<string, GraphNode | null>();
  private readonly enums: Map<string, string[]>;

  constructor() {
    const enums = JSON.parse(readVendorFile(`${CODEGEN_DIR}enum_types.json`)) as { name: string; values: string[] }[];
    this.enums = new Map(enums.map((entry) => [entry.name, entry.values]));
  }

  /** A vendored node spec, or null (a node type whose spec is not vendored is not checked). */
  node(name: string): GraphNode | null {
    if (!this.nodes.has(name)) {
      const path = `${CODEGEN_DIR}${name}.json`;
      const spec = /^\w+$/.test(name) && existsSync(new URL(path, VENDOR_SPECS_DIR)) ? readVendorFile(path) : null;
      this.nodes.set(name, spec ? { name, ...(JSON.parse(spec) as Omit<GraphNode, 'name'>) } : null);
    }
    return this.nodes.get(name)!;
  }

  /** The node's entry for `method` on `edge` (null: the node itself). */
  endpoint(node: GraphNode, method: string, edge: string | null): GraphEndpoint | undefined {
    return node.apis.find((api) =>
      edge === null ? api.name === NODE_CALL_NAMES[method] : api.method === method && api.endpoint === edge,
    );
  }

  /** Why `value` is not of the spec's `type` (null: it is). Form and query values arrive as text. */
  valueProblem(type: string, value: unknown): string | null {
    if (type === 'file') return isUploadedFile(value) ? null : 'must be a file';
    if (isUploadedFile(value)) return `is a file, where ${type} is expected`;
    const element = elementType(type);
    if (element || type === 'list') {
      const items = asList(value);
      if (!items) return `must be a list (${type})`;
      for (const item of element ? items : []) {
        const problem = this.valueProblem(element!, item);
        if (problem) return `has an item ${JSON.stringify(item)} that ${problem}`;
      }
      return null;
    }
    if (type === 'map' || type.startsWith('map<')) return isJsonObject(value) ? null : 'must be a JSON object';
    const enumValues = this.enums.get(type);
    if (enumValues) {
      return enumValues.includes(String(value)) ? null : `must be one of ${enumValues.join(', ')}`;
    }
    const check = SCALAR_CHECKS[type];
    return !check || check(value) ? null : `must be ${type}`;
  }

  /** What a node or edge has under `name`, and of what type. */
  private memberOf(node: GraphNode, name: string): { kind: 'field' | 'edge'; type: string } | null {
    const field = node.fields.find((candidate) => candidate.name === name);
    if (field) return { kind: 'field', type: field.type };
    const edge = node.apis.find((api) => api.method === 'GET' && api.endpoint === name);
    return edge ? { kind: 'edge', type: edge.return } : null;
  }

  /** The node type a member holds (`IGUser`, or the items of `list<InsightsValue>` or of an edge). */
  private nodeHeldBy(member: { type: string }): GraphNode | null {
    return this.node(elementType(member.type) ?? member.type);
  }

  /** Names of `fields=` that are neither fields nor edges of the node read (nested ones of their own node). */
  selectionProblems(node: GraphNode, selections: FieldSelection[], prefix = ''): string[] {
    return selections.flatMap((selection) => {
      const member = this.memberOf(node, selection.name);
      if (!member) return [`"${prefix}${selection.name}" is neither a field nor an edge of ${node.name}`];
      const inner = selection.children ? this.nodeHeldBy(member) : null;
      return inner ? this.selectionProblems(inner, selection.children!, `${prefix}${selection.name}.`) : [];
    });
  }

  /**
   * Members of a read's answer that the node does not have, or that were not asked for: the Graph API answers
   * the fields asked for (and `id`), or the node's default fields.
   */
  nodeAnswerProblems(node: GraphNode, value: unknown, selections: FieldSelection[] | null, pointer = ''): string[] {
    if (!isObject(value)) return [];
    const asked = selections
      ? new Map(selections.map((selection) => [selection.alias ?? selection.name, selection]))
      : null;
    return Object.entries(value).flatMap(([key, memberValue]) => {
      const selection = asked?.get(key);
      if (asked && !selection && key !== 'id') return [`${pointer}/${key} was not asked for (fields=)`];
      const member = this.memberOf(node, selection?.name ?? key);
      if (!member) return [`${pointer}/${key} is neither a field nor an edge of ${node.name}`];
      const inner = this.nodeHeldBy(member);
      if (!inner) return [];
      const children = selection?.children ?? null;
      if (member.kind === 'edge') return this.edgeAnswerProblems(inner, memberValue, children, `${pointer}/${key}`);
      if (Array.isArray(memberValue)) {
        return memberValue.flatMap((item, index) =>
          this.nodeAnswerProblems(inner, item, children, `${pointer}/${key}/${index}`),
        );
      }
      return this.nodeAnswerProblems(inner, memberValue, children, `${pointer}/${key}`);
    });
  }

  /** An edge's answer: `{data: [...], paging, summary}`, each item a node of the edge's type. */
  edgeAnswerProblems(node: GraphNode, value: unknown, selections: FieldSelection[] | null, pointer = ''): string[] {
    if (!isObject(value)) return [];
    const wrapper = Object.keys(value)
      .filter((key) => !EDGE_WRAPPER_MEMBERS.has(key))
      .map((key) => `${pointer}/${key} is not a member of an edge's answer (data, paging, summary)`);
    const items = Array.isArray(value.data) ? value.data : [];
    return [
      ...wrapper,
      ...items.flatMap((item, index) => this.nodeAnswerProblems(node, item, selections, `${pointer}/data/${index}`)),
    ];
  }
}
