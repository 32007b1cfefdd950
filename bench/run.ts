import { describeBackend, initTensorBackendInfo } from '../src/engine/tensor/backend.js';
import { backendOption, machineInfo, printTable, writeReport, type BenchSuite } from './common.js';

/** Suites in the order `npm run bench` runs them; `npm run bench -- <name> ...` picks some. */
const SUITES: Record<string, () => Promise<{ suite: BenchSuite; more?: BenchSuite[] }>> = {
  hypervolume: () => import('./hypervolume.js'),
  cmaes: () => import('./cmaes.js'),
  gp: () => import('./gp.js'),
  campaign: () => import('./campaign.js'),
  'campaign-reach': () => import('./campaign-reach.js'),
  service: () => import('./service.js'),
  datasets: () => import('./datasets.js'),
  web: () => import('./web.js'),
  'dashboard-load': () => import('./dashboard-load.js'),
  suite: () => import('./suite.js'),
  backends: () => import('./backends.js'),
};

/** Parts a suite runs after its own table, each also runnable alone by its name. */
const PARTS: Record<string, keyof typeof SUITES> = {
  'campaign-large': 'campaign',
  'campaign-constrained': 'campaign',
  'campaign-noisy': 'campaign',
  'service-mdl-load': 'service',
  'hypervolume-scalarized': 'hypervolume',
  'hypervolume-boxes': 'hypervolume',
};

const requested = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = requested.filter((name) => !(name in SUITES) && !(name in PARTS));
if (unknown.length > 0) {
  console.error(`Unknown benchmark suite ${unknown.join(', ')}; choose from ${[...Object.keys(SUITES), ...Object.keys(PARTS)].join(', ')}.`);
  process.exit(2);
}
/** Suites that run only when named: the public suite takes hours at its full size. */
const ON_REQUEST = new Set(['suite']);
const names = requested.length > 0 ? requested : Object.keys(SUITES).filter((name) => !ON_REQUEST.has(name));
const backend = await initTensorBackendInfo(backendOption());
const machine = machineInfo(describeBackend(backend));
console.log(`Kiln benchmarks on ${machine.cpu} (${machine.cores} cores), Node ${machine.node}, tensor backend ${machine.backend}`);

for (const name of names) {
  const { suite, more = [] } = await SUITES[PARTS[name] ?? name]();
  const parts = name in PARTS ? more.filter((p) => p.name === name) : [suite, ...more];
  for (const part of parts) {
    console.log(`\n== ${part.name}: ${part.description}`);
    const started = performance.now();
    const report = await part.run();
    printTable(report.rows);
    for (const note of report.notes ?? []) console.log(`note: ${note}`);
    const file = writeReport(part.name, machine, report);
    console.log(`(${((performance.now() - started) / 1000).toFixed(1)} s; written to ${file})`);
  }
}
