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
  keyId: string;
  scopes: readonly Scope[];
}

export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.scopes.includes('admin') || principal.scopes.includes(scope);
}
