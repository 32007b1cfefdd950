import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

/**
 * The Python client (clients/python) against a real Kiln: installed with pip into a folder of its
 * own, then its tests (clients/python/tests: the lab loop and the cluster loop of docs/python.md,
 * sources, typed errors, redirects against servers of the test's own) run with Debian's python3.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

let postgres: TestPostgres;
let kiln: TestKiln;
let site: string;

before(async () => {
  postgres = await TestPostgres.start();
  // the lab, cluster and partial campaigns each wait for results while they run
  kiln = await startTestKiln(await postgres.database(), { WORKER_CONCURRENCY: '3' });
  site = mkdtempSync(join(tmpdir(), 'kiln-python-'));
});

after(async () => {
  await kiln?.stop();
  await postgres?.stop();
  if (site) rmSync(site, { recursive: true, force: true });
});

function run(command: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

test('the Python client installs with pip and its lab and cluster loops run against a real Kiln', { timeout: 600_000 }, async () => {
  // no index is reached: the package needs nothing beyond the standard library and setuptools
  // built from a copy, so setuptools' build folders never land in the checkout
  const source = join(site, 'source');
  cpSync(join(root, 'clients', 'python'), source, { recursive: true, filter: (path) => !/(__pycache__|build|egg-info)$/.test(path) });
  const install = await run(python, [
    '-m',
    'pip',
    'install',
    '--quiet',
    '--no-deps',
    '--no-build-isolation',
    '--no-index',
    '--target',
    join(site, 'lib'),
    source,
  ]);
  assert.equal(install.code, 0, install.output);
  assert.ok(existsSync(join(site, 'lib', 'kiln', 'client.py')), 'pip put the kiln package in the target folder');

  const tests = await run(python, ['-m', 'unittest', 'discover', '-v', '-s', 'clients/python/tests', '-p', 'test_*.py'], {
    PYTHONPATH: join(site, 'lib'),
    PYTHONDONTWRITEBYTECODE: '1',
    KILN_URL: kiln.base,
    KILN_KEY: kiln.adminKey,
  });
  assert.equal(tests.code, 0, tests.output);
  assert.match(tests.output, /Ran 11 tests/, tests.output);
  assert.match(tests.output, /\nOK\s*$/, tests.output);
  for (const name of [
    'test_lab_loop',
    'test_cluster_loop',
    'test_cluster_loop_keeps_jobs_in_flight',
    'test_partial_failed_and_abandoned_results',
    'test_campaign_sources_and_typed_errors',
    'test_cluster_loop_raises_when_the_campaign_fails',
    'test_the_key_never_goes_to_another_host',
    'test_a_redirected_post_is_an_error_never_a_get',
    'test_redirects_that_keep_the_request_whole_on_the_same_host_are_followed',
    'test_a_proxy_redirecting_to_a_real_kiln_elsewhere_posts_nothing_there',
    'test_frames_without_pandas_name_both_installs',
  ]) {
    assert.ok(tests.output.includes(`${name} (`), `${name} ran:\n${tests.output}`);
  }
});
