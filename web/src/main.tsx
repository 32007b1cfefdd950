import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { credential, SIGNED_OUT } from './api.js';
import { Materials, Templates } from './browse.js';
import { CampaignDetail } from './campaign.js';
import { CampaignList } from './campaigns.js';
import { Datasets } from './datasets.js';
import { JobDetail, JobList } from './jobs.js';
import { NewLabCampaign } from './new-lab-campaign.js';
import { ApiKeys } from './keys.js';
import { finishSocialSignIn, SignIn } from './sign-in.js';
import './style.css';

/** Routes are the location hash (#/campaigns, #/campaigns/<id>, ...), so the server needs no routes of its own. */
function useRoute(): string {
  const [hash, setHash] = useState(location.hash || '#/campaigns');
  useEffect(() => {
    const update = () => setHash(location.hash || '#/campaigns');
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return hash;
}

const PAGES: [RegExp, (id: string) => preact.JSX.Element][] = [
  [/^#\/campaigns\/(camp_\w+)$/, (id) => <CampaignDetail id={id} />],
  [/^#\/campaigns\/new(\?.*)?$/, () => <NewLabCampaign />],
  [/^#\/jobs\/(job_\w+)$/, (id) => <JobDetail id={id} />],
  [/^#\/jobs$/, () => <JobList />],
  [/^#\/datasets$/, () => <Datasets />],
  [/^#\/templates$/, () => <Templates />],
  [/^#\/materials$/, () => <Materials />],
  [/^#\/settings\/api-keys$/, () => <ApiKeys />],
];

function page(route: string): preact.JSX.Element {
  for (const [pattern, build] of PAGES) {
    const match = pattern.exec(route);
    if (match) return build(match[1]);
  }
  return <CampaignList />;
}

/** The main navigation: each section's route and name. */
const SECTIONS = [
  ['#/campaigns', 'Campaigns'],
  ['#/jobs', 'Jobs'],
  ['#/datasets', 'Datasets'],
  ['#/templates', 'Templates'],
  ['#/materials', 'Materials'],
  ['#/settings/api-keys', 'API keys'],
] as const;

function NavLink({ href, route, children }: { href: string; route: string; children: string }) {
  const current = route === href || route.startsWith(`${href}/`) || route.startsWith(`${href}?`);
  return (
    <a href={href} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  );
}

function App({ notice: initialNotice }: { notice: string | null }) {
  const route = useRoute();
  const [signedIn, setSignedIn] = useState(credential.get() !== null);
  const [notice, setNotice] = useState(initialNotice);
  useEffect(() => {
    const signedOut = (event: Event) => {
      setNotice(`You were signed out: ${(event as CustomEvent<string>).detail} Sign in again.`);
      setSignedIn(false);
    };
    addEventListener(SIGNED_OUT, signedOut);
    return () => removeEventListener(SIGNED_OUT, signedOut);
  }, []);
  // after a navigation, not on the first load: there the first Tab should reach the skip link
  const firstRoute = useRef(route);
  useEffect(() => {
    if (route !== firstRoute.current) document.getElementById('main')?.focus();
    firstRoute.current = '';
  }, [route]);
  const skip = (
    <a
      class="skip"
      href="#main"
      onClick={(e) => {
        e.preventDefault();
        document.getElementById('main')?.focus();
      }}
    >
      Skip to content
    </a>
  );
  if (!signedIn) {
    // guests may browse templates and look up materials, as the API allows
    const guestPage = route === '#/templates' ? <Templates /> : route === '#/materials' ? <Materials /> : null;
    if (!guestPage)
      return (
        <SignIn
          notice={notice}
          onSignedIn={() => {
            setNotice(null);
            setSignedIn(true);
          }}
        />
      );
    return (
      <>
        {skip}
        <header>
          <nav class="row" aria-label="Main">
            <strong>Kiln</strong>
            <NavLink href="#/templates" route={route}>
              Templates
            </NavLink>
            <NavLink href="#/materials" route={route}>
              Materials
            </NavLink>
          </nav>
          <a href="#/campaigns">Sign in</a>
        </header>
        <div id="main" tabIndex={-1}>
          {guestPage}
        </div>
      </>
    );
  }
  const user = credential.user();
  return (
    <>
      {skip}
      <header>
        <nav class="row" aria-label="Main">
          <strong>Kiln</strong>
          {SECTIONS.map(([href, label]) => (
            <NavLink key={href} href={href} route={route}>
              {label}
            </NavLink>
          ))}
        </nav>
        <div class="row">
          <span data-testid="signed-in-as">{user ? `${user.name} (${user.provider})` : 'API key'}</span>
          <button
            class="link"
            onClick={() => {
              credential.clear();
              setNotice(null);
              setSignedIn(false);
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <div id="main" tabIndex={-1}>
        {page(route)}
      </div>
    </>
  );
}

// A social sign-in comes back to this page with a one-time code, redeemed before the first render.
void finishSocialSignIn().then((notice) => render(<App notice={notice} />, document.getElementById('app')!));
