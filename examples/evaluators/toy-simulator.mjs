#!/usr/bin/env node
// A toy simulator for Kiln's command evaluator (protocol: docs/evaluators.md).
// Reads {"candidates": [{"parameters": {...}}, ...], "objectives": [...]} from stdin and prints
// {"results": [...]} on stdout, one result per candidate, in order. Logs go to stderr only.
//
// The model: a coating whose hardness rises with cure temperature and filler content while its
// flexibility falls, with a solvent choice that shifts both; a candidate outside the cure window
// reports an error instead of a result, as a real simulator might.

const SOLVENT_EFFECT = { water: 0, ethanol: 0.08, toluene: 0.15 };

function simulate(p) {
  const t = (p.cure_temperature_c - 60) / 100;
  const filler = p.filler_fraction;
  const shift = SOLVENT_EFFECT[p.solvent];
  if (shift === undefined) throw new Error(`unknown solvent ${JSON.stringify(p.solvent)}`);
  if (t < 0 || t > 1) throw new Error(`cure_temperature_c ${p.cure_temperature_c} is outside 60-160 °C`);
  const hardness = 2 + 6 * t * (1 - 0.3 * t) + 4 * filler + shift; // GPa
  const flexibility = 20 * Math.exp(-1.5 * t - 3 * filler * filler) * (1 - shift); // % elongation at break
  return { hardness, flexibility };
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const request = JSON.parse(input);
  console.error(`toy-simulator: evaluating ${request.candidates.length} candidates`);
  const results = request.candidates.map(({ parameters }) => {
    try {
      return { objectives: simulate(parameters) };
    } catch (error) {
      return { error: error.message };
    }
  });
  process.stdout.write(JSON.stringify({ results }));
});
