import { useEffect, useState } from 'preact/hooks';
import { api, type Campaign } from './api.js';

/** Names already read, across pages of the jobs list and job pages: a campaign's name rarely changes. */
const known = new Map<string, string>();

/**
 * The names of the campaigns `ids` belong to, read from the public API one campaign at a time
 * (a page of jobs names only a few). Until a name arrives, or if the campaign is gone, the id
 * stands in.
 */
export function useCampaignNames(ids: readonly string[]): (id: string) => string {
  const [, setVersion] = useState(0);
  const key = [...new Set(ids)].sort().join();
  useEffect(() => {
    let live = true;
    const missing = [...new Set(ids)].filter((id) => !known.has(id));
    void Promise.all(
      missing.map((id) =>
        api<Campaign>('GET', `/v1/campaigns/${id}`).then(
          (r) => known.set(id, r.data.name),
          () => undefined,
        ),
      ),
    ).then(() => live && missing.length > 0 && setVersion((v) => v + 1));
    return () => {
      live = false;
    };
  }, [key]);
  return (id) => known.get(id) ?? id;
}
