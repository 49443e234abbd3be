/**
 * The OAuth scopes of the tool server. A constants-only module, so the public documents that advertise them
 * (auth.md, the server card, protected-resource metadata) need not load the authorization server.
 */
export const MCP_SCOPES = ['mcp:read', 'mcp:write'] as const;
