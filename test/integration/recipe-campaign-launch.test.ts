/**
 * Recipe 1 of the spec (launch a campaign from a product URL) through real MCP clients over HTTP, with a real
 * worker on Temporal: import_from_url of a local product page → quote → generate_campaign start → poll
 * generation_status to complete (and, in a second run, the same through tasks/get) → variants →
 * update_variant → regenerate → publish → deploy to a surface from list_surfaces → fetch the brand page as
 * markdown (`Accept: text/markdown`) and find the published variant live on it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { connectV2, type ConnectedClient, type ToolCallResult } from '../support/mcp-clients.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';
import { pollUntil } from '../support/poll.ts';

let platform: TestPlatform;
let tenant: Tenant;
let shop: http.Server;
let shopUrl: string;

const PRODUCT_PAGE = `<!doctype html><html><head><title>Linen apron</title>
<script type="application/ld+json">${JSON.stringify({
  '@context': 'https://schema.org',
  '@type': 'Product',
  name: 'Washed linen apron',
  description: 'A heavy washed-linen apron with two deep pockets. Machine washable.',
  image: 'https://cdn.example.test/apron.jpg',
  offers: { '@type': 'Offer', price: '39.00', priceCurrency: 'EUR' },
})}</script></head><body><h1>Washed linen apron</h1></body></html>`;

function ok(result: ToolCallResult): Record<string, any> {
  if (result.isError) throw new Error(`tool error: ${result.content[0]?.text}`);
  return result.structuredContent!;
}

beforeAll(async () => {
  shop = http.createServer((request, response) => {
    response.writeHead(request.url === '/apron' ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    response.end(request.url === '/apron' ? PRODUCT_PAGE : 'not found');
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://localhost:${(shop.address() as AddressInfo).port}/apron`;
  platform = await startTestPlatform({
    worker: true,
    label: 'recipe1',
    env: { SSRF_ALLOW_PRIVATE_HOSTS: 'localhost', RATE_LIMIT_PER_MINUTE: '100000' },
  });
  tenant = await createTenant(platform.container, { credits: 500 });
});

afterAll(async () => {
  await platform.close();
  await new Promise((resolve) => shop.close(resolve));
  await closeTestFetch();
});

async function pollGeneration(client: ConnectedClient, campaignId: string) {
  return pollUntil(
    async () => ok(await client.callTool('query_campaigns', { action: 'generation_status', campaignId })).generation,
    (status) => ['complete', 'failed', 'cancelled'].includes(status.status),
    // The tool asks for 2 s between polls; the test polls faster to finish sooner.
    { timeoutMs: 120_000, intervalMs: 200, timeoutMessage: 'generation did not finish' },
  );
}

it('runs recipe 1 end to end, polling generation_status', async () => {
  const client = await connectV2(platform.urls.mcp, { 'x-api-key': tenant.apiKey });
  try {
    const { product } = ok(await client.callTool('manage_products', { action: 'import_from_url', sourceUrl: shopUrl }));
    expect(product).toMatchObject({ title: 'Washed linen apron', price: 39, currency: 'EUR', untrusted: true });

    const start = {
      mode: 'start',
      intent: 'Launch the apron to home cooks',
      productIds: [product.id],
      variantCount: 2,
    };
    const quoted = ok(await client.callTool('generate_campaign', start));
    expect(quoted).toMatchObject({ status: 'quote_required', quote: { credits: 16, sufficient: true } });
    const started = ok(await client.callTool('generate_campaign', { ...start, quoteId: quoted.quote.id }));
    expect(started.status).toBe('started');
    const campaignId = started.campaignId as string;

    const done = await pollGeneration(client, campaignId);
    expect(done).toMatchObject({ status: 'complete', creditsCaptured: 16 });
    const { variants } = ok(await client.callTool('query_campaigns', { action: 'variants', campaignId }));
    expect(variants).toHaveLength(2);
    expect(variants[0].imageRefs[0].url).toMatch(/\/media\/.+\.png$/);

    const edited = ok(
      await client.callTool('manage_campaigns', {
        action: 'update_variant',
        variantId: variants[0].id,
        headline: 'Cook in comfort',
      }),
    );
    expect(edited.variant).toMatchObject({ headline: 'Cook in comfort', version: 2 });

    const regenerate = { mode: 'regenerate', campaignId, fromStep: 'copy', includeImages: false };
    const regenQuote = ok(await client.callTool('generate_campaign', regenerate));
    expect(regenQuote.quote.covers.map((line: { step: string }) => line.step)).toEqual(['copy', 'variants']);
    ok(await client.callTool('generate_campaign', { ...regenerate, quoteId: regenQuote.quote.id }));
    expect(await pollGeneration(client, campaignId)).toMatchObject({ status: 'complete', steps: ['copy', 'variants'] });

    expect(ok(await client.callTool('manage_campaigns', { action: 'publish', campaignId })).campaign.status).toBe(
      'published',
    );
    ok(
      await client.callTool('manage_surfaces', {
        operation: 'create_surface',
        name: 'Home page',
        kind: 'brand_page',
        path: '/',
      }),
    );
    const { surfaces } = ok(await client.callTool('query_surfaces', { operation: 'list_surfaces' }));
    const surfaceId = surfaces[0].id as string;
    const { zone } = ok(
      await client.callTool('manage_surfaces', {
        operation: 'create_zone',
        surfaceId,
        name: 'Hero',
        key: 'hero',
        kind: 'hero',
      }),
    );
    const { deployment } = ok(
      await client.callTool('manage_campaigns', { action: 'deploy', campaignId, zoneId: zone.id }),
    );
    expect(deployment).toMatchObject({ campaignId, zoneId: zone.id, status: 'active' });

    // Step 6: verify on the brand site. The deploy republished it; the page at the surface's URL, fetched as
    // markdown, carries one of the campaign's live variants.
    const live = ok(await client.callTool('query_campaigns', { action: 'variants', campaignId })).variants as {
      headline: string;
      status: string;
    }[];
    const headlines = live.filter((variant) => variant.status === 'active').map((variant) => variant.headline);
    expect(headlines.length).toBeGreaterThan(0);
    const brandPageUrl = (
      ok(await client.callTool('query_surfaces', { operation: 'get_surface', surfaceId })).surface as { url: string }
    ).url;
    const markdown = await pollUntil(
      async () => {
        const page = await testFetch(brandPageUrl, { headers: { accept: 'text/markdown' } });
        return page.status === 200 ? await page.text() : '';
      },
      (text) => headlines.some((headline) => text.includes(headline)),
      { timeoutMs: 30_000, intervalMs: 200, timeoutMessage: 'the brand page never showed a generated headline' },
    );
    expect(markdown.startsWith('# ')).toBe(true);
    expect(headlines.some((headline) => markdown.includes(headline))).toBe(true);

    const balance = await platform.container.services.credits.balance(
      acrossWorkspaces(platform.container.orm.em),
      tenant.workspaceId,
    );
    expect(balance).toMatchObject({ available: 500 - 16 - regenQuote.quote.credits, held: 0 });
  } finally {
    await client.close();
  }
});

it('runs the generation step of recipe 1 through MCP tasks (tasks/get) instead of polling', async () => {
  const client = new ClientV1({ name: 'recipe-tasks', version: '1.0.0' });
  await client.connect(
    new TransportV1(new URL(platform.urls.mcp), {
      fetch: testFetch,
      requestInit: { headers: { 'x-api-key': tenant.apiKey } },
    }),
  );
  try {
    const imported = (
      await client.callTool({ name: 'manage_products', arguments: { action: 'import_from_url', sourceUrl: shopUrl } })
    ).structuredContent as { product: { id: string } };
    const start = {
      mode: 'start',
      intent: 'Aprons as a gift for bakers',
      productIds: [imported.product.id],
      variantCount: 1,
    };
    const quoted = (await client.callTool({ name: 'generate_campaign', arguments: start })).structuredContent as {
      quote: { id: string };
    };
    const created = await client.request(
      {
        method: 'tools/call',
        params: { name: 'generate_campaign', arguments: { ...start, quoteId: quoted.quote.id }, task: {} },
      },
      CreateTaskResultSchema,
    );
    const task = await pollUntil(
      () => client.experimental.tasks.getTask(created.task.taskId),
      (current) => current.status !== 'working',
      { timeoutMs: 120_000, intervalMs: 200, timeoutMessage: `task ${created.task.taskId} still working` },
    );
    expect(task.status).toBe('completed');
    const campaigns = (await client.callTool({ name: 'query_campaigns', arguments: { action: 'list' } }))
      .structuredContent as {
      campaigns: { id: string; name: string; status: string; variantCount: number }[];
    };
    expect(campaigns.campaigns.find((c) => c.name.startsWith('Aprons as a gift'))).toMatchObject({
      status: 'ready',
      variantCount: 1,
    });
  } finally {
    await client.close();
  }
});
