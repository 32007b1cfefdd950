import { useEffect, useState } from 'preact/hooks';
import type { Material, TemplateListItem } from './contract.js';
import { api, credential, download, explain } from './api.js';
import { MdlPreview } from './mdl-preview.js';
import { NewTemplate, type CreatedTemplate } from './new-template.js';

/** Built-in templates (and, signed in, your organization's, which you may add to or delete from): guests may browse them too. */
export function Templates() {
  const [items, setItems] = useState<TemplateListItem[] | null>(null);
  // every domain seen in an unfiltered list, so custom templates' own domains can be picked too
  const [domains, setDomains] = useState<string[]>(['alloys', 'battery', 'energy', 'polymers', 'water']);
  const [domain, setDomain] = useState('');
  const [search, setSearch] = useState('');
  const [open, setOpen] = useState<{ id: string; mdl: unknown } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // bumped after a create or a delete, to list the catalog as it now is
  const [revision, setRevision] = useState(0);
  const signedIn = credential.get() !== null;
  useEffect(() => {
    const query = new URLSearchParams({ per_page: '100', ...(domain ? { domain } : {}), ...(search ? { search } : {}) });
    api<TemplateListItem[]>('GET', `/v1/templates?${query}`).then(
      (r) => {
        setItems(r.data);
        setDomains((known) => [...new Set([...known, ...r.data.map((t) => t.domain)])].sort());
      },
      (e) => setError(explain(e)),
    );
  }, [domain, search, revision]);
  const created = (t: CreatedTemplate) => {
    setError(null);
    setNotice(`Created ${t.slug} (${t.visibility}).`);
    setRevision((r) => r + 1);
  };
  // this handler and the async ones below settle their own errors (shown on the page): buttons and forms call them with void
  const remove = async (t: TemplateListItem) => {
    if (!confirm(`Delete the template ${t.slug}? Campaigns already made from it keep their MDL.`)) return;
    setError(null);
    try {
      await api('DELETE', `/v1/templates/${t.id}`);
      setNotice(`Deleted ${t.slug}.`);
      setRevision((r) => r + 1);
    } catch (e) {
      setError(explain(e));
    }
  };
  const view = async (id: string) => {
    try {
      setOpen({ id, mdl: (await api<{ mdl: unknown }>('GET', `/v1/templates/${id}`)).data.mdl });
    } catch (e) {
      setError(explain(e));
    }
  };
  const save = (id: string) => download(`/v1/templates/${id}/download`, 'material.yaml').catch((e) => setError(explain(e)));
  return (
    <main>
      <h1>Templates</h1>
      <form class="row" onSubmit={(e) => e.preventDefault()} role="search">
        <label for="domain">Domain</label>
        <select id="domain" value={domain} onChange={(e) => setDomain((e.target as HTMLSelectElement).value)}>
          <option value="">all</option>
          {domains.map((d) => (
            <option value={d}>{d}</option>
          ))}
        </select>
        <label for="search">Search</label>
        <input id="search" type="search" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} placeholder="name or description" />
      </form>
      {signedIn && (
        <p>
          <a href="#/campaigns/new">New campaign with results you enter</a>: a form for experiments your lab runs, empty or filled from a template below.
        </p>
      )}
      {signedIn && <NewTemplate onCreated={created} />}
      {notice && <p role="status">{notice}</p>}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {items === null ? (
        <p>Loading…</p>
      ) : items.length === 0 ? (
        <p>No template matches.</p>
      ) : (
        <ul class="cards">
          {items.map((t) => (
            <li data-testid="template">
              <h2>
                {t.name}{' '}
                {!t.builtin && (
                  <span class="badge" data-testid="visibility">
                    {t.visibility}
                  </span>
                )}
              </h2>
              <p class="muted">
                {t.slug} · {t.parameters_count} parameters · {t.objectives_count} objectives · budget {t.default_budget} · {t.tags.join(', ')}
              </p>
              <p>{t.description}</p>
              <p class="row">
                <button onClick={() => void view(t.id)}>View MDL</button>
                {signedIn ? (
                  <button onClick={() => void save(t.id)}>Download material.yaml</button>
                ) : (
                  // the download needs a key; a guest reads the same document with View MDL
                  <>
                    <button disabled aria-describedby={`download-${t.id}`}>
                      Download material.yaml
                    </button>
                    <span id={`download-${t.id}`} class="muted">
                      Sign in to download; View MDL shows the same document.
                    </span>
                  </>
                )}
                {signedIn && <a href={`#/campaigns?template=${encodeURIComponent(t.id)}`}>New campaign from it</a>}
                {signedIn && <a href={`#/campaigns/new?template=${encodeURIComponent(t.id)}`}>Fill the form for results you enter</a>}
                {t.can_delete && (
                  <button class="danger" aria-label={`Delete ${t.name}`} onClick={() => void remove(t)}>
                    Delete
                  </button>
                )}
              </p>
              {open?.id === t.id && <MdlPreview mdl={open.mdl} testId="mdl" />}
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}

/** A formula box: composition, molar mass and the catalog's properties with their sources. */
export function Materials() {
  const [formula, setFormula] = useState('');
  const [records, setRecords] = useState<Material[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const look = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      setRecords((await api<Material[]>('GET', `/v1/materials?formula=${encodeURIComponent(formula)}`)).data);
    } catch (e) {
      setRecords(null);
      setError(explain(e));
    }
  };
  return (
    <main>
      <h1>Materials</h1>
      <form class="row" onSubmit={(e) => void look(e)}>
        <label for="formula">Formula</label>
        <input id="formula" value={formula} onInput={(e) => setFormula((e.target as HTMLInputElement).value)} placeholder="e.g. LiFePO4" required />
        <button type="submit">Look up</button>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {records?.map((m) => (
        <section data-testid="material">
          <h2>{m.name ?? m.reduced_formula}</h2>
          <p>
            {m.formula} · molar mass <strong data-testid="molar-mass">{m.molar_mass.toFixed(3)}</strong> g/mol ·{' '}
            {m.source === 'computed' ? 'computed from the formula' : 'catalog entry'}
          </p>
          <table>
            <thead>
              <tr>
                <th>Element</th>
                <th>Count</th>
                <th>Weight fraction</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(m.composition).map(([el, n]) => (
                <tr>
                  <td>{el}</td>
                  <td>{n}</td>
                  <td>{(m.weight_fractions[el] * 100).toFixed(2)} %</td>
                </tr>
              ))}
            </tbody>
          </table>
          {Object.keys(m.properties).length > 0 && (
            <table>
              <thead>
                <tr>
                  <th>Property</th>
                  <th>Value</th>
                  <th>Source</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(m.properties).map(([name, p]) => (
                  <tr>
                    <td>{name}</td>
                    <td>{String(p.value)}</td>
                    <td>{p.source}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      ))}
    </main>
  );
}
