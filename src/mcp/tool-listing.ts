/**
 * What the tool server says about itself to anonymous readers (the MCP server card, the root `/llms.txt`):
 * the default profile's tools as `tools/list` gives them, minus the schemas, and the protocol revisions the
 * endpoint serves. Built here from the compiled catalogue and handed to the renderers in `src/public` as
 * data, so rendering a card never loads the tools (the API passes it at boot; the worker loads it when it
 * first publishes a site).
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import type { ToolServerListing } from '../public/well-known/server-card.ts';
import { DEFAULT_PROFILE } from './profiles.ts';
import { CATALOGUE, type CompiledProfile } from './registry.ts';

/**
 * The stateless 2026-07-28 revision, which the endpoint also serves (see `http-handler.ts`); the SDK's
 * `SUPPORTED_PROTOCOL_VERSIONS` lists only the `initialize`-era revisions.
 */
const MODERN_PROTOCOL_VERSION = '2026-07-28';

export function buildToolServerListing(catalogue: ReadonlyMap<string, CompiledProfile>): ToolServerListing {
  const profile = catalogue.get(DEFAULT_PROFILE);
  if (!profile) throw new Error(`the tool catalogue has no ${DEFAULT_PROFILE} profile`);
  return {
    profile: DEFAULT_PROFILE,
    tools: profile.listing.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      annotations: tool.annotations as Record<string, unknown> | undefined,
    })),
    protocolVersions: [MODERN_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS],
  };
}

/** The listing of this build's catalogue (computed once, on first import). */
export const TOOL_SERVER_LISTING: ToolServerListing = buildToolServerListing(CATALOGUE);
