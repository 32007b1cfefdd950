import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
// @ts-expect-error oidc-provider ships no type declarations
import Provider from 'oidc-provider';

export type OidcAccounts = Record<string, Record<string, unknown>>;

/**
 * A real OpenID provider on loopback (oidc-provider with its development login and consent
 * pages) standing in for Google. The provider must list Kiln's callback and Kiln must know the
 * issuer, so the issuer's port is taken first (`kilnEnv` for starting Kiln, which discovers
 * lazily), and the provider is attached once Kiln's address is known.
 */
export class LocalOidcProvider {
  private constructor(
    private readonly server: Server,
    readonly issuer: string,
  ) {}

  static async listen(): Promise<LocalOidcProvider> {
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    return new LocalOidcProvider(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }

  /** Kiln's settings for this provider as its google provider. */
  get kilnEnv(): Record<string, string> {
    return { KILN_OIDC_GOOGLE_ISSUER: this.issuer, KILN_OIDC_GOOGLE_CLIENT_ID: 'kiln', KILN_OIDC_GOOGLE_CLIENT_SECRET: 'kiln-client-secret' };
  }

  attach(kilnBase: string, accounts: OidcAccounts): void {
    const provider = new Provider(this.issuer, {
      clients: [
        {
          client_id: 'kiln',
          client_secret: 'kiln-client-secret',
          redirect_uris: [`${kilnBase}/auth/google/callback`],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
      pkce: { required: () => true },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      cookies: { keys: ['kiln-test-oidc-cookie-key'] },
      features: { devInteractions: { enabled: true } },
      ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600 },
      findAccount: (_ctx: unknown, id: string) => (accounts[id] ? { accountId: id, claims: () => accounts[id] } : undefined),
    });
    this.server.on('request', provider.callback());
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((done) => this.server.close(done));
  }
}
