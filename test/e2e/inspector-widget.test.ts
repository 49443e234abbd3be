/**
 * The campaign inspector widget (MCP Apps, `io.modelcontextprotocol/ui`) in headless Chromium, against a real
 * platform. The test plays the host: it finds the widget through the tool's `_meta.ui.resourceUri`, reads it
 * with a real MCP client (`resources/read`), renders it in a sandboxed iframe (`srcdoc`, `allow-scripts` only),
 * and speaks the host side of the MCP Apps postMessage JSON-RPC protocol by hand (`ui/initialize`, tool input
 * and result notifications). The widget's own `tools/call` requests are forwarded to `/api/mcp` by the real
 * client on the test side (`page.exposeFunction`), so the API key never enters the browser.
 */
import vm from 'node:vm';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../support/browser.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { pollUntil } from '../support/poll.ts';

const INSPECTOR_URI = 'ui://svc/campaign-inspector@1';

interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, any>;
  content: { type: string; text?: string }[];
}

interface RecordedCall {
  name: string;
  args: Record<string, unknown>;
  result: ToolResult;
}

let platform: TestPlatform;
let browser: Browser;
let tenant: Tenant;
let client: Client;

async function callTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

async function callOk(name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const result = await callTool(name, args);
  if (result.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${result.content[0]?.text}`);
  return result.structuredContent!;
}

async function variantsOf(campaignId: string): Promise<Record<string, any>[]> {
  return (await callOk('query_campaigns', { action: 'variants', campaignId })).variants;
}

/**
 * A minimal MCP Apps host. `startHost(html, toolInput, toolResult)` renders the widget and answers it:
 * `ui/initialize` → host info and capabilities; `ui/notifications/initialized` → the tool input and result;
 * `tools/call` → the test's real MCP client (through the exposed `hostCallTool`); other requests → an error.
 */
const HOST_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Test host</title></head>
<body>
<h1>Test host</h1>
<iframe id="widget" title="Campaign inspector" sandbox="allow-scripts" style="width: 900px; height: 1400px"></iframe>
<script>
window.hostLog = [];
window.startHost = (html, toolInput, toolResult) => {
  const iframe = document.getElementById('widget');
  const send = (message) => iframe.contentWindow.postMessage(message, '*');
  window.addEventListener('message', async (event) => {
    if (event.source !== iframe.contentWindow) return;
    const message = event.data;
    if (!message || message.jsonrpc !== '2.0') return;
    window.hostLog.push(message.method ?? 'response');
    if (message.method === 'ui/initialize') {
      send({
        jsonrpc: '2.0',
        id: message.id,
        result: {
          protocolVersion: message.params.protocolVersion,
          hostInfo: { name: 'test-host', version: '1.0.0' },
          hostCapabilities: { serverTools: {} },
          hostContext: { displayMode: 'inline', availableDisplayModes: ['inline'], platform: 'web' },
        },
      });
    } else if (message.method === 'ui/notifications/initialized') {
      send({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: toolInput } });
      send({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: toolResult });
    } else if (message.method === 'tools/call') {
      try {
        const result = await window.hostCallTool(message.params.name, message.params.arguments ?? {});
        send({ jsonrpc: '2.0', id: message.id, result });
      } catch (error) {
        send({ jsonrpc: '2.0', id: message.id, error: { code: -32603, message: String(error && error.message || error) } });
      }
    } else if (message.method && 'id' in message) {
      send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found: ' + message.method } });
    }
  });
  iframe.srcdoc = html;
};
</script>
</body>
</html>`;

beforeAll(async () => {
  platform = await startTestPlatform({ label: 'inspector' });
  browser = await launchBrowser();
  tenant = await createTenant(platform.container);
  client = new Client(
    { name: 'inspector-host', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(platform.urls.mcp), {
      fetch: testFetch,
      requestInit: { headers: { 'x-api-key': tenant.apiKey } },
    }),
  );
});

afterAll(async () => {
  await client?.close();
  await browser?.close();
  await platform?.close();
  await closeTestFetch();
});

it('lists campaigns, shows variants and deployments, and saves variant edits through real tool calls', async () => {
  // A campaign with two variants, made through the tools an agent uses.
  const { campaign } = await callOk('manage_campaigns', { action: 'create', name: 'Spring launch' });
  const first = (
    await callOk('manage_campaigns', {
      action: 'create_variant',
      campaignId: campaign.id,
      name: 'Variant A',
      headline: 'Fresh picks for spring',
      body: 'Everything new this season, in one place.',
      callToAction: 'Shop now',
    })
  ).variant;
  const second = (
    await callOk('manage_campaigns', {
      action: 'create_variant',
      campaignId: campaign.id,
      name: 'Variant B',
      headline: 'Spring is here <b>really</b>',
      body: 'Our <script>alert(1)</script> spring edit.',
      callToAction: 'See the edit',
    })
  ).variant;
  expect(first.version).toBe(1);
  // Published and placed in a zone of a brand page, so it has a deployment to show.
  const { surface } = await callOk('manage_surfaces', {
    operation: 'create_surface',
    name: 'Spring page',
    kind: 'brand_page',
    path: '/spring',
  });
  const { zone } = await callOk('manage_surfaces', {
    operation: 'create_zone',
    surfaceId: surface.id,
    name: 'Hero',
    key: 'hero',
    kind: 'hero',
  });
  await callOk('manage_campaigns', { action: 'publish', campaignId: campaign.id });
  const { deployment } = await callOk('manage_campaigns', {
    action: 'deploy',
    campaignId: campaign.id,
    zoneId: zone.id,
    priority: 5,
  });

  // The host finds the widget from the tool's metadata and reads it as a resource.
  const { tools } = await client.listTools();
  const queryCampaigns = tools.find((tool) => tool.name === 'query_campaigns')!;
  expect((queryCampaigns._meta as any)?.ui?.resourceUri).toBe(INSPECTOR_URI);
  const { resources } = await client.listResources();
  expect(resources.map((r) => r.uri)).toContain(INSPECTOR_URI);
  const read = await client.readResource({ uri: INSPECTOR_URI });
  const content = read.contents[0] as { uri: string; mimeType?: string; text?: string };
  expect(content.uri).toBe(INSPECTOR_URI);
  expect(content.mimeType).toBe('text/html;profile=mcp-app');
  const html = content.text!;
  expect(html).toMatch(/^<!doctype html>/i);
  // Self-contained: no external scripts, styles or images; the widget and the ext-apps runtime are one classic
  // script (it parses as a script, so it imports and exports nothing).
  expect(html).not.toMatch(/src=["']?http/i);
  expect(html).not.toMatch(/<link\b/i);
  expect(html).not.toMatch(/<script[^>]*\ssrc=/i);
  expect(html.match(/<script\b/gi)).toHaveLength(1);
  const script = /<script>([\s\S]*)<\/script>/.exec(html)![1]!;
  expect(() => new vm.Script(script)).not.toThrow();

  // The tool call the host shows the widget for: a real query_campaigns list.
  const toolInput = { action: 'list' };
  const listResult = await callTool('query_campaigns', toolInput);
  expect(listResult.structuredContent!.campaigns).toHaveLength(1);
  const listed = listResult.structuredContent!.campaigns[0];
  expect(listed).toMatchObject({ id: campaign.id, status: 'published', variantCount: 2, activeDeployments: 1 });

  const page: Page = await browser.newPage();
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  const calls: RecordedCall[] = [];
  await page.exposeFunction('hostCallTool', async (name: string, args: Record<string, unknown>) => {
    const result = await callTool(name, args);
    calls.push({ name, args, result });
    return result;
  });
  await page.setContent(HOST_PAGE);
  await page.evaluate(([widget, input, result]) => (window as any).startHost(widget, input, result), [
    html,
    toolInput,
    listResult,
  ] as const);
  const widget: FrameLocator = page.frameLocator('#widget');

  // 1. The list from the host's tool result, with the campaign's status; no tool call needed for it.
  await widget.getByRole('heading', { name: 'Campaigns' }).waitFor();
  const row = widget.getByRole('listitem').filter({ hasText: 'Spring launch' });
  await expect(row.textContent()).resolves.toBe('Spring launchpublished 2 variants, 1 active deployment');
  await expect(widget.getByRole('status').first().textContent()).resolves.toContain('1 campaign');
  expect(calls).toHaveLength(0);
  await screenshot(page, 'inspector-list');

  // 2. Picking the campaign shows both variants, from real tools/call requests.
  await widget.getByRole('button', { name: 'Spring launch' }).click();
  const cardA = widget.getByRole('article', { name: 'Variant A' });
  const cardB = widget.getByRole('article', { name: 'Variant B' });
  await cardA.waitFor();
  await cardB.waitFor();
  const deploymentRow = widget.getByRole('row').filter({ hasText: zone.id });
  await deploymentRow.waitFor();
  await expect(deploymentRow.getByRole('cell').allTextContents()).resolves.toEqual([
    zone.id,
    surface.id,
    'active',
    '5',
  ]);
  expect(deployment.zoneId).toBe(zone.id);
  expect(calls.map((c) => `${c.name} ${c.args.action}`)).toEqual(
    expect.arrayContaining(['query_campaigns variants', 'query_campaigns deployments']),
  );
  expect(calls.find((c) => c.args.action === 'variants')!.args.campaignId).toBe(campaign.id);
  expect(calls.find((c) => c.args.action === 'deployments')!.args.campaignId).toBe(campaign.id);
  await expect(cardA.textContent()).resolves.toMatch(
    /Version 1.*Fresh picks for spring.*Everything new this season, in one place\..*Shop now/,
  );
  await expect(cardA.getByText('Control', { exact: true }).count()).resolves.toBe(1);
  await expect(cardB.getByText('Control', { exact: true }).count()).resolves.toBe(0);
  // Data is text, never markup.
  await expect(cardB.getByText('Spring is here <b>really</b>').count()).resolves.toBe(1);
  await expect(cardB.getByText('Our <script>alert(1)</script> spring edit.').count()).resolves.toBe(1);
  await expect(cardB.locator('b, script').count()).resolves.toBe(0);
  await expect(widget.getByRole('heading', { name: 'Spring launch' }).count()).resolves.toBe(1);
  await screenshot(page, 'inspector-campaign');

  // 3. Editing a headline and saving issues a real manage_campaigns update_variant.
  await cardA.getByRole('button', { name: 'Edit Variant A' }).click();
  await expect(cardA.getByLabel('Headline').inputValue()).resolves.toBe('Fresh picks for spring');
  await expect(cardA.getByLabel('Body').inputValue()).resolves.toBe('Everything new this season, in one place.');
  await expect(cardA.getByLabel('Call to action').inputValue()).resolves.toBe('Shop now');
  await cardA.getByLabel('Headline').fill('Spring picks, hand-chosen');
  await cardA.getByRole('button', { name: 'Save' }).click();
  await cardA.getByText('Saved. Variant A is now version 2.').waitFor();
  await expect(cardA.textContent()).resolves.toMatch(/Version 2.*Spring picks, hand-chosen/);
  const save = calls.find((c) => c.name === 'manage_campaigns')!;
  expect(save.args).toEqual({
    action: 'update_variant',
    variantId: first.id,
    headline: 'Spring picks, hand-chosen',
    body: 'Everything new this season, in one place.',
    callToAction: 'Shop now',
    expectedVersion: 1,
  });
  expect(save.result.isError).toBeFalsy();
  const afterSave = (await variantsOf(campaign.id)).find((v) => v.id === first.id)!;
  expect(afterSave).toMatchObject({ headline: 'Spring picks, hand-chosen', version: 2 });
  await screenshot(page, 'inspector-saved');

  // 4. A failing save (empty headline) shows the server's error text and changes nothing.
  await cardB.getByRole('button', { name: 'Edit Variant B' }).click();
  await cardB.getByLabel('Headline').fill('');
  await cardB.getByRole('button', { name: 'Save' }).click();
  const failed = await waitForCall(calls, (c) => c.name === 'manage_campaigns' && c.args.variantId === second.id);
  expect(failed.result.isError).toBe(true);
  const errorText = failed.result.content[0]!.text!;
  expect(errorText).toMatch(/headline/i);
  await cardB.getByText(errorText, { exact: true }).waitFor();
  await expect(cardB.getByLabel('Headline').isVisible()).resolves.toBe(true);
  const unchanged = (await variantsOf(campaign.id)).find((v) => v.id === second.id)!;
  expect(unchanged).toMatchObject({ headline: 'Spring is here <b>really</b>', version: 1 });
  await screenshot(page, 'inspector-save-error');

  // 5. A save against a version someone else replaced is refused with the server's conflict message.
  await callOk('manage_campaigns', { action: 'update_variant', variantId: first.id, body: 'Changed elsewhere.' });
  const before = calls.length;
  await cardA.getByRole('button', { name: 'Edit Variant A' }).click();
  await cardA.getByLabel('Call to action').fill('Browse spring');
  await cardA.getByRole('button', { name: 'Save' }).click();
  const conflict = await waitForCall(calls, (c, i) => i >= before && c.name === 'manage_campaigns');
  expect(conflict.args.expectedVersion).toBe(2);
  expect(conflict.result.isError).toBe(true);
  await cardA.getByText(conflict.result.content[0]!.text!, { exact: true }).waitFor();
  expect((await variantsOf(campaign.id)).find((v) => v.id === first.id)).toMatchObject({
    body: 'Changed elsewhere.',
    callToAction: 'Shop now',
    version: 3,
  });

  // 6. Back to the list.
  await widget.getByRole('button', { name: 'Back to campaigns' }).click();
  await widget.getByRole('button', { name: 'Spring launch' }).waitFor();

  // The widget fetched nothing over the network and broke nothing; every call went through the host bridge.
  expect(requests.filter((url) => /^(https?|wss?|ftp):/i.test(url))).toEqual([]);
  expect(problems).toEqual([]);
  const hostLog: string[] = await page.evaluate(() => (window as any).hostLog);
  expect(hostLog[0]).toBe('ui/initialize');
  expect(hostLog).toContain('ui/notifications/initialized');
  await page.close();
});

async function waitForCall(
  calls: RecordedCall[],
  match: (call: RecordedCall, index: number) => boolean,
  timeoutMs = 10_000,
): Promise<RecordedCall> {
  const found = await pollUntil(() => calls.find(match), Boolean, {
    timeoutMs,
    intervalMs: 50,
    timeoutMessage: () => `No matching tool call within ${timeoutMs} ms: ${JSON.stringify(calls)}`,
  });
  return found!;
}
