import { useEffect, useRef, useState } from 'preact/hooks';
import { api, explain, subscribe } from './api.js';
import type { Job as JobDetail, JobListItem, LogEntry } from './contract.js';
import { useCampaignNames } from './campaign-names.js';
import { Pager } from './pager.js';
import { duration, etaText, referenceDistanceText } from './format.js';

/** A job as the list shows it, or with its detail members on its own page (GET /v1/jobs/{id}). */
type Job = JobListItem & Partial<Pick<JobDetail, 'timing'>> & { progress: Partial<JobDetail['progress']> };

const LEVELS = ['debug', 'info', 'warning', 'error'];

const JOB_STATUSES = ['queued', 'running', 'waiting', 'completed', 'failed', 'cancelled'];

/** Seconds from start to finish, or to now while the job runs; undefined before it starts. */
function elapsedOf(job: Job): number | undefined {
  if (!job.started_at) return undefined;
  const end = job.finished_at ? Date.parse(job.finished_at) : Date.now();
  return Math.max(0, (end - Date.parse(job.started_at)) / 1000);
}

export function JobList() {
  const [jobs, setJobs] = useState<Job[] | null>(null);
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const [pages, setPages] = useState(1);
  const [error, setError] = useState<string | null>(null);
  const campaignName = useCampaignNames(jobs?.map((j) => j.campaign_id) ?? []);
  useEffect(() => {
    const query = new URLSearchParams({ per_page: '25', page: String(page), ...(status ? { status } : {}) });
    api<Job[]>('GET', `/v1/jobs?${query}`).then(
      (r) => {
        setJobs(r.data);
        setPages(Math.max(1, r.meta?.total_pages ?? 1));
      },
      (e) => setError(explain(e)),
    );
  }, [status, page]);
  return (
    <main>
      <h1>Jobs</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <form class="row" onSubmit={(e) => e.preventDefault()} aria-label="Filter jobs">
        <label for="job-status-filter">Status</label>
        <select
          id="job-status-filter"
          value={status}
          onChange={(e) => {
            setStatus((e.target as HTMLSelectElement).value);
            setPage(1);
          }}
        >
          <option value="">all</option>
          {JOB_STATUSES.map((s) => (
            <option value={s}>{s.replace('_', ' ')}</option>
          ))}
        </select>
      </form>
      {jobs === null ? (
        <p aria-live="polite">Loading…</p>
      ) : jobs.length === 0 ? (
        <p>{status ? `No ${status.replace('_', ' ')} jobs.` : 'No jobs yet: start a campaign.'}</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Campaign</th>
                <th scope="col">Job</th>
                <th scope="col">Status</th>
                <th scope="col">Iteration</th>
                <th scope="col">Evaluations</th>
                <th scope="col">Elapsed</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {jobs.map((j) => (
                <tr data-testid="job-row">
                  <td data-testid="job-campaign">
                    <a href={`#/campaigns/${j.campaign_id}`}>{campaignName(j.campaign_id)}</a>
                  </td>
                  <td>
                    <a href={`#/jobs/${j.id}`}>{j.id}</a>
                  </td>
                  <td>
                    <span class={`status status-${j.status}`}>{j.status.replace('_', ' ')}</span>
                  </td>
                  <td>
                    {j.progress.iteration} / {j.progress.total_iterations}
                  </td>
                  <td>
                    {j.progress.evaluations_completed} / {j.progress.budget}
                  </td>
                  <td data-testid="job-elapsed">{duration(elapsedOf(j))}</td>
                  <td>{new Date(j.created_at).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={page} pages={pages} label="Pages" onPage={setPage} />
    </main>
  );
}

/** A job's progress, timing and log, live: new entries arrive over the WebSocket. */
export function JobDetail({ id }: { id: string }) {
  const [job, setJob] = useState<Job | null>(null);
  const [logs, setLogs] = useState<LogEntry[]>([]);
  const [level, setLevel] = useState('info');
  const [follow, setFollow] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const bottom = useRef<HTMLDivElement>(null);
  const campaignName = useCampaignNames(job ? [job.campaign_id] : []);
  const refresh = () =>
    api<Job>('GET', `/v1/jobs/${id}`).then(
      (r) => setJob(r.data),
      (e) => setError(explain(e)),
    );
  const reload = () => {
    void refresh();
    void api<LogEntry[]>('GET', `/v1/jobs/${id}/logs?tail=500`).then(
      (r) => setLogs(r.data),
      (e) => setError(explain(e)),
    );
  };
  useEffect(reload, [id]);
  useEffect(() => {
    if (!job) return;
    return subscribe(
      job.campaign_id,
      (event) => {
        if (event.job_id !== id) return;
        if (event.type === 'job.log') setLogs((previous) => [...previous, event.data]);
        if (event.type === 'job.progress' || event.type === 'job.status') void refresh();
      },
      reload,
    );
  }, [job?.campaign_id]);
  useEffect(() => {
    if (follow) bottom.current?.scrollIntoView({ block: 'end' });
  }, [logs, follow]);
  // this handler and the async ones below settle their own errors (shown on the page): buttons and forms call them with void
  const act = async (action: 'cancel' | 'retry') => {
    try {
      const r = await api<Job>('POST', `/v1/jobs/${id}/${action}`);
      if (action === 'retry') location.hash = `#/jobs/${r.data.id}`;
      else await refresh();
    } catch (e) {
      setError(explain(e));
    }
  };
  if (!job)
    return (
      <main>
        {error ? (
          <p role="alert" class="error">
            {error}
          </p>
        ) : (
          <p aria-live="polite">Loading…</p>
        )}
      </main>
    );
  const shown = logs.filter((l) => LEVELS.indexOf(l.level) >= LEVELS.indexOf(level));
  return (
    <main>
      <p>
        <a href={`#/campaigns/${job.campaign_id}`}>← Campaign</a>
      </p>
      <h1 data-testid="job-title">{campaignName(job.campaign_id)}</h1>
      <p class="subtitle">Job {job.id}</p>
      <p>
        <span data-testid="job-status" class={`status status-${job.status}`}>
          {job.status}
        </span>{' '}
        · phase {job.progress.current_phase} · iteration {job.progress.iteration} / {job.progress.total_iterations} · {job.progress.evaluations_completed} /{' '}
        {job.progress.budget} evaluations
        {job.timing && (
          <>
            {' '}
            · {duration(job.timing.elapsed_seconds)} elapsed · {duration(job.timing.avg_iteration_seconds || undefined)} per iteration
            {job.status === 'running' && <> · {etaText(job.timing)}</>}
            {job.status === 'waiting' && <> · waiting for {job.pending_results} results, holding no worker</>}
          </>
        )}
      </p>
      <p class="row">
        {(job.status === 'queued' || job.status === 'running' || job.status === 'waiting') && <button onClick={() => void act('cancel')}>Cancel</button>}
        {job.status === 'failed' && <button onClick={() => void act('retry')}>Retry</button>}
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {job.progress.budget > 0 && <progress max={job.progress.budget} value={job.progress.evaluations_completed} aria-label="Evaluations done of the budget" />}
      {job.progress.reference_distance && <p data-testid="reference-distance">{referenceDistanceText(job.progress.reference_distance)}</p>}
      <h2>Log</h2>
      <p class="row">
        <label for="level">Level</label>
        <select id="level" value={level} onChange={(e) => setLevel((e.target as HTMLSelectElement).value)}>
          {LEVELS.map((l) => (
            <option value={l}>{l}</option>
          ))}
        </select>
        <label class="check">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow((e.target as HTMLInputElement).checked)} /> Follow
        </label>
      </p>
      <ol class="log" data-testid="log" aria-live="polite">
        {shown.map((l) => (
          <li class={`level-${l.level}`}>
            <time>{new Date(l.timestamp).toLocaleTimeString()}</time> <strong>{l.level}</strong> {l.message}
          </li>
        ))}
      </ol>
      <div ref={bottom} />
    </main>
  );
}
