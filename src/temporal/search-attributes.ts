/**
 * Custom search attributes every job workflow carries, so operators can filter the Temporal UI by workspace,
 * campaign and job kind (`WorkspaceId = "ws_…" AND JobKind = "campaign_generation"`). Ids only, never PII.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import proto from '@temporalio/proto';

const { temporal } = proto;

export const WorkspaceIdKey = defineSearchAttributeKey('WorkspaceId', SearchAttributeType.KEYWORD);
export const CampaignIdKey = defineSearchAttributeKey('CampaignId', SearchAttributeType.KEYWORD);
export const JobKindKey = defineSearchAttributeKey('JobKind', SearchAttributeType.KEYWORD);

export const CUSTOM_SEARCH_ATTRIBUTES = ['WorkspaceId', 'CampaignId', 'JobKind'] as const;

/** Minimal shape of the operator service we need (both the client and the native connection expose it). */
interface OperatorService {
  listSearchAttributes(request: { namespace: string }): Promise<{ customAttributes?: Record<string, unknown> | null }>;
  addSearchAttributes(request: {
    namespace: string;
    searchAttributes: Record<string, proto.temporal.api.enums.v1.IndexedValueType>;
  }): Promise<unknown>;
}

/**
 * Registers the custom search attributes if missing. The dev server's `--search-attribute` flag only applies
 * when its namespace is first created, so this also runs at every boot (idempotent).
 */
export async function ensureSearchAttributes(operator: OperatorService, namespace: string): Promise<string[]> {
  const existing = await operator.listSearchAttributes({ namespace });
  const present = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = CUSTOM_SEARCH_ATTRIBUTES.filter((name) => !present.has(name));
  if (missing.length === 0) return [];
  try {
    await operator.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(
        missing.map((name) => [name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
      ),
    });
  } catch (error) {
    // Another process (the worker and the API boot together) may have added them first.
    if (/already exists/i.test(String((error as Error).message))) return missing;
    // A managed cluster may keep search attributes for its own tools (Temporal Cloud: its UI or `tcld`), and a
    // cluster with an authorizer may refuse them to this identity: say what to create instead of a bare gRPC code.
    if (/permission|denied|unauthori[sz]ed|unimplemented|not supported/i.test(String((error as Error).message))) {
      throw new Error(
        `Temporal refused to add the search attributes ${missing.join(', ')} to namespace ${namespace}: create them as ` +
          `Keyword attributes with the cluster's own tools (Temporal Cloud: its web UI, or \`tcld namespace search-attributes add\`), then start again`,
        { cause: error },
      );
    }
    throw error;
  }
  return missing;
}
