/**
 * Secrets never reach a log line, even from a careless `log.info({ … })`: request credentials, passwords and
 * tokens, and a channel account's app password, tokens and credentials object.
 */
import { createLogger } from '../../src/logger.ts';

function logged(fields: Record<string, unknown>): string {
  const lines: string[] = [];
  const log = createLogger({ level: 'info', name: 'redaction-test' }, { write: (line: string) => lines.push(line) });
  log.info(fields, 'something happened');
  return lines.join('');
}

describe('log redaction', () => {
  it('redacts request credentials and fields named like secrets', () => {
    const line = logged({
      req: { headers: { authorization: 'Bearer abc.def', 'x-api-key': 'cpk_live_123', cookie: 'sid=1' } },
      user: { password: 'hunter22', apiKey: 'cpk_live_456' },
      token: 'tok_789',
    });
    for (const secret of ['abc.def', 'cpk_live_123', 'sid=1', 'hunter22', 'cpk_live_456', 'tok_789']) {
      expect(line).not.toContain(secret);
    }
    expect(line).toContain('[redacted]');
  });

  it("redacts a channel account's app password, tokens and credentials", () => {
    const line = logged({
      account: { id: 'cha_1', credentials: 'v2.kid.sealed-payload' },
      session: { appPassword: 'abcd-efgh-ijkl-mnop', accessJwt: 'eyJhbGciOi.access', refreshJwt: 'eyJhbGciOi.refresh' },
    });
    for (const secret of ['sealed-payload', 'abcd-efgh-ijkl-mnop', 'eyJhbGciOi']) expect(line).not.toContain(secret);
    expect(JSON.parse(line)).toMatchObject({ account: { id: 'cha_1', credentials: '[redacted]' } });
  });

  it("redacts Meta's, Reddit's and TikTok's tokens, the apps' secrets and an OAuth flow's verifier", () => {
    const line = logged({
      meta: { userAccessToken: 'EAAB-user', pageAccessToken: 'EAAB-page', appSecret: 'meta-app-secret' },
      answer: { access_token: 'act.tiktok-access', refresh_token: 'rft.tiktok-refresh', open_id: 'open-1' },
      reddit: { clientSecret: 'reddit-secret', client_secret: 'reddit-form-secret' },
      oauth: { codeVerifier: 'pkce-verifier', code_verifier: 'pkce-form-verifier', flow: 'v2.kid.flow-cookie' },
    });
    for (const secret of [
      'EAAB-user',
      'EAAB-page',
      'meta-app-secret',
      'tiktok-access',
      'tiktok-refresh',
      'reddit-secret',
      'reddit-form-secret',
      'pkce-verifier',
      'pkce-form-verifier',
      'flow-cookie',
    ]) {
      expect(line).not.toContain(secret);
    }
    expect(JSON.parse(line)).toMatchObject({ answer: { open_id: 'open-1' } });
  });
});
