/**
 * What a brand host serves is public, and nothing else. Property-based and end to end: each run is a new
 * workspace whose every internal field — in every entity that feeds publishing — holds a distinct random
 * sentinel; the real republish workflow publishes it; then every document the site stored is fetched over
 * HTTP (HTML, markdown twin, file), with the brand host's own endpoints, and the concierge is asked about
 * each sentinel through `/ask` and `/a2a`. No byte of any answer may contain a sentinel.
 *
 * Internal here means the team's working notes (a campaign's objective, brief and goals; variant labels and
 * channel copy; surface names and descriptions; zone names; the brand's voice guide and copy rules; where a
 * product was imported from) and everything not live (a draft campaign, a paused variant, an undeployed
 * surface). Public fields get sentinels of their own, which must show up: a scan that saw nothing would pass
 * for the wrong reason.
 */
import fc from 'fast-check';
import { createContainer } from '../../src/container.ts';
import { brandSiteUrl } from '../../src/http/hosts.ts';
import { createLogger } from '../../src/logger.ts';
import type { RenderedFile, RenderedPage } from '../../src/public/brand-site/site-model.ts';
import { Campaign } from '../../src/domain/campaigns/campaign.entity.ts';
import { Product } from '../../src/domain/products/product.entity.ts';
import { SiteDocument } from '../../src/domain/publishing/site-document.entity.ts';
import { SitePublication } from '../../src/domain/publishing/site-publication.entity.ts';
import { republishOutdatedSites } from '../../src/domain/publishing/publishing.service.ts';
import { PUBLICATION_FORMAT } from '../../src/domain/publishing/site-snapshot.ts';
import { writeSiteDocuments } from '../../src/domain/publishing/site-store.ts';
import { Workspace } from '../../src/domain/workspaces/workspace.entity.ts';
import { createTenant, type Tenant } from '../support/factories.ts';
import { closeTestFetch, testFetch } from '../support/http.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { scopeOf } from '../support/seed.ts';
import { acrossWorkspaces, actors, workspaceScope } from '../../src/domain/shared/scope.ts';
import { eventually as pollEventually } from '../support/poll.ts';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({
    worker: true,
    label: 'publicfields',
    // Every sentinel is asked about: lift the per-visitor question budget for this file.
    env: { BRAND_SITE_CACHE_TTL_MS: '100', CONCIERGE_RATE_LIMIT_PER_MINUTE: '100000' },
  });
});

afterAll(async () => {
  await platform?.close();
  await closeTestFetch();
});

const eventually = <T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 60_000) =>
  pollEventually(probe, what, { timeoutMs, intervalMs: 200 });

/** Internal fields, each of which gets its own sentinel. */
const INTERNAL_FIELDS = [
  'campaign.objective',
  'campaign.brief',
  'campaign.conversionGoal',
  'variant.name',
  'variant.emailSubject',
  'variant.emailPreheader',
  'variant.socialCaption',
  'variant.socialHashtag',
  'variant.webEyebrow',
  'variant.webSectionTitle',
  'variant.imageMediaId',
  'pausedVariant.headline',
  'pausedVariant.body',
  'draftCampaign.name',
  'draftCampaign.objective',
  'draftCampaign.publicSummary',
  'draftVariant.headline',
  'homeSurface.name',
  'homeSurface.description',
  'pageSurface.name',
  'pageSurface.description',
  'homeZone.name',
  'pageZone.name',
  'emailSurface.name',
  'emailSurface.description',
  'emailZone.name',
  'socialSurface.name',
  'socialSurface.channel',
  'brandbook.rule',
  'voice.tone',
  'voice.personality',
  'voice.doSay',
  'voice.dontSay',
  'voice.sampleCopy',
  'product.sourceUrl',
] as const;
type InternalField = (typeof INTERNAL_FIELDS)[number];

/** Public fields with sentinels of their own: they must be found, which shows the scan reads the content. */
const PUBLIC_FIELDS = ['campaign.publicSummary', 'variant.headline', 'faq.answer'] as const;
type PublicField = (typeof PUBLIC_FIELDS)[number];

/** The ways an internal note is written, the way the probes found them ("Launch the … to hikers …"). */
const NOTE_TEMPLATES = [
  (word: string) => `Launch the ${word} line to hikers in Scandinavia before winter; stress recycled materials.`,
  (word: string) => `Internal: ${word} budget is 40k, do not mention the margin.`,
  (word: string) => word,
] as const;

interface Scenario {
  /** Field → its sentinel word (lower-case letters, unique per run, never an English word: a `zq` prefix). */
  sentinels: Record<InternalField | PublicField, string>;
  template: number;
  /** With and without a public summary: the fallback must not reach for an internal field. */
  withSummary: boolean;
}

const scenarioArbitrary: fc.Arbitrary<Scenario> = fc
  .record({
    words: fc.uniqueArray(fc.stringMatching(/^[a-z]{6,10}$/), {
      minLength: INTERNAL_FIELDS.length + PUBLIC_FIELDS.length,
      maxLength: INTERNAL_FIELDS.length + PUBLIC_FIELDS.length,
    }),
    template: fc.integer({ min: 0, max: NOTE_TEMPLATES.length - 1 }),
    withSummary: fc.boolean(),
  })
  .map(({ words, template, withSummary }) => {
    const fields = [...INTERNAL_FIELDS, ...PUBLIC_FIELDS];
    // The index keeps sentinels distinct even where one word is a prefix of another.
    const sentinels = Object.fromEntries(fields.map((field, i) => [field, `zq${i}x${words[i]}`]));
    return { sentinels: sentinels as Scenario['sentinels'], template, withSummary };
  });

let run = 0;

/** A workspace with a sentinel in every internal field, published through the real workflow. */
async function publishScenario(scenario: Scenario): Promise<{ tenant: Tenant; site: string; campaignSlug: string }> {
  const s = scenario.sentinels;
  const note = (field: InternalField) => NOTE_TEMPLATES[scenario.template]!(s[field]);
  const { container } = platform;
  const { brand, products, campaigns, surfaces } = container.services;
  const tenant = await createTenant(container, { name: `Public fields ${(run += 1)}` });
  const scope = scopeOf(container, tenant);

  await brand.updateProfile(scope, {
    displayName: 'Fjell Outdoor',
    tagline: 'Gear for long walks.',
    description: 'An outdoor label from Tromsø.',
  });
  await brand.updateBrandbook(scope, { rules: [note('brandbook.rule')] });
  await brand.updateVoice(scope, {
    tone: note('voice.tone'),
    personality: [s['voice.personality']],
    doSay: [s['voice.doSay']],
    dontSay: [s['voice.dontSay']],
    sampleCopy: note('voice.sampleCopy'),
  });
  await brand.updateConcierge(scope, {
    enabled: true,
    faq: [{ question: 'Do you repair jackets?', answer: `Yes, we repair every jacket ${s['faq.answer']}.` }],
  });

  const product = await products.create(scope, {
    title: 'Recycled shell jacket',
    description: 'A light shell jacket made from recycled nylon.',
    price: 240,
    currency: 'EUR',
  });
  const campaign = await campaigns.create(scope, {
    name: 'Winter walks',
    objective: note('campaign.objective'),
    publicSummary: scenario.withSummary ? `Walk all winter in the ${s['campaign.publicSummary']} shell.` : null,
    productIds: [product.id],
    conversionGoals: [s['campaign.conversionGoal']],
  });
  // Written by generation and by product import, not by a tool: set directly, as those jobs do.
  const em = acrossWorkspaces(container.orm.em);
  await em.nativeUpdate(Campaign, { id: campaign.id }, { brief: { audience: note('campaign.brief') } });
  await em.nativeUpdate(
    Product,
    { id: product.id },
    { sourceUrl: `https://import.example.test/${s['product.sourceUrl']}` },
  );

  await campaigns.createVariant(scope, campaign.id, {
    name: s['variant.name'],
    headline: `Stay dry on the ${s['variant.headline']} trail`,
    body: 'Recycled nylon that sheds rain and packs small.',
    callToAction: 'See the jacket',
    imageRefs: [
      { url: 'https://cdn.example.test/jacket.jpg', alt: 'A shell jacket', mediaId: s['variant.imageMediaId'] },
    ],
    channelFields: {
      email: { subject: note('variant.emailSubject'), preheader: note('variant.emailPreheader') },
      social: { caption: note('variant.socialCaption'), hashtags: [`#${s['variant.socialHashtag']}`] },
      web: { eyebrow: s['variant.webEyebrow'], sectionTitle: s['variant.webSectionTitle'] },
    },
  });
  await campaigns.createVariant(scope, campaign.id, {
    headline: s['pausedVariant.headline'],
    body: note('pausedVariant.body'),
    callToAction: 'Paused',
    status: 'paused',
  });
  await campaigns.publish(scope, campaign.id);

  const draft = await campaigns.create(scope, {
    name: s['draftCampaign.name'],
    objective: note('draftCampaign.objective'),
    publicSummary: note('draftCampaign.publicSummary'),
  });
  await campaigns.createVariant(scope, draft.id, {
    headline: s['draftVariant.headline'],
    body: 'Not published yet.',
    callToAction: 'Soon',
  });

  const home = await surfaces.createSurface(scope, {
    name: s['homeSurface.name'],
    kind: 'brand_page',
    path: '/',
    description: note('homeSurface.description'),
  });
  const page = await surfaces.createSurface(scope, {
    name: s['pageSurface.name'],
    kind: 'brand_page',
    path: '/winter',
    description: note('pageSurface.description'),
  });
  const email = await surfaces.createSurface(scope, {
    name: s['emailSurface.name'],
    kind: 'email',
    description: note('emailSurface.description'),
  });
  await surfaces.createSurface(scope, {
    name: s['socialSurface.name'],
    kind: 'social',
    channel: s['socialSurface.channel'],
  });
  const zones = [
    await surfaces.createZone(scope, { surfaceId: home.id, name: s['homeZone.name'], key: 'hero', kind: 'hero' }),
    await surfaces.createZone(scope, { surfaceId: page.id, name: s['pageZone.name'], key: 'main', kind: 'banner' }),
    await surfaces.createZone(scope, {
      surfaceId: email.id,
      name: s['emailZone.name'],
      key: 'top',
      kind: 'email_block',
    }),
  ];
  for (const zone of zones) await campaigns.deploy(scope, { campaignId: campaign.id, zoneId: zone.id });

  const workspace = await acrossWorkspaces(container.orm.em).findOneOrFail(Workspace, { id: tenant.workspaceId });
  const site = brandSiteUrl(platform.config, workspace.slug);
  // The last deployment was the last change: wait for the publication it asked for, then until the host
  // serves it (a build that started earlier may have read some tables before and some after the changes).
  const lastReason = `deployed to ${zones[zones.length - 1]!.id}`;
  const llms = await eventually(async () => {
    const em = acrossWorkspaces(container.orm.em);
    const publication = await em.findOne(
      SitePublication,
      { workspace: tenant.workspaceId },
      { orderBy: { version: 'desc' } },
    );
    if (!publication?.reasons.some((reason) => reason.endsWith(lastReason))) return undefined;
    const file = await em.findOne(SiteDocument, {
      workspace: tenant.workspaceId,
      version: publication.version,
      path: '/llms.txt',
    });
    return (file?.content as { body?: string } | undefined)?.body;
  }, 'the publication of the last deployment');
  await eventually(
    async () => ((await (await testFetch(`${site}/llms.txt`)).text()) === llms ? true : undefined),
    'the host to serve the last publication',
  );
  return { tenant, site, campaignSlug: campaign.slug };
}

/** Every byte the brand host serves for this site: each stored document in each form, and its endpoints. */
async function everythingServed(
  tenant: Tenant,
  site: string,
  questions: string[],
): Promise<{ where: string; body: string }[]> {
  const em = acrossWorkspaces(platform.container.orm.em);
  const documents = await em.find(SiteDocument, { workspace: tenant.workspaceId }, { orderBy: { version: 'desc' } });
  const latest = documents[0]!.version;
  const served: { where: string; body: string }[] = [];
  const fetchText = async (where: string, path: string, init?: RequestInit) => {
    const response = await testFetch(`${site}${path}`, init);
    const lines: string[] = [];
    response.headers.forEach((value, name) => lines.push(`${name}: ${value}`));
    const headers = lines.join('\n');
    served.push({ where, body: `${response.status}\n${headers}\n\n${await response.text()}` });
  };
  for (const document of documents.filter((candidate) => candidate.version === latest)) {
    await fetchText(document.path, document.path);
    if (document.kind === 'page') {
      await fetchText(`${document.path} (markdown)`, document.path, { headers: { accept: 'text/markdown' } });
      const twin = document.path === '/' ? '/index.md' : `${document.path}.md`;
      await fetchText(twin, twin);
    }
  }
  for (const path of ['/_cp/beacon.js', '/no-such-page', '/.well-known/no-such-file']) await fetchText(path, path);
  for (const question of questions) {
    const ask = await testFetch(`${site}/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: question }),
    });
    served.push({ where: `POST /ask ${question}`, body: await ask.text() });
    const a2a = await testFetch(`${site}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: question }] },
        },
      }),
    });
    served.push({ where: `POST /a2a ${question}`, body: await a2a.text() });
  }
  return served;
}

describe('a brand host serves public fields only', () => {
  test('no internal field of any entity reaches any byte the site serves', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary, async (scenario) => {
        const { tenant, site, campaignSlug } = await publishScenario(scenario);
        const s = scenario.sentinels;
        // Questions aimed straight at each internal note: its sentinel alone, and the note as written.
        const questions = INTERNAL_FIELDS.flatMap((field) => [
          `What is ${s[field]}?`,
          NOTE_TEMPLATES[scenario.template]!(s[field]),
        ]);
        questions.push('Do you repair jackets?', 'Tell me about the winter walks campaign');
        const served = await everythingServed(tenant, site, questions);

        const leaks = served.flatMap(({ where, body }) =>
          INTERNAL_FIELDS.filter((field) => body.toLowerCase().includes(s[field])).map(
            (field) => `${field} at ${where}`,
          ),
        );
        expect(leaks).toEqual([]);

        // The scan covered every kind of document the site publishes…
        expect(served.map((entry) => entry.where)).toEqual(
          expect.arrayContaining([
            '/',
            '/index.md',
            `/campaigns/${campaignSlug}.md`,
            '/winter (markdown)',
            '/llms.txt',
            '/sitemap.xml',
            '/robots.txt',
            '/.well-known/agent-card.json',
            '/.well-known/agent-skills/index.json',
            '/.well-known/agent-skills/ask-venue/SKILL.md',
          ]),
        );
        // …and sees content: the public sentinels are where they belong.
        const at = (where: string) => served.find((entry) => entry.where === where)?.body ?? '';
        const campaignPage = `/campaigns/${campaignSlug}`;
        expect(at(campaignPage)).toContain(s['variant.headline']);
        expect(at('POST /ask Do you repair jackets?')).toContain(s['faq.answer']);
        if (scenario.withSummary) {
          for (const where of [campaignPage, '/llms.txt', '/campaigns'])
            expect(at(where)).toContain(s['campaign.publicSummary']);
        } else {
          // Without a summary the page is still described, by the live variant's headline.
          expect(at(campaignPage)).toMatch(
            new RegExp(`<meta name="description" content="Stay dry on the ${s['variant.headline']} trail"`),
          );
        }
      }),
      { numRuns: 8, endOnFailure: true },
    );
  });
});

describe('a site published under older rules', () => {
  test('is republished when the API starts, so stored pages stop serving what is now internal', async () => {
    const [scenario] = fc.sample(scenarioArbitrary, { numRuns: 1, seed: 18 });
    const { tenant, site } = await publishScenario(scenario!);
    const objective = scenario!.sentinels['campaign.objective'];
    // What a publication written before public fields looks like: format 1, and stored pages that lead with
    // the objective (the old pages did). Written as the next version, the way the old activity wrote one.
    const em = acrossWorkspaces(platform.container.orm.em);
    const current = await em.findOneOrFail(
      SitePublication,
      { workspace: tenant.workspaceId },
      { orderBy: { version: 'desc' } },
    );
    const documents = await em.find(SiteDocument, { workspace: tenant.workspaceId, version: current.version });
    const stale = { version: current.version + 1 };
    await em.transactional(async (tx) => {
      tx.create(SitePublication, {
        workspace: tenant.workspaceId,
        version: stale.version,
        snapshot: current.snapshot,
        origin: current.origin,
        reasons: ['written by the previous release'],
        format: 1,
      });
      await tx.flush();
      const pages = documents.filter((doc) => doc.kind === 'page').map((doc) => doc.content as RenderedPage);
      const files = documents
        .filter((doc) => doc.kind === 'file')
        .map((doc) => doc.content as RenderedFile)
        .map((file) => (file.path === '/llms.txt' ? { ...file, body: `${file.body}\n${objective}\n` } : file));
      await writeSiteDocuments(workspaceScope(tx, tenant.workspaceId, actors.operator), stale.version, {
        pages,
        files,
      });
    });
    await eventually(
      async () => ((await (await testFetch(`${site}/llms.txt`)).text()).includes(objective) ? true : undefined),
      'the host to serve the stale page',
    );

    // An API instance starts (a deploy of the new code): it finds the outdated site and asks for a republish.
    const restarted = await createContainer(platform.config, {
      log: createLogger({ level: 'error', name: 'test' }),
      migrate: false,
    });
    try {
      const republished = await eventually(async () => {
        const latest = await acrossWorkspaces(platform.container.orm.em).findOneOrFail(
          SitePublication,
          { workspace: tenant.workspaceId },
          { orderBy: { version: 'desc' } },
        );
        return latest.version > stale.version ? latest : undefined;
      }, 'the republish the start asked for');
      expect(republished.format).toBe(PUBLICATION_FORMAT);
      expect(republished.reasons).toEqual([expect.stringContaining(`publication format ${PUBLICATION_FORMAT}`)]);
      await eventually(
        async () => ((await (await testFetch(`${site}/llms.txt`)).text()).includes(objective) ? undefined : true),
        'the host to stop serving the stale page',
      );
      // Once current, the site is not asked for again.
      const asked = await republishOutdatedSites({
        em: acrossWorkspaces(platform.container.orm.em),
        republish: { requestRepublish: async () => undefined },
        log: createLogger({ level: 'error', name: 'test' }),
      });
      expect(asked).not.toContain(tenant.workspaceId);
    } finally {
      await restarted.close();
    }
  });
});
