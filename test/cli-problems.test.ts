import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIo } from '../src/cli/io.js';
import { runCampaignFile } from '../src/cli/run.js';
import { validateFile } from '../src/cli/validate.js';
import { builtinNames } from '../src/engine/problems/registry.js';
import { packageRoot } from '../src/package-root.js';

function capture(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, isTTY: false, out: (t) => stdout.push(t), err: (t) => stderr.push(t) };
}

function tempFile(name: string, text: string): { file: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-cli-'));
  const file = join(dir, name);
  writeFileSync(file, text);
  return { file, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

test('kiln --version prints the version of package.json', () => {
  const root = packageRoot();
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const printed = execFileSync(process.execPath, [join(root, 'bin', 'kiln.js'), '--version'], { encoding: 'utf8' });
  assert.equal(printed.trim(), version);
});

const wasteful = [
  'parameters:', //                                            1
  '  - {name: x1, type: continuous, bounds: [0, 1]}', //       2
  '  - {name: x2, type: continuous, bounds: [0, 1]}', //       3
  'objectives:', //                                            4
  '  - {name: f1, direction: minimize}', //                    5
  '  - {name: f2, direction: minimize}', //                    6
  'constraints:', //                                           7
  '  - expression: x1 + x2 <= 0.1', //                         8
  'optimizer: {budget: 6, initial_samples: 6}', //             9
  'evaluator: {type: builtin, name: zdt1}', //                 10
  '',
].join('\n');

test('kiln validate prints pre-flight warnings located like errors and exits 0', () => {
  const { file, cleanup } = tempFile('wasteful.yaml', wasteful);
  try {
    const io = capture();
    assert.equal(validateFile(file, io), 0);
    assert.match(io.stdout[0], /is valid: 2 parameters/);
    assert.equal(io.stderr.length, 2, io.stderr.join('\n'));
    assert.match(io.stderr[0], new RegExp(`^${escape(file)}:7:1: warning: constraints: only about 0\\.\\d+ % of the parameter box`));
    assert.match(io.stderr[1], new RegExp(`^${escape(file)}:9:24: warning: optimizer\\.initial_samples: the budget of 6 evaluations`));
  } finally {
    cleanup();
  }
});

test('kiln run and kiln validate locate problems in the same file:line:column: path: message form', async () => {
  const broken = wasteful.replace('bounds: [0, 1]}', 'bounds: [1, 0]}').replace('name: zdt1', 'name: zdt9');
  const { file, cleanup } = tempFile('broken.yaml', broken);
  try {
    const validated = capture();
    assert.equal(validateFile(file, validated), 1);
    const ran = capture();
    assert.equal(await runCampaignFile(file, { out: join(file, '..', 'out') }, ran), 1);
    const expected = [
      `${file}:2:34: parameters[0].bounds: lower bound 1 must be below upper bound 0`,
      `${file}:10:28: evaluator.name: unknown builtin evaluator 'zdt9'; known: ${builtinNames().join(', ')}`,
    ];
    assert.deepEqual(validated.stderr.slice(0, -1), expected);
    assert.deepEqual(ran.stderr.slice(0, -1), expected);
    assert.equal(validated.stderr.at(-1), `${file} is not valid: 2 problems`);
    assert.equal(ran.stderr.at(-1), `${file} is not a valid campaign: 2 problems`);
  } finally {
    cleanup();
  }
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
