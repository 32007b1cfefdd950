import { createHash, randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config.js';
import { KilnError } from '../errors.js';
import { newId } from '../ids.js';
import type { Db } from '../store/db.js';
import { findUser, insertLoginCode, insertLoginState, signInUser, takeLoginCode, takeLoginState } from '../store/logins.js';
import { findOrganization } from '../store/organizations.js';
import { DEFAULT_ORGANIZATION } from './api-keys.js';
import { SCOPES, type Scope } from './principal.js';
import type { IssuedToken, TokenService } from './tokens.js';
import { validationFailed } from './validation.js';

/**
 * Social login (google, github, orcid): the client's callback receives a `code` that it exchanges
 * at POST /v1/auth/token for a JWT. Two legs, each with its own single-use secret:
 * - Kiln ↔ provider: an OpenID Connect code flow with state, nonce and PKCE (S256), whose
 *   secrets wait in `login_states` for 10 minutes;
 * - client ↔ Kiln: Kiln's own one-time code, handed to the client's callback and redeemed within
 *   2 minutes at POST /v1/auth/token for a JWT. Only its SHA-256 is stored.
 * Users are matched by verified email; the first user of an organization becomes its admin.
 */
export const SOCIAL_PROVIDERS = ['google', 'github', 'orcid'] as const;
export type SocialProvider = (typeof SOCIAL_PROVIDERS)[number];

export interface SocialLoginServices {
  db: Db;
  tokens: TokenService;
  config: Config;
}

export interface SignedIn extends IssuedToken {
  user: { id: string; email: string; name: string; provider: SocialProvider };
}

const STATE_SECONDS = 600;
const CODE_SECONDS = 120;

interface ProviderSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

function settings(config: Config, provider: SocialProvider): ProviderSettings | null {
  const name = provider.toUpperCase() as Uppercase<SocialProvider>;
  const issuer = config[`KILN_OIDC_${name}_ISSUER`];
  const clientId = config[`KILN_OIDC_${name}_CLIENT_ID`];
  const clientSecret = config[`KILN_OIDC_${name}_CLIENT_SECRET`];
  return issuer && clientId && clientSecret ? { issuer, clientId, clientSecret } : null;
}

export function configuredProviders(config: Config): SocialProvider[] {
  return SOCIAL_PROVIDERS.filter((provider) => settings(config, provider) !== null);
}

/** The provider a web route names, or 404 saying which ones this server offers. */
export function configuredProvider(config: Config, name: string): SocialProvider {
  const provider = SOCIAL_PROVIDERS.find((p) => p === name);
  if (provider && settings(config, provider)) return provider;
  const offered = configuredProviders(config);
  throw new KilnError(
    'NOT_FOUND',
    `Sign-in with ${name} is not available here; ${offered.length ? `configured providers: ${offered.join(', ')}` : 'no social login provider is configured'}.`,
    { configured_providers: offered },
  );
}

// Discovery belongs to an issuer and client, not to one app instance, and costs a round trip.
const discovered = new Map<string, Promise<oidc.Configuration>>();

function providerClient(provider: SocialProvider, s: ProviderSettings): Promise<oidc.Configuration> {
  const key = [provider, s.issuer, s.clientId, s.clientSecret].join('\n');
  let pending = discovered.get(key);
  if (!pending) {
    const issuer = new URL(s.issuer);
    // plain http only for a provider on this machine: the tests' local OpenID provider
    const insecure = issuer.protocol === 'http:' && isLoopback(issuer);
    pending = discover(issuer, s, insecure).catch((error: Error) => {
      discovered.delete(key);
      throw new KilnError(
        'PROVIDER_UNAVAILABLE',
        `The ${provider} OpenID provider at ${s.issuer} could not be reached or described itself wrongly: ${error.message}`,
        undefined,
        {
          cause: error,
        },
      );
    });
    discovered.set(key, pending);
  }
  return pending;
}

/** The client authenticates as its provider prefers: HTTP Basic (OpenID Connect's default) unless only POST is offered. */
async function discover(issuer: URL, s: ProviderSettings, insecure: boolean): Promise<oidc.Configuration> {
  const execute = insecure ? [oidc.allowInsecureRequests] : [];
  const found = await oidc.discovery(issuer, s.clientId, s.clientSecret, undefined, { execute });
  const methods = found.serverMetadata().token_endpoint_auth_methods_supported;
  const postOnly = methods !== undefined && !methods.includes('client_secret_basic') && methods.includes('client_secret_post');
  const client = new oidc.Configuration(
    found.serverMetadata(),
    s.clientId,
    s.clientSecret,
    postOnly ? oidc.ClientSecretPost(s.clientSecret) : oidc.ClientSecretBasic(s.clientSecret),
  );
  for (const apply of execute) apply(client);
  return client;
}

function isLoopback(url: URL): boolean {
  if (url.hostname === 'localhost') return true;
  // the URL parser has already written any address in its canonical form, IPv6 in brackets
  const address = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return ipaddr.isValid(address) && ipaddr.process(address).range() === 'loopback';
}

/** KILN_PUBLIC_URL when Kiln sits behind a proxy, else the origin the request came to. */
function publicBase(config: Config, requestOrigin: string): URL {
  const base = config.KILN_PUBLIC_URL ?? requestOrigin;
  return new URL(base.endsWith('/') ? base : `${base}/`);
}

function kilnCallback(config: Config, requestOrigin: string, provider: SocialProvider): URL {
  return new URL(`auth/${provider}/callback`, publicBase(config, requestOrigin));
}

/**
 * The client's callback, which will receive a code worth a JWT: so it must be one this
 * installation trusts (KILN_OAUTH_REDIRECT_ORIGINS, else Kiln's own origin or loopback for native
 * and command-line clients), never an arbitrary site.
 */
function clientRedirect(raw: unknown, config: Config, requestOrigin: string): URL {
  const problem = (message: string) => validationFailed([{ path: 'redirect_uri', message }]);
  if (typeof raw !== 'string' || raw === '') throw problem('is required once: the URL of your callback, which receives ?code=');
  if (!URL.canParse(raw)) throw problem('must be an absolute URL');
  const url = new URL(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw problem('must be an http or https URL');
  if (url.username || url.password || url.hash) throw problem('must not carry credentials or a #fragment');
  const listed = config.KILN_OAUTH_REDIRECT_ORIGINS.map((origin) => new URL(origin).origin);
  const own = publicBase(config, requestOrigin).origin;
  if (listed.length > 0 ? !listed.includes(url.origin) : url.origin !== own && !isLoopback(url)) {
    const allowed = listed.length > 0 ? `one of the origins in KILN_OAUTH_REDIRECT_ORIGINS (${listed.join(', ')})` : `on ${own} or a loopback address`;
    throw problem(`must be ${allowed}; ${url.origin} is not trusted`);
  }
  return url;
}

/** Step 1: remembers the sign-in and returns the provider's authorization URL to send the browser to. */
export async function beginLogin(services: SocialLoginServices, provider: SocialProvider, redirectUri: unknown, requestOrigin: string): Promise<URL> {
  const { config, db } = services;
  const target = clientRedirect(redirectUri, config, requestOrigin);
  const client = await providerClient(provider, settings(config, provider)!);
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const verifier = oidc.randomPKCECodeVerifier();
  await insertLoginState(db, {
    state,
    provider,
    code_verifier: verifier,
    nonce,
    redirect_uri: target.href,
    expires_at: new Date(Date.now() + STATE_SECONDS * 1000),
  });
  return oidc.buildAuthorizationUrl(client, {
    redirect_uri: kilnCallback(config, requestOrigin, provider).href,
    scope: 'openid email profile',
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
}

/**
 * Step 2, the provider's redirect back to Kiln: returns where to send the browser: the client's
 * callback with Kiln's one-time `code`, or with `error` and `error_description` when the provider
 * or the account was refused. An unknown, used or expired state is a 400 here, since there is
 * no trusted callback to report to.
 */
export async function completeLogin(services: SocialLoginServices, provider: SocialProvider, query: URLSearchParams, requestOrigin: string): Promise<URL> {
  const { config, db } = services;
  const state = query.get('state');
  const row = state ? await takeLoginState(db, state) : undefined;
  if (!row || row.provider !== provider || row.expires_at <= new Date()) {
    throw new KilnError(
      'BAD_REQUEST',
      `This sign-in is unknown, already completed or expired (it lasts ${STATE_SECONDS / 60} minutes); start again at /auth/${provider}.`,
    );
  }
  const target = new URL(row.redirect_uri);
  const refuse = (error: string, description: string): URL => {
    target.searchParams.set('error', /^[a-z_]{1,64}$/.test(error) ? error : 'access_denied');
    target.searchParams.set('error_description', description.slice(0, 500));
    return target;
  };
  const providerError = query.get('error');
  if (providerError) return refuse(providerError, query.get('error_description') ?? `${provider} did not complete the sign-in.`);

  let claims: Record<string, unknown>;
  try {
    const client = await providerClient(provider, settings(config, provider)!);
    const callback = kilnCallback(config, requestOrigin, provider);
    callback.search = query.toString();
    const tokens = await oidc.authorizationCodeGrant(client, callback, {
      pkceCodeVerifier: row.code_verifier,
      expectedState: row.state,
      expectedNonce: row.nonce,
    });
    claims = await identityClaims(client, tokens);
  } catch (error) {
    return refuse('server_error', `The sign-in with ${provider} could not be completed: ${(error as Error).message}`);
  }

  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  if (!email) return refuse('access_denied', `The ${provider} account did not share an email address, which Kiln needs to identify you.`);
  // some providers send the boolean as a string
  if (claims.email_verified !== true && claims.email_verified !== 'true') {
    return refuse('access_denied', `The ${provider} account's email address ${email} is not verified; verify it with ${provider}, then sign in again.`);
  }
  const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim() : email.split('@')[0];
  const user = await signInUser(db, { id: newId('usr_'), organization_id: DEFAULT_ORGANIZATION.id, email, name, provider });

  const code = randomBytes(32).toString('base64url');
  await insertLoginCode(db, {
    code_hash: sha256(code),
    user_id: user.id,
    provider,
    redirect_uri: row.redirect_uri,
    expires_at: new Date(Date.now() + CODE_SECONDS * 1000),
  });
  target.searchParams.set('code', code);
  return target;
}

/**
 * The ID token's claims; a provider that follows OpenID Connect to the letter puts the email
 * scope's claims only in userinfo when it also issues an access token, so those are asked for
 * there, for the ID token's subject.
 */
async function identityClaims(
  client: oidc.Configuration,
  tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers,
): Promise<Record<string, unknown>> {
  const idToken = tokens.claims();
  if (!idToken) throw new Error('the provider returned no ID token');
  if (typeof idToken.email === 'string') return idToken;
  return { ...idToken, ...(await oidc.fetchUserInfo(client, tokens.access_token, idToken.sub)) };
}

/** Step 3: Kiln's one-time code for a JWT. The code is gone after this call, whatever the outcome. */
export async function redeemLoginCode(
  services: SocialLoginServices,
  input: { provider: SocialProvider; code: string; redirect_uri: string },
): Promise<SignedIn> {
  const { db, tokens } = services;
  const row = await takeLoginCode(db, sha256(input.code));
  const user =
    row && row.provider === input.provider && row.redirect_uri === new URL(input.redirect_uri).href && row.expires_at > new Date()
      ? await findUser(db, row.user_id)
      : undefined;
  const organization = user && (await findOrganization(db, user.organization_id));
  if (!user || !organization) {
    throw new KilnError('UNAUTHENTICATED', 'The code is unknown, used, expired, or was issued for another provider/redirect_uri; sign in again.');
  }
  const issued = await tokens.issue({ sub: user.id, organizationId: user.organization_id, plan: organization.plan, scopes: scopesOf(user.role) });
  return { ...issued, user: { id: user.id, email: user.email, name: user.name, provider: input.provider } };
}

function scopesOf(role: string): Scope[] {
  return role === 'admin' ? ['admin'] : SCOPES.filter((scope) => scope !== 'admin');
}

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
