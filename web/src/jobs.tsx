import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, subscribe } from './api.js';

const explain = (e: unknown) => (e instanceof ApiError ? e.explain() : String(e));

interface Job {
  id: string;
  campaign_id: string;
  status: string;
  created_at: string;
  worker_id: string | null;
  progress: { iteration: number; total_iterations: number; evaluations_completed: number; budget: number; current_phase?: string };
  timing?: { elapsed_seconds: number; avg_iteration_seconds: number; estimated_remaining_seconds: number };
}

interface LogEntry {
  timestamp: string;
  level: string;
  message: string;
}

const LEVELS = ['debug', 'info', 'warning', 'error'];

export function JobList() {
  const [jobs, setJobs] = useState<Job[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => void api<Job[]>('GET', '/v1/jobs?per_page=100').then((r) => setJobs(r.data), (e) => setError(explain(e))), []);
  return (
    <main>
      <h1>Jobs</h1>
      {error && <p role="alert" class="error">{error}</p>}
      {jobs === null ? <p>Loading…</p> : jobs.length === 0 ? <p>No jobs yet: start a campaign.</p> : (
        <table>
          <thead><tr><th>Job</th><th>Campaign</th><th>Status</th><th>Iteration</th><th>Evaluations</th></tr></thead>
          <tbody>
            {jobs.map((j) => (
              <tr>
                <td><a href={`#/jobs/${j.id}`}>{j.id}</a></td>
                <td><a href={`#/campaigns/${j.campaign_id}`}>{j.campaign_id}</a></td>
                <td>{j.status}</td>
                <td>{j.progress.iteration} / {j.progress.total_iterations}</td>
                <td>{j.progress.evaluations_completed} / {j.progress.budget}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
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
  const refresh = () => api<Job>('GET', `/v1/jobs/${id}`).then((r) => setJob(r.data), (e) => setError(explain(e)));
  useEffect(() => {
    void refresh();
    void api<LogEntry[]>('GET', `/v1/jobs/${id}/logs?tail=500`).then((r) => setLogs(r.data), (e) => setError(explain(e)));
  }, [id]);
  useEffect(() => {
    if (!job) return;
    return subscribe(job.campaign_id, (event) => {
      const e = event as { type: string; job_id?: string; data: unknown };
      if (e.job_id !== id) return;
      if (e.type === 'job.log') setLogs((previous) => [...previous, e.data as LogEntry]);
      if (e.type === 'job.progress' || e.type === 'job.status') void refresh();
    });
  }, [job?.campaign_id]);
  useEffect(() => {
    if (follow) bottom.current?.scrollIntoView({ block: 'end' });
  }, [logs, follow]);
  const act = async (action: 'cancel' | 'retry') => {
    try {
      const r = await api<Job>('POST', `/v1/jobs/${id}/${action}`);
      if (action === 'retry') location.hash = `#/jobs/${r.data.id}`;
      else await refresh();
    } catch (e) {
      setError(explain(e));
    }
  };
  if (!job) return <main>{error ? <p role="alert" class="error">{error}</p> : <p>Loading…</p>}</main>;
  const shown = logs.filter((l) => LEVELS.indexOf(l.level) >= LEVELS.indexOf(level));
  return (
    <main>
      <p><a href={`#/campaigns/${job.campaign_id}`}>← Campaign</a></p>
      <h1>Job {job.id}</h1>
      <p>
        <span data-testid="job-status">{job.status}</span> · phase {job.progress.current_phase} · iteration {job.progress.iteration} / {job.progress.total_iterations} ·{' '}
        {job.progress.evaluations_completed} / {job.progress.budget} evaluations
        {job.timing && <> · {job.timing.elapsed_seconds.toFixed(1)} s elapsed · ETA {job.timing.estimated_remaining_seconds.toFixed(1)} s</>}
      </p>
      <p class="row">
        {(job.status === 'queued' || job.status === 'running') && <button onClick={() => act('cancel')}>Cancel</button>}
        {job.status === 'failed' && <button onClick={() => act('retry')}>Retry</button>}
      </p>
      {error && <p role="alert" class="error">{error}</p>}
      <h2>Log</h2>
      <p class="row">
        <label for="level">Level</label>
        <select id="level" value={level} onChange={(e) => setLevel((e.target as HTMLSelectElement).value)}>
          {LEVELS.map((l) => <option value={l}>{l}</option>)}
        </select>
        <label class="check"><input type="checkbox" checked={follow} onChange={(e) => setFollow((e.target as HTMLInputElement).checked)} /> Follow</label>
      </p>
      <ol class="log" data-testid="log" aria-live="polite">
        {shown.map((l) => (
          <li class={`level-${l.level}`}><time>{new Date(l.timestamp).toLocaleTimeString()}</time> <strong>{l.level}</strong> {l.message}</li>
        ))}
      </ol>
      <div ref={bottom} />
    </main>
  );
}
