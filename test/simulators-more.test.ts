import assert from 'node:assert/strict';
import test from 'node:test';
import { alloyDesign } from '../src/engine/problems/alloy-design.js';
import { electrolyteFormulation } from '../src/engine/problems/electrolyte-formulation.js';
import { perovskiteSolarCell } from '../src/engine/problems/perovskite-solar-cell.js';
import { polymerMembrane } from '../src/engine/problems/polymer-membrane.js';
import { builtinNames, domainSimulator } from '../src/engine/problems/registry.js';
import type { DomainSimulator } from '../src/engine/problems/types.js';
import { waterSplittingCatalyst } from '../src/engine/problems/water-splitting-catalyst.js';
import { Random } from '../src/engine/random.js';

type Values = Record<string, number>;

const SIMULATORS = [waterSplittingCatalyst, electrolyteFormulation, perovskiteSolarCell, alloyDesign, polymerMembrane];

/** Each simulator's pair of objectives that the documentation says pull against each other. */
const TRADE_OFFS: Record<string, [string, string]> = {
  'water-splitting-catalyst': ['overpotential', 'durability_hours'],
  'electrolyte-formulation': ['ionic_conductivity', 'stability_window'],
  'perovskite-solar-cell': ['efficiency', 't80_hours'],
  'alloy-design': ['yield_strength', 'elongation'],
  'polymer-membrane': ['co2_permeability', 'co2_ch4_selectivity'],
};

function close(actual: number, expected: number, what: string, relative = 1e-6): void {
  assert.ok(Math.abs(actual - expected) <= relative * Math.abs(expected), `${what}: ${actual}, expected ${expected}`);
}

function randomInputs(simulator: DomainSimulator, random: Random): Values {
  const values: Values = {};
  for (const p of simulator.parameters) values[p.name] = p.bounds![0] + random.uniform() * (p.bounds![1] - p.bounds![0]);
  return values;
}

/** How many rows are non-dominated, objectives turned to minimisation by their direction. */
function nondominatedCount(rows: Record<string, number>[], objectives: { name: string; direction: string }[]): number {
  const signed = rows.map((r) => objectives.map((o) => (o.direction === 'maximize' ? -r[o.name] : r[o.name])));
  const dominates = (a: number[], b: number[]) => a.every((v, k) => v <= b[k]) && a.some((v, k) => v < b[k]);
  return signed.filter((row) => !signed.some((other) => dominates(other, row))).length;
}

/** Checks f strictly increases (or decreases) along the sweep. */
function monotone(sweep: number[], f: (v: number) => number, increasing: boolean, what: string): void {
  for (let i = 1; i < sweep.length; i++) {
    const [a, b] = [f(sweep[i - 1]), f(sweep[i])];
    assert.ok(increasing ? b > a : b < a, `${what} from ${sweep[i - 1]} to ${sweep[i]}: ${a} -> ${b}`);
  }
}

/** Checks the sweep's best value (largest, or smallest with minimize) lies strictly inside it. */
function interiorOptimum(sweep: number[], f: (v: number) => number, minimize: boolean, what: string): void {
  const values = sweep.map(f).map((v) => (minimize ? -v : v));
  const best = values.indexOf(Math.max(...values));
  assert.ok(best > 0 && best < sweep.length - 1, `${what}: best at ${sweep[best]} of ${sweep[0]}..${sweep.at(-1)}`);
}

const range = (lo: number, hi: number, n: number): number[] => Array.from({ length: n }, (_, i) => lo + ((hi - lo) * i) / (n - 1));

test('the new simulators are registered with parameters, units and directions', () => {
  for (const simulator of SIMULATORS) {
    assert.equal(domainSimulator(simulator.name), simulator);
    assert.ok(builtinNames().includes(simulator.name));
    assert.ok(simulator.parameters.length >= 3 && simulator.parameters.length <= 6, simulator.name);
    assert.ok(simulator.objectives.length >= 2 && simulator.objectives.length <= 3, simulator.name);
    for (const o of simulator.objectives) assert.ok(o.unit && o.description, `${simulator.name}.${o.name}`);
    for (const p of simulator.parameters) assert.ok(p.bounds && p.bounds[0] < p.bounds[1] && p.description, `${simulator.name}.${p.name}`);
  }
  assert.deepEqual(
    SIMULATORS.map((s) => s.domain),
    ['water', 'battery', 'energy', 'alloys', 'polymers'],
  );
});

test('the new simulators are deterministic, finite over their whole range, and name bad inputs', () => {
  const random = new Random(11);
  for (const simulator of SIMULATORS) {
    const corners: Values[] = [{}, {}];
    for (const p of simulator.parameters) [corners[0][p.name], corners[1][p.name]] = p.bounds!;
    const samples = [...corners, ...Array.from({ length: 2000 }, () => randomInputs(simulator, random))];
    for (const values of samples) {
      const out = simulator.evaluate(values);
      assert.deepEqual(Object.keys(out).sort(), simulator.objectives.map((o) => o.name).sort());
      for (const v of Object.values(out)) if (!Number.isFinite(v)) assert.fail(`${simulator.name} gave ${v} at ${JSON.stringify(values)}`);
      assert.deepEqual(simulator.evaluate({ ...values }), out);
    }
    const first = simulator.parameters[0];
    const inside = randomInputs(simulator, random);
    assert.throws(() => simulator.evaluate({ ...inside, [first.name]: first.bounds![1] + 1 }), new RegExp(`${first.name} = .* is outside`));
    const { [first.name]: _, ...missing } = inside;
    assert.throws(() => simulator.evaluate(missing), new RegExp(`needs parameter '${first.name}'`));
  }
});

test('among 200 random designs of each simulator several are non-dominated, also on its trade-off pair', () => {
  const random = new Random(5);
  for (const simulator of SIMULATORS) {
    const rows = Array.from({ length: 200 }, () => simulator.evaluate(randomInputs(simulator, random)));
    const all = nondominatedCount(rows, simulator.objectives);
    assert.ok(all >= 3, `${simulator.name}: ${all} non-dominated`);
    const pair = simulator.objectives.filter((o) => TRADE_OFFS[simulator.name].includes(o.name));
    const front = nondominatedCount(rows, pair);
    assert.ok(front >= 3, `${simulator.name} ${TRADE_OFFS[simulator.name].join('/')}: ${front} non-dominated`);
  }
});

test('water-splitting-catalyst: hand-checked values and documented trends', () => {
  // pure Ni, 300 °C, 0.4 mg/cm2: conductivity 1, surface 0.3 + 0.7 σ(0) = 0.65, reach 0.4,
  // sites 0.65 * 0.4 (1 - e^-1) / 0.1 = 1.64351; slope 38 + 42 + 12 * 0.35 + 6 * 0.4 = 86.6;
  // eta = 330 + 86.6 log10(10/1.64351) + 8 * 0.4 = 401.114 mV;
  // durability 200 (0.25 + 0.5)(1 - 0.5 σ(-7.5)) * 1 * 1 * (0.4/0.5)/1.16 = 103.420 h
  const ni = waterSplittingCatalyst.evaluate({ fe_fraction: 0, anneal_temperature_c: 300, loading_mg_cm2: 0.4, co_fraction: 0 });
  close(ni.tafel_slope, 86.6, 'Ni slope');
  close(ni.overpotential, 401.11404, 'Ni overpotential');
  close(ni.durability_hours, 103.41968, 'Ni durability');
  // Fe 0.2, Co 0.1: conductivity 1.2 * 1.6/1.6 = 1.2, reach 0.48, sites 0.65 * 0.48 (1 - e^(-0.4/0.48)) / 0.1 = 1.764054;
  // slope 38 + 42 e^(-20/7) + 4.2 + 2.4/1.2 = 46.61217; onset 330 - 18/0.26 + 10 - 10 + 1.5 = 262.26923;
  // eta = 262.26923 + 46.61217 log10(10/1.764054) + 3.2/1.2 = 300.05762 mV;
  // durability 200 * 0.75 * (1 - 0.5 σ(-7.5)) e^-0.25 * 1.15 * 0.8/1.16 = 92.62483 h
  const nife = waterSplittingCatalyst.evaluate({ fe_fraction: 0.2, anneal_temperature_c: 300, loading_mg_cm2: 0.4, co_fraction: 0.1 });
  close(nife.tafel_slope, 46.61217, 'NiFe slope');
  close(nife.overpotential, 300.05762, 'NiFe overpotential');
  close(nife.durability_hours, 92.62483, 'NiFe durability');

  const base: Values = { fe_fraction: 0.2, anneal_temperature_c: 300, loading_mg_cm2: 0.5, co_fraction: 0 };
  const at = (change: Values) => waterSplittingCatalyst.evaluate({ ...base, ...change });
  for (const m of [0.1, 0.5, 2]) {
    // Fe switches the mechanism: the Tafel slope falls as it enters; Fe leaches, durability falls throughout
    monotone(range(0, 0.2, 11), (f) => at({ fe_fraction: f, loading_mg_cm2: m }).tafel_slope, false, `slope vs Fe at ${m} mg/cm2`);
    monotone(range(0, 0.6, 13), (f) => at({ fe_fraction: f, loading_mg_cm2: m }).durability_hours, false, `durability vs Fe at ${m}`);
    interiorOptimum(range(0, 0.6, 13), (f) => at({ fe_fraction: f, loading_mg_cm2: m }).overpotential, true, `overpotential vs Fe at ${m}`);
    // annealing costs active surface (overpotential up) but anchors the film, until the substrate oxidises
    monotone(range(100, 500, 9), (t) => at({ anneal_temperature_c: t, loading_mg_cm2: m }).overpotential, true, `overpotential vs T at ${m}`);
    interiorOptimum(range(100, 500, 9), (t) => at({ anneal_temperature_c: t, loading_mg_cm2: m }).durability_hours, false, `durability vs T at ${m}`);
    // Co stabilises throughout; a little lowers the overpotential, more forms CoOOH
    monotone(range(0, 0.3, 7), (c) => at({ co_fraction: c, loading_mg_cm2: m }).durability_hours, true, `durability vs Co at ${m}`);
    interiorOptimum(range(0, 0.3, 7), (c) => at({ co_fraction: c, loading_mg_cm2: m }).overpotential, true, `overpotential vs Co at ${m}`);
  }
  // loading: too little has too few sites, too much is not reached and peels
  const loadings = [0.05, 0.1, 0.2, 0.5, 1, 2];
  interiorOptimum(loadings, (m) => at({ loading_mg_cm2: m }).overpotential, true, 'overpotential vs loading');
  interiorOptimum(loadings, (m) => at({ loading_mg_cm2: m }).durability_hours, false, 'durability vs loading');
});

test('electrolyte-formulation: hand-checked values and documented trends', () => {
  // 1 M, EC 0.3, no additives: eta_s = 0.6 e^0.39 = 0.886188; kappa = 30.9 e^-0.85 (0.3/0.47)/0.886188 = 9.512737 mS/cm;
  // bound (3/12)^2 = 0.0625; E_ox = 4.25 + 0.0625 + 0.03 = 4.3425, E_red = 0.85 - 0.01875 = 0.83125, window 3.51125 V;
  // fade 3e-4 (1 + 2 e^-3) + 2e-4 e^(-0.0425/0.08) + 1.5e-4 (8/9.512737)^2 + 3e-5 = 5.835327e-4, retention 100 e^-0.291766 = 74.6943 %
  const plain = electrolyteFormulation.evaluate({ salt_concentration: 1, ec_fraction: 0.3, fec_wt: 0, vc_wt: 0 });
  close(plain.ionic_conductivity, 9.512737, 'plain conductivity');
  close(plain.stability_window, 3.51125, 'plain window');
  close(plain.capacity_retention, 74.6943, 'plain retention');
  // 2 M, EC 0.5, FEC 3, VC 1: eta_s = 0.6 e^0.65 * 1.05 = 1.206791; kappa = 61.8 e^-1.7 (0.5/0.67)/1.206791 = 6.981538;
  // bound 0.25; E_ox = 4.25 + 0.25 + 0.05 + 0.036 - 0.03 = 4.556, E_red = 0.85 - 0.075 + 0.045 + 0.04 = 0.86, window 3.696 V;
  // SEI 3e-4 (1 + 2 e^-5)(1 - 0.4 + 0.036)(1 - 0.4/1.3 + 0.05) = 1.435409e-4; fade 4.086493e-4; retention 81.5198 %
  const rich = electrolyteFormulation.evaluate({ salt_concentration: 2, ec_fraction: 0.5, fec_wt: 3, vc_wt: 1 });
  close(rich.ionic_conductivity, 6.981538, 'rich conductivity');
  close(rich.stability_window, 3.696, 'rich window');
  close(rich.capacity_retention, 81.51977, 'rich retention');

  const base: Values = { salt_concentration: 1, ec_fraction: 0.3, fec_wt: 2, vc_wt: 0 };
  const at = (change: Values) => electrolyteFormulation.evaluate({ ...base, ...change });
  for (const x of [0.1, 0.3, 0.6]) {
    // conductivity peaks near 1.1 M while more salt binds solvent and widens the window: the trade-off
    interiorOptimum(range(0.5, 2.5, 21), (c) => at({ salt_concentration: c, ec_fraction: x }).ionic_conductivity, false, `kappa vs c at EC ${x}`);
    monotone(range(0.5, 2.5, 21), (c) => at({ salt_concentration: c, ec_fraction: x }).stability_window, true, `window vs c at EC ${x}`);
    // additives are more viscous than the solvent; VC oxidises at the cathode
    monotone(range(0, 10, 11), (p) => at({ fec_wt: p, ec_fraction: x }).ionic_conductivity, false, `kappa vs FEC at EC ${x}`);
    monotone(range(0, 3, 7), (v) => at({ vc_wt: v, ec_fraction: x }).stability_window, false, `window vs VC at EC ${x}`);
    // the SEI additives have sweet spots
    interiorOptimum(range(0, 10, 21), (p) => at({ fec_wt: p, ec_fraction: x }).capacity_retention, false, `retention vs FEC at EC ${x}`);
    interiorOptimum(range(0, 3, 13), (v) => at({ vc_wt: v, ec_fraction: x }).capacity_retention, false, `retention vs VC at EC ${x}`);
  }
  // EC: dissociation against viscosity
  interiorOptimum(range(0.1, 0.6, 11), (x) => at({ ec_fraction: x }).ionic_conductivity, false, 'kappa vs EC');
});

test('perovskite-solar-cell: hand-checked values and documented trends', () => {
  // iodide, 95 °C, 400 nm, no additive: Eg 1.57, chi 0.5, delta σ(-6) = 1.894e-4, s = 0.04 softplus(-5) = 2.686e-4;
  // L = 500 + 1000 (1 - 1.1364e-4) = 1499.886 nm; Jsc = 0.95 * 25.6 (1 - e^(-10/3)) (1499.886/400)(1 - e^(-400/1499.886)) = 20.58559;
  // Voc = 1.57 - 0.36 - (0.1 + 0.04 ln(2.5 + 7.576e-4)) - 1.343e-4 = 1.073202; FF = 0.84 - 0.012 - 0.03 - 9.47e-6 = 0.797991;
  // PCE 17.62960 %; T80 = 800 (1/(1 + 4.3e-6)) 0.5 (1.15)(1 - 1.61e-4) * 1 * (0.7 + 0.3 (1 - e^-1)) = 409.1650 h;
  // hysteresis (0.03 + 0.1 + 1.89e-5 + 8.06e-5)/1 = 0.1300995
  const raw = perovskiteSolarCell.evaluate({ br_fraction: 0, anneal_temperature_c: 95, thickness_nm: 400, additive_fraction: 0 });
  close(raw.efficiency, 17.6296, 'raw efficiency');
  close(raw.t80_hours, 409.16498, 'raw T80');
  close(raw.hysteresis_index, 0.13009952, 'raw hysteresis');
  // Br 0.2, 125 °C, 600 nm, 1 mol%: Eg 1.6612, chi σ(3) = 0.952574, delta σ(-30/7) = 0.0135769, p 0.5, s 0.04 ln 2 = 0.0277259;
  // L = 500 + 2000 * 0.952574 (1 - 0.0081462)(1.2) = 2767.554; Jsc = 0.95 (25.6 - 2.5536)(1 - e^-5)(2767.554/600)(1 - e^(-600/2767.554)) = 19.55076;
  // Voc = 1.6612 - 0.36 - (0.1 + 0.04 ln(1.196585) - 0.025) - 0.0138629 = 1.205158; FF = 0.84 - 0.004 - 0.018 - 0.0028455 - 0.00067885 = 0.814476;
  // PCE 19.19048 %; T80 2287.528 h; hysteresis (0.03 + 0.0094852 + 0.00135769 + 0.0083178)/2.5 = 0.0196643
  const tuned = perovskiteSolarCell.evaluate({ br_fraction: 0.2, anneal_temperature_c: 125, thickness_nm: 600, additive_fraction: 1 });
  close(tuned.efficiency, 19.19048, 'tuned efficiency');
  close(tuned.t80_hours, 2287.5277, 'tuned T80');
  close(tuned.hysteresis_index, 0.01966425, 'tuned hysteresis');

  const base: Values = { br_fraction: 0.15, anneal_temperature_c: 120, thickness_nm: 500, additive_fraction: 1 };
  const at = (change: Values) => perovskiteSolarCell.evaluate({ ...base, ...change });
  for (const temperature of [100, 130, 160]) {
    for (const a of [0, 1, 4]) {
      const here = (change: Values) => at({ anneal_temperature_c: temperature, additive_fraction: a, ...change });
      // a wider gap loses current faster than it gains voltage; Br stabilises until it segregates
      monotone(range(0, 0.5, 11), (x) => here({ br_fraction: x }).efficiency, false, `PCE vs Br at ${temperature} °C, ${a} mol%`);
      interiorOptimum(range(0, 0.5, 11), (x) => here({ br_fraction: x }).t80_hours, false, `T80 vs Br at ${temperature} °C, ${a} mol%`);
      // absorption against collection
      interiorOptimum(range(200, 1000, 9), (t) => here({ thickness_nm: t }).efficiency, false, `PCE vs thickness at ${temperature} °C, ${a} mol%`);
    }
    // the additive passivates and blocks ion migration; in excess it forms insulating phases
    monotone(
      range(0, 5, 11),
      (a) => at({ anneal_temperature_c: temperature, additive_fraction: a }).hysteresis_index,
      false,
      `hysteresis vs additive at ${temperature}`,
    );
    monotone(range(0, 5, 11), (a) => at({ anneal_temperature_c: temperature, additive_fraction: a }).t80_hours, true, `T80 vs additive at ${temperature}`);
    interiorOptimum(
      range(0, 5, 11),
      (a) => at({ anneal_temperature_c: temperature, additive_fraction: a }).efficiency,
      false,
      `PCE vs additive at ${temperature}`,
    );
  }
  // crystallisation against decomposition to PbI2
  interiorOptimum(range(70, 170, 11), (t) => at({ anneal_temperature_c: t }).efficiency, false, 'PCE vs anneal');
  interiorOptimum(range(70, 170, 11), (t) => at({ anneal_temperature_c: t }).t80_hours, false, 'T80 vs anneal');
});

test('alloy-design: hand-checked values and documented trends', () => {
  // pure Ni (0.5, normalised to 1) aged at 500 °C for 10 h: VEC 10, BCC σ(-12.75) = 2.90e-6, no misfit, no Al, no Cr; P = 773.15 * 21/1000 = 16.23615,
  // recovery σ((16.23615 - 24)/1.5) = 0.0056194; matrix 150 + 550 * 2.9e-6 + 400 * 2.9e-6 = 150.00276;
  // yield 150.00276 (1 - 0.15 * 0.0056194) = 149.87632 MPa; elongation (55 - 52 * 2.9e-6)(1.0016858) = 55.09257 %; density 8.91
  const nickel = alloyDesign.evaluate({ al_frac: 0, cr_frac: 0, fe_frac: 0, ni_frac: 0.5, aging_temperature_c: 500, aging_time_h: 10 });
  close(nickel.yield_strength, 149.87632, 'Ni yield');
  close(nickel.elongation, 55.09257, 'Ni elongation');
  close(nickel.density, 8.91, 'Ni density');
  // Al0.2 Fe0.4 Ni0.4 at 700 °C, 10 h: VEC 7.8, BCC σ(-1.75) = 0.148047; mean radius 1.2812, misfit 0.0588770;
  // P = 973.15 * 21/1000 = 20.43615; precipitates 600 * 4 * 0.08 e^(-(0.93615/2.2)^2) = 160.2004; recovery 0.0850290;
  // matrix 0.851953 * 326.631 + 0.148047 * 935.508 + 400 * 0.148047 * 0.851953 = 467.2251;
  // yield 467.2251 * 0.987246 + 160.2004 = 621.4664 MPa; elongation (47.30155)(0.764492)(1 - 80.1002/460.2004)(1.025509) = 30.62942 %;
  // density (0.2 * 26.982 + 0.4 * 55.845 + 0.4 * 58.693)/(0.2 * 26.982/2.70 + 0.4 * 55.845/7.87 + 0.4 * 58.693/8.91) = 6.853831 g/cm3
  const dual = alloyDesign.evaluate({ al_frac: 0.2, cr_frac: 0, fe_frac: 0.4, ni_frac: 0.4, aging_temperature_c: 700, aging_time_h: 10 });
  close(dual.yield_strength, 621.46636, 'dual-phase yield');
  close(dual.elongation, 30.629424, 'dual-phase elongation');
  close(dual.density, 6.8538309, 'dual-phase density');
  // fractions are normalised by their sum
  assert.deepEqual(alloyDesign.evaluate({ al_frac: 0.1, cr_frac: 0, fe_frac: 0.2, ni_frac: 0.2, aging_temperature_c: 700, aging_time_h: 10 }), dual);

  const aged = (al: number, cr: number, temperature: number, hours: number) =>
    alloyDesign.evaluate({ al_frac: al, cr_frac: cr, fe_frac: 0.5 - al - cr, ni_frac: 0.5, aging_temperature_c: temperature, aging_time_h: hours });
  for (const [temperature, hours] of [
    [500, 1],
    [650, 10],
    [900, 100],
  ]) {
    for (const cr of [0, 0.1, 0.2]) {
      // Al for Fe: lighter, stronger (BCC/B2, misfit, precipitates), less ductile
      const sweep = range(0, 0.3, 13);
      monotone(sweep, (al) => aged(al, cr, temperature, hours).density, false, `density vs Al at Cr ${cr}, ${temperature} °C`);
      monotone(sweep, (al) => aged(al, cr, temperature, hours).yield_strength, true, `yield vs Al at Cr ${cr}, ${temperature} °C`);
      monotone(sweep, (al) => aged(al, cr, temperature, hours).elongation, false, `elongation vs Al at Cr ${cr}, ${temperature} °C`);
    }
  }
  // Cr for Fe embrittles when aged in the sigma-phase window
  monotone(range(0, 0.3, 7), (cr) => aged(0.05, cr, 750, 30).elongation, false, 'elongation vs Cr at 750 °C');
  // peak aging: strength peaks at an interior temperature for a fixed time, and at an interior time at 650 °C
  interiorOptimum(range(500, 1000, 11), (t) => aged(0.15, 0.1, t, 10).yield_strength, false, 'yield vs aging temperature');
  interiorOptimum([0.5, 1, 3, 10, 30, 100], (h) => aged(0.15, 0.1, 650, h).yield_strength, false, 'yield vs aging time');
});

test('polymer-membrane: hand-checked values and documented trends', () => {
  // 6FDA-ODA, 30 % crosslinked, no filler, 250 °C: Tg 345, solvent 0.008 σ(-6) = 1.978e-5, densification 0.012 σ(-1.75) = 0.0017766;
  // FFV = 0.155 - 0.0075 - 0.0017766 - 0.0000198 = 0.1457037; P_CO2 = 20 exp(2.35224 (1/0.155 - 1/0.1457037)) = 7.594867,
  // P_CH4 = (1/3) exp(3.11904 (...)) = 0.0923184; plasticization 0.35 e^-3.75 = 0.0082312;
  // CO2 7.594867 * 1.0024694 = 7.613621 Barrer, CH4 0.0923184 * 1.0082312 = 0.0930783, selectivity 81.79806; cost 120 + 300 * 0.3 + 0.05 * 150 = 217.5
  const tight = polymerMembrane.evaluate({ bulky_diamine_fraction: 0, crosslinker_fraction: 0.3, filler_loading: 0, anneal_temperature_c: 250 });
  close(tight.co2_permeability, 7.6136214, 'tight CO2');
  close(tight.co2_ch4_selectivity, 81.798063, 'tight selectivity');
  close(tight.material_cost, 217.5, 'tight cost');
  // 6FDA-DAM with 20 wt% MOF at 250 °C: FFV 0.1999038, matrix CO2 604.6285 * 1.105 = 668.1145, CH4 30.61595 * 1.35 = 41.33154;
  // phi = (0.2/0.95)/(0.2/0.95 + 0.8/1.4) = 0.2692308; Maxwell CO2 840.05 and CH4 46.37; voids 2e-5 * 16 = 3.2e-4
  // CO2 = 840.0135 Barrer, selectivity 18.11355; cost 0.8 * 600 + 160 + 7.5 = 647.5
  const open = polymerMembrane.evaluate({ bulky_diamine_fraction: 1, crosslinker_fraction: 0, filler_loading: 20, anneal_temperature_c: 250 });
  close(open.co2_permeability, 840.01349, 'open CO2');
  close(open.co2_ch4_selectivity, 18.113551, 'open selectivity');
  close(open.material_cost, 647.5, 'open cost');

  const at = (change: Values) =>
    polymerMembrane.evaluate({ bulky_diamine_fraction: 0.5, crosslinker_fraction: 0.1, filler_loading: 10, anneal_temperature_c: 200, ...change });
  for (const w of [0, 10, 30]) {
    for (const temperature of [120, 250, 350]) {
      const here = (change: Values) => at({ filler_loading: w, anneal_temperature_c: temperature, ...change });
      // the Robeson trade-off: free volume buys permeability with selectivity
      monotone(range(0, 1, 11), (b) => here({ bulky_diamine_fraction: b }).co2_permeability, true, `P vs bulky at ${w} wt%, ${temperature} °C`);
      // (with filler, void bypass weighs most on the tightest films, so only the neat polymer is strictly monotone)
      if (w === 0) monotone(range(0, 1, 11), (b) => here({ bulky_diamine_fraction: b }).co2_ch4_selectivity, false, `alpha vs bulky at ${temperature} °C`);
      monotone(range(0, 1, 11), (b) => here({ bulky_diamine_fraction: b }).material_cost, true, `cost vs bulky at ${w} wt%, ${temperature} °C`);
      // crosslinking tightens the matrix and suppresses plasticization
      monotone(range(0, 0.3, 7), (x) => here({ crosslinker_fraction: x }).co2_permeability, false, `P vs crosslinker at ${w} wt%`);
      if (w < 30) monotone(range(0, 0.3, 7), (x) => here({ crosslinker_fraction: x }).co2_ch4_selectivity, true, `alpha vs crosslinker at ${w} wt%`);
    }
  }
  // the filler adds permeability; overloaded, interfacial voids let CH4 through
  monotone(range(0, 30, 7), (w) => at({ filler_loading: w }).co2_permeability, true, 'P vs filler');
  assert.ok(at({ filler_loading: 30 }).co2_ch4_selectivity < 0.8 * at({ filler_loading: 10 }).co2_ch4_selectivity);
  // annealing drives out solvent, then densifies the glass near Tg
  interiorOptimum(range(100, 350, 11), (t) => at({ anneal_temperature_c: t }).co2_permeability, false, 'P vs anneal');
});
