import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { LocalOidcProvider, type OidcAccounts } from './support/oidc.js';
import { client, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

/**
 * Social login end to end against a real OpenID provider (test/support/oidc.ts), its login and
 * consent pages driven like a browser would.
 */

const CLIENT_CALLBACK = 'http://127.0.0.1:9/cb?app_state=xyz';
const ACCOUNTS: OidcAccounts = {
  alice: { sub: 'alice', email: 'Alice@Example.org', email_verified: true, name: 'Alice Example' },
  carol: { sub: 'carol', email: 'carol@example.org', email_verified: true, name: 'Carol' },
  mallory: { sub: 'mallory', email: 'mallory@example.org', email_verified: false, name: 'Mallory' },
};

let postgres: TestPostgres;
let provider: LocalOidcProvider;
let kiln: TestKiln;

before(async () => {
  postgres = await TestPostgres.start();
  provider = await LocalOidcProvider.listen();
  kiln = await startTestKiln(await postgres.database(), { WORKER_CONCURRENCY: '0', ...provider.kilnEnv });
  provider.attach(kiln.base, ACCOUNTS);
});

after(async () => {
  await kiln?.stop();
  await provider?.close();
  await postgres?.stop();
});

/** Manual redirects and a cookie jar (the provider's session and interaction cookies). */
class Browser {
  private cookies = new Map<string, string>();

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { Cookie: cookie } : {}) },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      const value = pair.slice(at + 1);
      if (value) this.cookies.set(pair.slice(0, at), value);
      else this.cookies.delete(pair.slice(0, at));
    }
    return res;
  }
}

/**
 * Starts a sign-in at Kiln and plays the person at the provider (login as `account`, consent, or
 * abort) until the provider sends the browser back to Kiln's callback; returns that URL.
 */
async function toKilnCallback(browser: Browser, account: string, options: { redirectUri?: string; abort?: boolean } = {}): Promise<string> {
  const start = await browser.fetch(`${kiln.base}/auth/google?redirect_uri=${encodeURIComponent(options.redirectUri ?? CLIENT_CALLBACK)}`);
  assert.equal(start.status, 302, await start.clone().text());
  assert.equal(start.headers.get('cache-control'), 'no-store');
  let url = new URL(start.headers.get('location')!);
  assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
  assert.equal(url.searchParams.get('scope'), 'openid email profile');
  for (let hop = 0; hop < 12; hop++) {
    if (url.href.startsWith(`${kiln.base}/auth/google/callback`)) return url.href;
    let res = await browser.fetch(url.href);
    if (res.status === 200) {
      const page = await res.text();
      if (options.abort) res = await browser.fetch(`${url.href}/abort`);
      else {
        const form: Record<string, string> = page.includes('value="login"') ? { prompt: 'login', login: account, password: 'any' } : { prompt: 'consent' };
        res = await browser.fetch(url.href, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(form).toString(),
        });
      }
    }
    assert.ok(res.status >= 300 && res.status < 400, `a redirect from ${url.href}, got ${res.status}: ${await res.text()}`);
    url = new URL(res.headers.get('location')!, url);
  }
  throw new Error('the provider never sent the browser back to Kiln');
}

/** The whole browser leg: where Kiln finally sends the browser (the client's callback). */
async function signIn(account: string, options: { redirectUri?: string; abort?: boolean } = {}): Promise<URL> {
  const browser = new Browser();
  const res = await browser.fetch(await toKilnCallback(browser, account, options));
  assert.equal(res.status, 302, await res.text());
  return new URL(res.headers.get('location')!);
}

const anonymous = () => client(kiln.base, null);
const exchange = (body: Record<string, unknown>) => anonymous()('POST', '/v1/auth/token', body);

test('sign-in, code exchange, JWT use and refresh; the returning user is matched by email', async () => {
  const back = await signIn('alice');
  assert.equal(back.origin + back.pathname, 'http://127.0.0.1:9/cb');
  assert.equal(back.searchParams.get('app_state'), 'xyz', "the client's own query survives");
  const code = back.searchParams.get('code');
  assert.ok(code && code.length >= 43);

  const signedIn = await exchange({ provider: 'google', code, redirect_uri: CLIENT_CALLBACK });
  assert.equal(signedIn.status, 200, signedIn.text);
  const { token, expires_at, user } = signedIn.json.data;
  assert.match(user.id, /^usr_/);
  assert.deepEqual(Object.keys(user).sort(), ['email', 'id', 'name', 'provider']);
  assert.deepEqual([user.email, user.name, user.provider], ['alice@example.org', 'Alice Example', 'google'], 'the email is kept in lower case');
  assert.ok(Date.parse(expires_at) > Date.now());
  const claims = decodeJwt(token);
  assert.equal(claims.sub, user.id);
  assert.equal(claims.org, 'org_default');
  assert.deepEqual(claims.scopes, ['admin'], 'the first user of the organization is its admin');

  assert.equal((await client(kiln.base, token)('GET', '/v1/campaigns')).status, 200);
  const refreshed = await client(kiln.base, token)('POST', '/v1/auth/refresh');
  assert.equal(refreshed.status, 200, refreshed.text);
  assert.equal((await client(kiln.base, refreshed.json.data.token)('GET', '/v1/campaigns')).status, 200);
  assert.equal((await client(kiln.base, token)('GET', '/v1/campaigns')).status, 401, 'the refreshed token is retired');

  const replay = await exchange({ provider: 'google', code, redirect_uri: CLIENT_CALLBACK });
  assert.equal(replay.status, 401, 'a code works once');
  assert.equal(replay.json.error.code, 'UNAUTHENTICATED');

  const again = await exchange({ provider: 'google', code: (await signIn('alice')).searchParams.get('code'), redirect_uri: CLIENT_CALLBACK });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.json.data.user.id, user.id);

  const carol = await exchange({ provider: 'google', code: (await signIn('carol')).searchParams.get('code'), redirect_uri: CLIENT_CALLBACK });
  assert.equal(carol.status, 200, carol.text);
  const carolScopes = decodeJwt(carol.json.data.token).scopes as string[];
  assert.ok(!carolScopes.includes('admin') && carolScopes.includes('campaigns:write'), 'later users are members');
});

test('a code is refused for another redirect_uri or provider, and is spent by the attempt', async () => {
  const code = (await signIn('alice')).searchParams.get('code');
  const wrongRedirect = await exchange({ provider: 'google', code, redirect_uri: 'http://127.0.0.1:9/elsewhere' });
  assert.equal(wrongRedirect.status, 401);
  assert.match(wrongRedirect.json.error.message, /unknown, used, expired/);
  assert.equal((await exchange({ provider: 'google', code, redirect_uri: CLIENT_CALLBACK })).status, 401);

  const other = (await signIn('alice')).searchParams.get('code');
  assert.equal((await exchange({ provider: 'orcid', code: other, redirect_uri: CLIENT_CALLBACK })).status, 401);
  const malformed = await exchange({ provider: 'facebook', code: 'x', redirect_uri: 'not a url', extra: 1 });
  assert.equal(malformed.status, 422);
});

test("Kiln's callback refuses a tampered, replayed or missing state", async () => {
  const browser = new Browser();
  const callback = new URL(await toKilnCallback(browser, 'alice'));
  const tampered = new URL(callback);
  tampered.searchParams.set('state', 'forged-state');
  const forged = await browser.fetch(tampered.href);
  assert.equal(forged.status, 400);
  assert.equal((await forged.json()).error.code, 'BAD_REQUEST');
  const noState = new URL(callback);
  noState.searchParams.delete('state');
  assert.equal((await browser.fetch(noState.href)).status, 400);

  const genuine = await browser.fetch(callback.href);
  assert.equal(genuine.status, 302);
  assert.ok(new URL(genuine.headers.get('location')!).searchParams.get('code'));
  assert.equal((await browser.fetch(callback.href)).status, 400, 'a state is single use');
});

test('an unverified email and a sign-in aborted at the provider come back to the client as errors', async () => {
  const unverified = await signIn('mallory');
  assert.equal(unverified.searchParams.get('code'), null);
  assert.equal(unverified.searchParams.get('error'), 'access_denied');
  assert.match(unverified.searchParams.get('error_description')!, /mallory@example\.org is not verified/);

  const aborted = await signIn('alice', { abort: true });
  assert.equal(aborted.searchParams.get('code'), null);
  assert.equal(aborted.searchParams.get('error'), 'access_denied');
  assert.equal(aborted.searchParams.get('app_state'), 'xyz');
});

test('open redirects, missing callbacks and unconfigured providers are refused before the provider', async () => {
  const get = anonymous();
  for (const target of ['https://evil.example/', 'javascript:alert(1)', 'http://127.0.0.1:9/cb#frag', '/relative']) {
    const res = await get('GET', `/auth/google?redirect_uri=${encodeURIComponent(target)}`);
    assert.equal(res.status, 422, target);
    assert.equal(res.json.error.details.errors[0].path, 'redirect_uri');
    assert.equal(res.headers.get('location'), null);
  }
  assert.equal((await get('GET', '/auth/google')).status, 422);
  const sameOrigin = await fetch(`${kiln.base}/auth/google?redirect_uri=${encodeURIComponent(`${kiln.base}/app/callback`)}`, { redirect: 'manual' });
  assert.equal(sameOrigin.status, 302);

  const orcid = await get('GET', `/auth/orcid?redirect_uri=${encodeURIComponent(CLIENT_CALLBACK)}`);
  assert.equal(orcid.status, 404);
  assert.equal(orcid.json.error.code, 'NOT_FOUND');
  assert.deepEqual(orcid.json.error.details.configured_providers, ['google']);
  assert.equal((await get('GET', '/auth/myspace/callback?state=x&code=y')).status, 404);
});
