import { describeBackend, initTensorBackendInfo } from '../src/engine/tensor/backend.js';
import { backendOption, COMMON_OPTIONS, isOption, machineInfo, optionLines, printTable, writeReport, type BenchOption, type BenchSuite } from './common.js';

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

const args = process.argv.slice(2);
const requested = args.filter((a) => !a.startsWith('-'));
const flags = args.filter((a) => a.startsWith('-'));
const unknown = requested.filter((name) => !(name in SUITES) && !(name in PARTS));
if (unknown.length > 0) {
  console.error(`Unknown benchmark suite ${unknown.join(', ')}; choose from ${[...Object.keys(SUITES), ...Object.keys(PARTS)].join(', ')}.`);
  process.exit(2);
}
/** Suites that run only when named: the public suite takes hours at its full size. */
const ON_REQUEST = new Set(['suite']);
const help = flags.includes('--help') || flags.includes('-h');
// help without a suite describes every suite, those run only on request too
const names = requested.length > 0 ? requested : Object.keys(SUITES).filter((name) => help || !ON_REQUEST.has(name));

/** What `name` runs: a suite's own table and the parts after it, or one part alone. */
async function partsOf(name: string): Promise<BenchSuite[]> {
  const { suite, more = [] } = await SUITES[PARTS[name] ?? name]();
  return name in PARTS ? more.filter((p) => p.name === name) : [suite, ...more];
}
const planned = await Promise.all(names.map(partsOf));

if (help) {
  console.log(
    'Usage: npm run bench -- [SUITE ...] [OPTION ...]\nWithout a suite, every suite runs but suite (the public benchmark suite, hours long), which runs when named.\n',
  );
  for (const part of planned.flat()) {
    console.log(`${part.name}: ${part.description}`);
    if (part.options?.length) console.log(optionLines(part.options).join('\n'));
  }
  console.log(`\nEvery suite:\n${optionLines(COMMON_OPTIONS).join('\n')}`);
  process.exit(0);
}

// an option no suite of this run reads would be ignored, and a long run started with it: stop instead
const options: BenchOption[] = [...planned.flat().flatMap((part) => part.options ?? []), ...COMMON_OPTIONS];
const strays = flags.filter((flag) => !options.some((option) => isOption(flag, option)));
if (strays.length > 0) {
  console.error(`Unknown option ${strays.join(', ')} for ${names.join(', ')}. The options:\n${optionLines(options).join('\n')}`);
  process.exit(2);
}

const backend = await initTensorBackendInfo(backendOption());
const machine = machineInfo(describeBackend(backend));
console.log(`Kiln benchmarks on ${machine.cpu} (${machine.cores} cores), Node ${machine.node}, tensor backend ${machine.backend}`);

for (const parts of planned) {
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
