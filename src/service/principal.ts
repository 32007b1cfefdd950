/** The API key scopes; templates:write (creating templates) is Kiln's addition to the published set. */
export const SCOPES = [
  'campaigns:read',
  'campaigns:write',
  'campaigns:delete',
  'datasets:read',
  'datasets:write',
  'templates:read',
  'templates:write',
  'admin',
] as const;

export type Scope = (typeof SCOPES)[number];

/** Who is calling: resolved once per request by the API's authentication. */
export interface Principal {
  organizationId: string;
  plan: string;
  /**
   * The credential's owner: the API key's id, also for a JWT minted from that key (so the key
   * and its tokens share one rate-limit counter and own the same templates); a signed-in user's
   * id for a social-login token; `ip:<address>` for a guest.
   */
  keyId: string;
  scopes: readonly Scope[];
  /** when the credential stops working by itself (a key's expiry, a token's), if it does */
  expiresAt?: Date | null;
}

/** Test-mode data lives in a shadow organization of its own, named by this suffix. */
const TEST_SUFFIX = '__test';

export function testOrganizationId(organizationId: string): string {
  return `${organizationId}${TEST_SUFFIX}`;
}

/** Whether the caller acts in test mode (a svc_test_ key, or a token minted from one). */
export function inTestMode(principal: Principal): boolean {
  return principal.organizationId.endsWith(TEST_SUFFIX);
}

/** The live organization behind a caller in either mode (keys are its rows). */
export function liveOrganizationOf(principal: Principal): string {
  return inTestMode(principal) ? principal.organizationId.slice(0, -TEST_SUFFIX.length) : principal.organizationId;
}

export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.scopes.includes('admin') || principal.scopes.includes(scope);
}
