import { useEffect, useState } from 'preact/hooks';
import { api, explain } from './api.js';

interface KeyRecord {
  id: string;
  name: string;
  key_prefix: string;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  request_count: number;
  revoked_at: string | null;
  allowed_ips: string[];
}

const SCOPES = ['campaigns:read', 'campaigns:write', 'campaigns:delete', 'datasets:read', 'datasets:write', 'templates:read', 'templates:write', 'admin'];

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/** Shown once: the secret of a new key or a new token, with a copy button. */
function Secret({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret" role="status">
      <p>{label} (shown only now; copy it before you leave this page):</p>
      <code data-testid="secret">{value}</code>
      <p class="row">
        <button
          onClick={() =>
            void navigator.clipboard?.writeText(value).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button onClick={onDone}>Done</button>
      </p>
    </div>
  );
}

export function ApiKeys() {
  const [keys, setKeys] = useState<KeyRecord[] | null>(null);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['campaigns:read']);
  const [expires, setExpires] = useState('');
  const [allowedIps, setAllowedIps] = useState('');
  const [tokenDays, setTokenDays] = useState('30');
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api<KeyRecord[]>('GET', '/v1/api-keys?per_page=100').then(
      (r) => setKeys(r.data),
      (e) => setError(explain(e)),
    );
  useEffect(() => void load(), []);
  // this handler and the async ones below settle their own errors (shown on the page): buttons and forms call them with void
  const create = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const ips = allowedIps.split(/[\s,]+/).filter(Boolean);
      const body = { name, scopes, ...(expires ? { expires_at: new Date(expires).toISOString() } : {}), ...(ips.length ? { allowed_ips: ips } : {}) };
      const created = await api<{ key: string }>('POST', '/v1/api-keys', body);
      setSecret({ label: `API key "${name}"`, value: created.data.key });
      setName('');
      setAllowedIps('');
      await load();
    } catch (e) {
      setError(explain(e));
    }
  };
  const revoke = async (key: KeyRecord) => {
    if (!confirm(`Revoke "${key.name}" (${key.key_prefix}…)? Clients using it stop working at once.`)) return;
    try {
      await api('DELETE', `/v1/api-keys/${key.id}`);
      await load();
    } catch (e) {
      setError(explain(e));
    }
  };
  const token = async (event: Event) => {
    event.preventDefault();
    try {
      const issued = await api<{ token: string; expires_at: string }>('POST', '/v1/auth/tokens', { expires_in_days: Number(tokenDays) });
      setSecret({ label: `Token valid until ${when(issued.data.expires_at)}`, value: issued.data.token });
    } catch (e) {
      setError(explain(e));
    }
  };
  return (
    <main>
      <h1>API keys</h1>
      {secret && <Secret label={secret.label} value={secret.value} onDone={() => setSecret(null)} />}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {keys === null ? (
        <p>Loading…</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Scopes</th>
                <th scope="col">Allowed IPs</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">Requests</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr data-testid="key-row">
                  <td>{k.name}</td>
                  <td>
                    <code>{k.key_prefix}…</code>
                  </td>
                  <td>{k.scopes.join(', ')}</td>
                  <td>{k.allowed_ips.length ? k.allowed_ips.join(', ') : 'any'}</td>
                  <td>{when(k.expires_at)}</td>
                  <td>{when(k.last_used_at)}</td>
                  <td>{k.request_count}</td>
                  <td>{k.revoked_at ? `revoked ${when(k.revoked_at)}` : <button onClick={() => void revoke(k)}>Revoke</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>New key</h2>
      <form onSubmit={(e) => void create(e)}>
        <label for="key-name">Name</label>
        <input id="key-name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} required maxLength={200} />
        <fieldset>
          <legend>Scopes</legend>
          {SCOPES.map((scope) => (
            <label class="check">
              <input
                type="checkbox"
                checked={scopes.includes(scope)}
                onChange={(e) => setScopes((e.target as HTMLInputElement).checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))}
              />
              {scope}
            </label>
          ))}
        </fieldset>
        <label for="key-expires">Expires (optional)</label>
        <input id="key-expires" type="datetime-local" value={expires} onInput={(e) => setExpires((e.target as HTMLInputElement).value)} />
        <label for="key-ips">Allowed IPs (optional: addresses or CIDR ranges, separated by commas or spaces)</label>
        <input id="key-ips" value={allowedIps} onInput={(e) => setAllowedIps((e.target as HTMLInputElement).value)} placeholder="any address" />
        <button type="submit">Create key</button>
      </form>
      <h2>Generate a token</h2>
      <form class="row" onSubmit={(e) => void token(e)}>
        <label for="token-days">Valid for (days)</label>
        <input id="token-days" type="number" min="1" max="366" value={tokenDays} onInput={(e) => setTokenDays((e.target as HTMLInputElement).value)} />
        <button type="submit">Generate new token</button>
      </form>
    </main>
  );
}
