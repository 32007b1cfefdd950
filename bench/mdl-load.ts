import { performance } from 'node:perf_hooks';
import { mdlLimits } from '../src/engine/mdl/limits.js';
import { createApiKey } from '../src/service/api-keys.js';
import { ensureOrganization } from '../src/store/organizations.js';
import type { BenchReport, BenchSuite } from './common.js';
import { startBenchKiln } from './embedded-kiln.js';

/**
 * Another organization's GET latency while MDL documents at every limit (1,000 parameters, 50,000
 * characters of constraints) are checked four at a time, against the same GETs on an idle API in
 * the same run. Part of `npm run bench -- service`.
 */

const QUIET_REQUESTS = 200;
const STORM_MS = 8_000;
const IN_FLIGHT = 4;

function maximalMdl(seed: number) {
  const count = 1000;
  const constraints = Array.from({ length: Math.floor(mdlLimits.constraintCharacters / 2000) }, (_, c) => {
    const terms: string[] = [];
    for (let i = 0; terms.join(' + ').length < 1960; i++) terms.push(`0.5*x${(c * 7 + i + seed) % count}`);
    return { expression: `${terms.join(' + ')} <= 1000` };
  });
  return {
    name: `maximal ${seed}`,
    domain: 'benchmark',
    parameters: Array.from({ length: count }, (_, i) => ({ name: `x${i}`, type: 'continuous', bounds: [0, 1] })),
    objectives: [
      { name: 'f1', direction: 'minimize' },
      { name: 'f2', direction: 'minimize' },
    ],
    constraints,
    optimizer: { method: 'cma-es', budget: 40, batch_size: 4 },
    evaluator: { type: 'builtin', name: 'zdt1' },
  };
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
}

export const mdlLoad: BenchSuite = {
  name: 'service-mdl-load',
  description: "another organization's GET /v1/campaigns while maximal MDL documents are checked 4 at a time, vs an idle API",
  async run(): Promise<BenchReport> {
    const kiln = await startBenchKiln({ WORKER_CONCURRENCY: '0', API_RATE_LIMIT_PER_MINUTE: '0' }, { worker: false });
    try {
      await ensureOrganization(kiln.runtime.db, { id: 'org_other', name: 'other', plan: 'enterprise' });
      const other = (await createApiKey(kiln.runtime.db, { organizationId: 'org_other', name: 'reader', scopes: ['campaigns:read'] })).key;
      const get = async (): Promise<number> => {
        const start = performance.now();
        const res = await fetch(`${kiln.base}/v1/campaigns`, { headers: { Authorization: `Bearer ${other}` } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`GET /v1/campaigns answered ${res.status}`);
        return performance.now() - start;
      };
      const quiet: number[] = [];
      for (let i = 0; i < QUIET_REQUESTS; i++) quiet.push(await get());

      let stop = false;
      const checks: number[] = [];
      const statuses = new Map<number, number>();
      const sender = async (lane: number): Promise<void> => {
        for (let k = 0; !stop; k++) {
          const start = performance.now();
          const res = await fetch(`${kiln.base}/v1/campaigns`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${kiln.key}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ mdl: maximalMdl(lane * 1000 + k) }),
          });
          await res.arrayBuffer();
          checks.push(performance.now() - start);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }
      };
      const senders = Array.from({ length: IN_FLIGHT }, (_, lane) => sender(lane));
      const loaded: number[] = [];
      const until = performance.now() + STORM_MS;
      while (performance.now() < until) loaded.push(await get());
      stop = true;
      await Promise.all(senders);

      quiet.sort((a, b) => a - b);
      loaded.sort((a, b) => a - b);
      checks.sort((a, b) => a - b);
      const row = (what: string, values: number[]) => ({
        requests: what,
        n: values.length,
        p50_ms: +percentile(values, 0.5).toFixed(1),
        p99_ms: +percentile(values, 0.99).toFixed(1),
        max_ms: +values[values.length - 1].toFixed(1),
      });
      return {
        rows: [
          row('GET, idle API (baseline)', quiet),
          row(`GET, ${IN_FLIGHT} maximal documents in flight`, loaded),
          row('POST /v1/campaigns, maximal document', checks),
        ],
        notes: [
          `p99 under load / idle: ${(percentile(loaded, 0.99) / percentile(quiet, 0.99)).toFixed(2)}; target: p99 under load < 200 ms`,
          `maximal document answers: ${[...statuses].map(([s, n]) => `${n} × ${s}`).join(', ')}`,
        ],
      };
    } finally {
      await kiln.stop();
    }
  },
};
