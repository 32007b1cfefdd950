import { useEffect, useState } from 'preact/hooks';
import { api, checkCredential, credential, explain, type SignedInUser } from './api.js';

interface LoginProvider {
  provider: 'google' | 'github' | 'orcid';
  sign_in_path: string;
}

const PROVIDER_NAMES: Record<LoginProvider['provider'], string> = { google: 'Google', github: 'GitHub', orcid: 'ORCID' };

/**
 * Where a provider sends the browser back: the dashboard's own root, naming the provider, so
 * the code can be redeemed with exactly the redirect_uri the sign-in started with.
 */
function callbackFor(provider: string): string {
  return `${location.origin}/?provider=${encodeURIComponent(provider)}`;
}

/**
 * The last leg of a social sign-in: the page was loaded from the callback with
 * ?code= (or ?error=); the code buys a JWT at POST /v1/auth/token. The query is dropped from the
 * address bar at once so a reload or a shared link never replays the single-use code.
 */
export async function finishSocialSignIn(): Promise<string | null> {
  const query = new URLSearchParams(location.search);
  const provider = query.get('provider');
  if (!provider || (!query.has('code') && !query.has('error'))) return null;
  history.replaceState(null, '', '/#/campaigns');
  if (query.has('error')) return query.get('error_description') ?? `The sign-in with ${provider} was refused (${query.get('error')}).`;
  try {
    const signedIn = await api<{ token: string; user: SignedInUser }>('POST', '/v1/auth/token', {
      provider,
      code: query.get('code'),
      redirect_uri: callbackFor(provider),
    });
    credential.set(signedIn.data.token, signedIn.data.user);
    return null;
  } catch (e) {
    return explain(e);
  }
}

export function SignIn({ onSignedIn, notice }: { onSignedIn: () => void; notice: string | null }) {
  const [key, setKey] = useState('');
  const [providers, setProviders] = useState<LoginProvider[]>([]);
  const [error, setError] = useState<string | null>(notice);
  useEffect(() => {
    // without providers the page still offers the key form, so a failure here is not shown
    api<LoginProvider[]>('GET', '/v1/auth/providers').then(
      (r) => setProviders(r.data),
      () => setProviders([]),
    );
  }, []);
  // this handler and the async ones below settle their own errors (shown on the page): buttons and forms call them with void
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      await checkCredential(key.trim());
      credential.set(key.trim());
      onSignedIn();
    } catch (e) {
      setError(explain(e));
    }
  };
  return (
    <main class="narrow">
      <h1>Sign in to Kiln</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {providers.length > 0 && (
        <ul class="providers" aria-label="Sign in with">
          {providers.map((p) => (
            <li>
              <a class="button" href={`${p.sign_in_path}?redirect_uri=${encodeURIComponent(callbackFor(p.provider))}`}>
                Sign in with {PROVIDER_NAMES[p.provider]}
              </a>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={(e) => void submit(e)}>
        <label for="key">API key or token</label>
        <input id="key" type="password" autocomplete="off" value={key} onInput={(e) => setKey((e.target as HTMLInputElement).value)} required />
        <button type="submit">Sign in</button>
      </form>
      <p class="muted">An administrator's key is printed when Kiln starts on an empty database; keys and tokens are made under Settings → API keys.</p>
      <p>
        Or, without signing in: <a href="#/templates">browse templates</a> · <a href="#/materials">look up materials</a>
      </p>
    </main>
  );
}
