// Summarizes the CPU profiles of a run (`node --cpu-prof --cpu-prof-dir=DIR`, one file per
// thread) into one text file: per thread, its total and the functions with the most self time,
// then all threads together. Plain Node, no packages, so it runs on the GPU machine as is.
// Usage: node bench/device/profile-summary.mjs PROFILE_DIR OUT_FILE [TOP]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, out, top = '30'] = process.argv.slice(2);
if (!dir || !out) throw new Error('usage: node bench/device/profile-summary.mjs PROFILE_DIR OUT_FILE [TOP]');

/** Self milliseconds per function ("name file:line") of one profile, and the profile's total. */
function selfTimes(profile) {
  const sampled = new Map();
  profile.samples.forEach((id, k) => sampled.set(id, (sampled.get(id) ?? 0) + (profile.timeDeltas[k] ?? 0) / 1000));
  const times = new Map();
  let total = 0;
  for (const node of profile.nodes) {
    const ms = sampled.get(node.id) ?? 0;
    const frame = node.callFrame;
    const key = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-1)[0]}:${frame.lineNumber}`;
    times.set(key, (times.get(key) ?? 0) + ms);
    total += ms;
  }
  return { times, total };
}

function table(times, total, count) {
  return [...times]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, ms]) => `${ms.toFixed(0).padStart(9)} ms ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${key}`)
    .join('\n');
}

const all = new Map();
let grand = 0;
const sections = [];
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.cpuprofile'))
  .sort()) {
  const { times, total } = selfTimes(JSON.parse(readFileSync(join(dir, file), 'utf8')));
  for (const [key, ms] of times) all.set(key, (all.get(key) ?? 0) + ms);
  grand += total;
  sections.push(`== ${file} (thread ${file.split('.')[4]}): ${(total / 1000).toFixed(1)} s sampled\n${table(times, total, Number(top))}`);
}
sections.push(`== all threads: ${(grand / 1000).toFixed(1)} s sampled\n${table(all, grand, Number(top))}`);
writeFileSync(out, sections.join('\n\n') + '\n');
console.log(`profile summary of ${sections.length - 1} threads written to ${out}`);
