/**
 * A browser's cookie jar for the platform host, over plain HTTP: requests carry the session and CSRF cookies
 * a browser would keep, and a form round trip picks up the page's CSRF token first.
 */
import { testFetch } from './http.ts';

export interface DashboardSession {
  request(
    path: string,
    form?: Record<string, string>,
  ): Promise<{ status: number; location: string | null; text: string }>;
  /** Reads the form's CSRF token from `page`, then posts `form` to `action`. */
  submit(page: string, action: string, form: Record<string, string>): ReturnType<DashboardSession['request']>;
}

export function dashboardSession(platformUrl: string): DashboardSession {
  const cookies = new Map<string, string>();
  const keep = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=');
      cookies.set(name!, value ?? '');
    }
  };
  const request: DashboardSession['request'] = async (path, form) => {
    const response = await testFetch(`${platformUrl}${path}`, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    keep(response);
    return { status: response.status, location: response.headers.get('location'), text: await response.text() };
  };
  return {
    request,
    async submit(page, action, form) {
      const html = (await request(page)).text;
      const csrf = /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
      return request(action, { _csrf: csrf, ...form });
    },
  };
}
