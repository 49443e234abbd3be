/** The MCP Apps pointer from a tool to the campaign inspector widget (`io.modelcontextprotocol/ui`). */
export const INSPECTOR_URI = 'ui://svc/campaign-inspector@1';

export const INSPECTOR_META = {
  ui: { resourceUri: INSPECTOR_URI },
  // The flat key older hosts still read (ext-apps writes both).
  'ui/resourceUri': INSPECTOR_URI,
};
