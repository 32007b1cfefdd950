import test from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { kilnMain } from './support/service.js';

/**
 * A whole campaign on webgpu against the same campaign on wasm, as a user runs it (`kiln run
 * --backend`), seed by seed. The two backends round differently in float32, so the batches drift
 * apart within a few iterations; what must hold is that the GPU path optimizes as well: on
 * Branin-Currin (40 evaluations in batches of 4, BoTorch's reference point) both end within 1 % of
 * each other's hypervolume, about 57.5 of the 59.4 reachable. Without a GPU this runs on lavapipe
 * (see webgpu.test.ts), a few times slower than wasm.
 */
const run = promisify(execFile);
const example = fileURLToPath(new URL('../../examples/branin-currin.yaml', import.meta.url));

interface Results {
  hypervolume: number;
  campaign: Record<string, unknown>;
  iterations: { receipt: { tensor_backend: string; tensor_device: unknown } | null }[];
}

async function kilnRun(backend: string, seed: number): Promise<{ stdout: string; results: Results }> {
  const out = mkdtempSync(join(tmpdir(), `kiln-${backend}-`));
  const { stdout } = await run(process.execPath, [kilnMain(), 'run', example, '--backend', backend, '--seed', String(seed), '--out', out], {
    maxBuffer: 16 << 20,
  });
  return { stdout, results: JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as never };
}

for (const seed of [1, 2, 3]) {
  test(`Branin-Currin, seed ${seed}: the webgpu campaign ends within 1 % of the wasm campaign's hypervolume`, async () => {
    const [gpu, cpu] = [await kilnRun('webgpu', seed), await kilnRun('wasm', seed)];
    const ratio = gpu.results.hypervolume / cpu.results.hypervolume;
    assert.ok(Math.abs(ratio - 1) <= 0.01, `webgpu ${gpu.results.hypervolume} vs wasm ${cpu.results.hypervolume}`);
    assert.ok(cpu.results.hypervolume > 55, `wasm reached ${cpu.results.hypervolume}`);
    // the user sees where it ran: the header, and the results file with the adapter
    assert.match(gpu.stdout, /tensor backend webgpu on \S+/);
    assert.equal(gpu.results.campaign.tensor_backend, 'webgpu');
    const device = gpu.results.campaign.tensor_device as { vendor: string; software: boolean } | null;
    assert.ok(device && typeof device.vendor === 'string' && typeof device.software === 'boolean', JSON.stringify(device));
    // and every receipt: the batches were proposed on the GPU thread
    for (const { receipt } of gpu.results.iterations) {
      assert.equal(receipt?.tensor_backend, 'webgpu');
      assert.deepEqual(receipt?.tensor_device, device);
    }
    assert.equal(cpu.results.campaign.tensor_backend, 'wasm');
    assert.equal(cpu.results.campaign.tensor_device, null);
  });
}
