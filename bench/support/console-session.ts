/**
 * Signs a person in through the platform's real `/signin` form, as a browser would: GET the form (its CSRF
 * cookie and token), POST the email and password, keep the session cookie the answer sets. Plain HTTP to
 * 127.0.0.1 with the platform's host name, so no name resolution is involved.
 */
import http from 'node:http';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export function request(
  port: number,
  host: string,
  path: string,
  options: { cookie?: string; form?: Record<string, string> } = {},
): Promise<Answer> {
  const body = options.form ? new URLSearchParams(options.form).toString() : undefined;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          host,
          ...(options.cookie ? { cookie: options.cookie } : {}),
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) }),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Cookies as a browser keeps them: later `Set-Cookie` headers replace earlier ones of the same name. */
function keep(jar: Map<string, string>, answer: Answer): void {
  for (const line of answer.headers['set-cookie'] ?? []) {
    const [pair] = line.split(';');
    const index = pair!.indexOf('=');
    jar.set(pair!.slice(0, index), pair!.slice(index + 1));
  }
}

const header = (jar: Map<string, string>) => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');

/** The `cookie` header of a signed-in browser. Throws when the sign-in is refused. */
export async function signIn(port: number, host: string, email: string, password: string): Promise<string> {
  const jar = new Map<string, string>();
  const form = await request(port, host, '/signin');
  keep(jar, form);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1];
  if (form.status !== 200 || !csrf) throw new Error(`GET /signin answered ${form.status} without a form`);
  const answer = await request(port, host, '/signin', {
    cookie: header(jar),
    form: { _csrf: csrf, next: '', email, password },
  });
  keep(jar, answer);
  if (answer.status !== 302 || ![...jar.keys()].includes('cp_session')) {
    throw new Error(`POST /signin answered ${answer.status}: ${answer.body.slice(0, 300)}`);
  }
  return header(jar);
}
