/**
 * The vendor-specification checker the network stand-ins run every exchange through
 * (test/support/vendor-specs/spec-checker.ts): for each API, an exchange the real API has passes, and drift — a
 * path the API does not have, a required parameter left out, a parameter the API does not declare, an answer of
 * the wrong shape, an error that is not the vendor's — is reported. The exchanges are the ones the platform makes.
 */
import type { RecordedExchange } from '../support/standins/standin-server.ts';
import { loadSpecChecker, uncheckedOperations, type SpecApi } from '../support/vendor-specs/spec-checker.ts';

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json; charset=UTF-8';

/** An exchange as standin-server.ts records it (the content type is a header of the request too). */
function exchange(fields: Partial<RecordedExchange> & Pick<RecordedExchange, 'method' | 'url'>): RecordedExchange {
  const { requestHeaders = {}, ...rest } = fields;
  const contentType: Record<string, string> = fields.requestContentType
    ? { 'content-type': fields.requestContentType }
    : {};
  return {
    requestContentType: null,
    requestBody: undefined,
    status: 200,
    responseHeaders: { 'content-type': 'application/json; charset=utf-8' },
    responseBody: undefined,
    ...rest,
    requestHeaders: { ...contentType, ...requestHeaders },
  };
}

function problemsOf(api: SpecApi, recorded: RecordedExchange): string[] {
  return loadSpecChecker(api)
    .check(recorded)
    .map((violation) => violation.problem);
}

describe('Meta (Graph API: Facebook Pages, Instagram)', () => {
  const GRAPH = 'http://127.0.0.1:40001/v24.0';
  const PAGE_TOKEN = { authorization: 'Bearer EAAPage' };
  const CALLBACK = 'https://app.example/cb';

  const pagePost = (fields: Partial<RecordedExchange> = {}) =>
    exchange({
      method: 'POST',
      url: `${GRAPH}/123/feed`,
      requestHeaders: PAGE_TOKEN,
      requestContentType: FORM,
      requestBody: { message: 'Spring sale', link: 'https://acme.example/_cp/go?c=1&v=2&p=3' },
      responseBody: { id: '123_456' },
      ...fields,
    });

  it('passes a Page post with a message and a link, answered with the post id', () => {
    const recorded = pagePost();
    expect(loadSpecChecker('meta').check(recorded)).toEqual([]);
    // The same parameters as JSON, and the token as a parameter: the Graph API takes both.
    expect(
      problemsOf(
        'meta',
        pagePost({ url: `${GRAPH}/123/feed?access_token=EAAPage`, requestHeaders: {}, requestContentType: JSON_TYPE }),
      ),
    ).toEqual([]);
  });

  it('passes an Instagram container, the read of its status and its publication', () => {
    const IG_TOKEN = { authorization: 'Bearer EAAUser' };
    expect(
      problemsOf(
        'meta',
        exchange({
          method: 'POST',
          url: `${GRAPH}/17841400000000001/media`,
          requestHeaders: IG_TOKEN,
          requestContentType: FORM,
          requestBody: { image_url: 'https://media.example/a.jpg', caption: 'Spring sale', alt_text: 'A red bike' },
          responseBody: { id: '17890000000000001' },
        }),
      ),
    ).toEqual([]);
    // `/{id}` is any node: the checker finds the one the fields belong to (a container, ShadowIGMediaBuilder).
    expect(
      problemsOf(
        'meta',
        exchange({
          method: 'GET',
          url: `${GRAPH}/17890000000000001?fields=status_code,status`,
          requestHeaders: IG_TOKEN,
          responseBody: {
            status_code: 'FINISHED',
            status: 'Finished: Media has been uploaded',
            id: '17890000000000001',
          },
        }),
      ),
    ).toEqual([]);
    expect(
      problemsOf(
        'meta',
        exchange({
          method: 'POST',
          url: `${GRAPH}/17841400000000001/media_publish`,
          requestHeaders: IG_TOKEN,
          requestContentType: FORM,
          requestBody: { creation_id: '17890000000000001' },
          responseBody: { id: '17900000000000001' },
        }),
      ),
    ).toEqual([]);
  });

  it('passes the OAuth code exchange and a Page list with the linked Instagram accounts', () => {
    const codeExchange = new URLSearchParams({
      client_id: '1',
      client_secret: 's',
      redirect_uri: CALLBACK,
      code: 'AQD',
    });
    expect(
      problemsOf(
        'meta',
        exchange({
          method: 'GET',
          url: `${GRAPH}/oauth/access_token?${codeExchange}`,
          responseBody: { access_token: 'EAAUser', token_type: 'bearer', expires_in: 5183944 },
        }),
      ),
    ).toEqual([]);
    expect(
      problemsOf(
        'meta',
        exchange({
          method: 'GET',
          url: `${GRAPH}/me/accounts?fields=id,name,access_token,instagram_business_account{id,username}`,
          requestHeaders: { authorization: 'Bearer EAAUser' },
          responseBody: {
            data: [
              {
                id: '123',
                name: 'Acme',
                access_token: 'EAAPage',
                instagram_business_account: { id: '1784', username: 'acme' },
              },
            ],
            paging: { cursors: { before: 'QVFI', after: 'QVFJ' } },
          },
        }),
      ),
    ).toEqual([]);
  });

  it('reports a path the Graph API does not have, and a call without the version', () => {
    const [unknown] = problemsOf('meta', pagePost({ url: `${GRAPH}/123/posts_publish` }));
    expect(unknown).toMatch(/^no operation of the specification answers POST \/v24\.0\/123\/posts_publish/);
    const [unversioned] = problemsOf('meta', pagePost({ url: 'http://127.0.0.1:40001/123/feed' }));
    expect(unversioned).toContain('https://graph.facebook.com/v24.0');
    // A path of the third-party file that Meta's own node spec does not have.
    expect(
      problemsOf(
        'meta',
        exchange({
          method: 'POST',
          url: `${GRAPH}/1784/media_containers`,
          requestHeaders: PAGE_TOKEN,
          requestContentType: FORM,
          requestBody: { image_url: 'https://media.example/a.jpg' },
          responseBody: { id: '1' },
        }),
      ),
    ).toEqual([expect.stringContaining("Meta's node spec IGUser.json has no POST /media_containers")]);
  });

  it('reports a required parameter left out', () => {
    expect(
      problemsOf(
        'meta',
        exchange({
          method: 'POST',
          url: `${GRAPH}/1784/media_publish`,
          requestHeaders: PAGE_TOKEN,
          requestContentType: FORM,
          requestBody: { container_id: '1789' },
          responseBody: { id: '1790' },
        }),
      ),
    ).toEqual([
      expect.stringContaining(
        'parameter "container_id" is declared neither by the operation nor by Meta\'s IGUser.json',
      ),
      expect.stringContaining('required parameter "creation_id" is missing'),
    ]);
  });

  it('reports a parameter neither the file nor Meta declares, and a value Meta types otherwise', () => {
    const problems = problemsOf(
      'meta',
      pagePost({ requestBody: { message: 'Spring sale', link: 'https://acme.example/', published: 'yes', via: 'x' } }),
    );
    expect(problems).toEqual([
      expect.stringContaining('parameter "published" must be bool (Page.json)'),
      expect.stringContaining('parameter "via" is declared neither by the operation nor by Meta\'s Page.json'),
    ]);
  });

  it('reports fields= names the node does not have, and answer members that were not asked for', () => {
    const read = (url: string, responseBody: unknown) =>
      problemsOf('meta', exchange({ method: 'GET', url, requestHeaders: PAGE_TOKEN, responseBody }));
    expect(
      read(`${GRAPH}/123_456?fields=permalink_url,shares,reactions.summary(total_count).limit(0)`, {
        id: '123_456',
        permalink_url: 'https://www.facebook.com/123/posts/456',
        shares: { count: 2 },
        reactions: { data: [], summary: { total_count: 7 } },
      }),
    ).toEqual([]);
    // `link` is a field of a user's Post, not of a Page's post.
    expect(read(`${GRAPH}/123_456?fields=permalink_url,link`, { id: '123_456', permalink_url: 'https://x' })).toEqual([
      expect.stringContaining('fields: "link" is neither a field nor an edge of PagePost'),
    ]);
    expect(
      read(`${GRAPH}/123_456?fields=permalink_url`, { id: '123_456', permalink_url: 'https://x', message: 'hi' }),
    ).toEqual([expect.stringContaining('/message was not asked for')]);
  });

  it('reports an answer of the wrong shape', () => {
    expect(problemsOf('meta', pagePost({ responseBody: { id: 123456 } }))).toEqual([
      expect.stringContaining('response 200 /id must be string'),
    ]);
    expect(
      problemsOf(
        'meta',
        exchange({
          method: 'GET',
          url: `${GRAPH}/17890000000000001?fields=status_code`,
          requestHeaders: PAGE_TOKEN,
          responseBody: { status_code: 'DONE', id: '17890000000000001' },
        }),
      ),
    ).toEqual([expect.stringMatching(/^GET \/\{ig-container-id\} .*\/status_code must be one of "EXPIRED"/)]);
  });

  it("reports an error answer that is not Meta's error", () => {
    const refused = (responseBody: unknown) => pagePost({ status: 400, responseBody });
    expect(
      problemsOf(
        'meta',
        refused({ error: { message: 'Invalid parameter', type: 'OAuthException', code: 100, fbtrace_id: 'A1' } }),
      ),
    ).toEqual([]);
    expect(problemsOf('meta', refused({ error: { message: 'Invalid parameter', code: 100 } }))).toEqual([
      expect.stringContaining('response 400 (the vendor\'s error shape) /error lacks the required member "type"'),
    ]);
  });
});

describe('Reddit', () => {
  const OAUTH = 'https://oauth.reddit.com';
  const USER_TOKEN = { authorization: 'bearer 1234-abcd', 'user-agent': 'web:campaign-platform:0.1.0 (by /u/acme)' };

  const submit = (fields: Partial<RecordedExchange> = {}) =>
    exchange({
      method: 'POST',
      url: `${OAUTH}/api/submit`,
      requestHeaders: USER_TOKEN,
      requestContentType: FORM,
      requestBody: { sr: 'acme', kind: 'self', title: 'Spring sale', text: 'Bikes, 20% off', api_type: 'json' },
      responseBody: {
        json: {
          errors: [],
          data: { id: '1abcde', name: 't3_1abcde', url: 'https://www.reddit.com/r/acme/comments/1abcde/spring_sale/' },
        },
      },
      ...fields,
    });

  it('passes a self post, the subreddit checks before it, and the metrics read after it', () => {
    expect(problemsOf('reddit', submit())).toEqual([]);
    expect(
      problemsOf(
        'reddit',
        exchange({
          method: 'GET',
          url: `${OAUTH}/api/v1/acme/post_requirements`,
          requestHeaders: USER_TOKEN,
          responseBody: {
            is_flair_required: true,
            title_text_max_length: 120,
            title_text_min_length: null,
            body_restriction_policy: 'none',
          },
        }),
      ),
    ).toEqual([]);
    expect(
      problemsOf(
        'reddit',
        exchange({
          method: 'GET',
          url: `${OAUTH}/api/info?id=t3_1abcde&raw_json=1`,
          requestHeaders: USER_TOKEN,
          responseBody: {
            kind: 'Listing',
            data: {
              after: null,
              before: null,
              dist: 1,
              modhash: '',
              children: [{ kind: 't3', data: { id: '1abcde', score: 12, num_comments: 3, likes: null } }],
            },
          },
        }),
      ),
    ).toEqual([]);
  });

  it('reports a path Reddit does not have', () => {
    expect(problemsOf('reddit', submit({ url: `${OAUTH}/api/v2/submit` }))).toEqual([
      expect.stringMatching(/^no operation of the specification answers POST \/api\/v2\/submit/),
    ]);
  });

  it('reports a required parameter left out', () => {
    expect(
      problemsOf('reddit', submit({ requestBody: { sr: 'acme', kind: 'self', text: 'Bikes', api_type: 'json' } })),
    ).toEqual([expect.stringContaining('request body lacks the required member "title"')]);
  });

  it('reports a parameter Reddit does not declare, and a kind it does not take', () => {
    expect(
      problemsOf(
        'reddit',
        submit({ requestBody: { sr: 'acme', kind: 'poll', title: 'Which bike?', poll_options: 'a,b' } }),
      ),
    ).toEqual([
      expect.stringContaining('request body /kind must be one of "link", "self", "image", "video", "videogif"'),
      expect.stringContaining('request body: member /poll_options is not declared'),
    ]);
  });

  it('reports an answer of the wrong shape', () => {
    expect(
      problemsOf('reddit', submit({ responseBody: { json: { errors: 'none', data: { id: '1abcde' } } } })),
    ).toEqual([expect.stringContaining('response 200 /json/errors must be array')]);
  });

  it("reports an error answer that is not Reddit's", () => {
    expect(problemsOf('reddit', submit({ status: 403, responseBody: { message: 'Forbidden', error: 403 } }))).toEqual(
      [],
    );
    expect(
      problemsOf(
        'reddit',
        submit({
          status: 400,
          responseBody: {
            json: { errors: [['SUBMIT_VALIDATION_FLAIR_REQUIRED', 'Post must contain post flair.', 'flair']] },
          },
        }),
      ),
    ).toEqual([]);
    expect(problemsOf('reddit', submit({ status: 403, responseBody: { error: 'Forbidden' } }))).toEqual([
      expect.stringContaining(
        "response 403 (the vendor's error shape) matches none of the shapes it may take " +
          '(lacks the required member "json"; or lacks the required member "message")',
      ),
    ]);
  });
});

describe('TikTok (Content Posting API)', () => {
  const API = 'https://open.tiktokapis.com/v2';
  const USER_TOKEN = { authorization: 'Bearer act.1234' };
  const OK = { code: 'ok', message: '', log_id: '20261127120000ABCDEF' };

  const videoInit = (fields: Partial<RecordedExchange> = {}) =>
    exchange({
      method: 'POST',
      url: `${API}/post/publish/video/init/`,
      requestHeaders: USER_TOKEN,
      requestContentType: JSON_TYPE,
      requestBody: {
        post_info: {
          title: 'Spring sale #bikes',
          privacy_level: 'SELF_ONLY',
          disable_comment: false,
          brand_content_toggle: false,
        },
        source_info: { source: 'PULL_FROM_URL', video_url: 'https://media.example/v.mp4' },
      },
      responseBody: { data: { publish_id: 'v_pub_url~v2.123456789' }, error: OK },
      ...fields,
    });

  it('passes a direct video post, its status and a chunk sent to the upload URL', () => {
    expect(problemsOf('tiktok', videoInit())).toEqual([]);
    expect(
      problemsOf(
        'tiktok',
        exchange({
          method: 'POST',
          url: `${API}/post/publish/status/fetch/`,
          requestHeaders: USER_TOKEN,
          requestContentType: JSON_TYPE,
          requestBody: { publish_id: 'v_pub_url~v2.123456789' },
          responseBody: {
            data: { status: 'PUBLISH_COMPLETE', publicaly_available_post_id: [7310000000000000000] },
            error: OK,
          },
        }),
      ),
    ).toEqual([]);
    expect(
      problemsOf(
        'tiktok',
        exchange({
          method: 'PUT',
          url: 'https://open-upload.tiktokapis.com/video/?upload_id=67890&upload_token=Xza123',
          requestHeaders: { 'content-range': 'bytes 0-9999/10000', 'content-length': '10000' },
          requestContentType: 'video/mp4',
          status: 201,
          responseHeaders: {},
          responseBody: '',
        }),
      ),
    ).toEqual([]);
  });

  it('reports a path TikTok does not have, and one without the /v2 of its server', () => {
    expect(problemsOf('tiktok', videoInit({ url: `${API}/post/publish/video/start/` }))).toEqual([
      expect.stringMatching(/^no operation of the specification answers POST \/v2\/post\/publish\/video\/start\//),
    ]);
    expect(problemsOf('tiktok', videoInit({ url: 'https://open.tiktokapis.com/post/publish/video/init/' }))).toEqual([
      expect.stringContaining('servers: https://open.tiktokapis.com/v2'),
    ]);
  });

  it('reports a required parameter left out', () => {
    expect(
      problemsOf('tiktok', videoInit({ requestBody: { post_info: { title: 'x', privacy_level: 'SELF_ONLY' } } })),
    ).toEqual([expect.stringContaining('request body lacks the required member "source_info"')]);
  });

  it('reports a parameter TikTok does not declare, and a privacy level it does not have', () => {
    expect(
      problemsOf(
        'tiktok',
        videoInit({
          requestBody: {
            post_info: { title: 'x', privacy_level: 'PRIVATE', express_consent_given: true },
            source_info: { source: 'PULL_FROM_URL', video_url: 'https://media.example/v.mp4' },
          },
        }),
      ),
    ).toEqual([
      expect.stringContaining('request body /post_info/privacy_level must be one of "PUBLIC_TO_EVERYONE"'),
      expect.stringContaining('request body: member /post_info/express_consent_given is not declared'),
    ]);
  });

  it("reports an answer of the wrong shape, and a success without TikTok's error object", () => {
    expect(problemsOf('tiktok', videoInit({ responseBody: { data: { publish_id: 123456789 }, error: OK } }))).toEqual([
      expect.stringContaining('response 200 /data/publish_id must be string'),
    ]);
    expect(problemsOf('tiktok', videoInit({ responseBody: { data: { publish_id: 'v_pub_url~v2.1' } } }))).toEqual([
      expect.stringContaining(
        'response 200 (TikTok\'s error object, on every answer) lacks the required member "error"',
      ),
    ]);
  });

  it("reports an error answer that is not TikTok's", () => {
    const refused = (responseBody: unknown) => videoInit({ status: 429, responseBody });
    expect(
      problemsOf(
        'tiktok',
        refused({ error: { code: 'rate_limit_exceeded', message: 'Too many requests', log_id: 'L1' } }),
      ),
    ).toEqual([]);
    expect(
      problemsOf('tiktok', refused({ error: { code: 'rate_limit_exceeded', message: 'Too many requests' } })),
    ).toEqual([
      expect.stringContaining('response 429 (the vendor\'s error shape) /error lacks the required member "log_id"'),
    ]);
  });
});

describe('the checker', () => {
  it('is built once per API', () => {
    expect(loadSpecChecker('reddit')).toBe(loadSpecChecker('reddit'));
    expect(loadSpecChecker('reddit')).not.toBe(loadSpecChecker('tiktok'));
  });

  it('lists, once, the operations whose answers it met without a schema to check them against', () => {
    const deletion = exchange({
      method: 'POST',
      url: 'https://oauth.reddit.com/api/del',
      requestHeaders: { authorization: 'bearer 1234-abcd' },
      requestContentType: FORM,
      requestBody: { id: 't3_1abcde' },
      responseBody: {},
    });
    expect(problemsOf('reddit', deletion)).toEqual([]);
    expect(problemsOf('reddit', deletion)).toEqual([]);
    expect(uncheckedOperations('reddit')).toEqual(['reddit POST /api/del (reddit.yaml) → 200: no response schema']);
  });
});
