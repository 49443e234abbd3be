/**
 * Workflow ids are business keys: `<kind>:<workspaceId>:<key>`, e.g. `campaign_generation:ws_…:cmp_…`.
 * Starting the same key again while a run is open returns that run (conflict policy "use existing"), which is
 * how a repeated `generate_campaign start` finds the running job instead of starting a second one. The
 * workspace id is part of the key, so keys of two workspaces never collide; ids are ULIDs, so keys cannot be
 * guessed from outside.
 */
export function workflowIdFor(kind: string, workspaceId: string, key: string): string {
  return `${kind}:${workspaceId}:${key}`;
}
