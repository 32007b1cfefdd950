import { readNumber } from './inputs.js';
import type { DomainSimulator, SimulatorParameter } from './types.js';

/**
 * A single-junction mixed-halide lead perovskite solar cell, FA0.83Cs0.17Pb(I1-xBrx)3 in an n-i-p
 * stack, with a passivating additive (e.g. KI or a large organic ammonium halide) in the
 * precursor. Equations, constants and sources: docs/simulators.md. In short, with
 * sigma(z) = 1/(1 + e^-z), T the annealing temperature, t the thickness and a the additive mol%:
 *   bandgap        Eg = 1.57 + 0.39 x + 0.33 x^2 eV
 *   crystallinity  chi = sigma((T - 95)/10),  decomposition to PbI2  delta = sigma((T - 155)/7)
 *   passivation    p = a/(a + 1);  halide segregation  s = 0.04 softplus((x - 0.2)/0.04)
 *   Jsc            0.95 (25.6 - 28 (Eg - 1.57)) (1 - exp(-t/120)) (L/t)(1 - exp(-t/L)) mA/cm2,
 *                  L = 500 + 2000 chi (1 - 0.6 delta)(1 + 0.4 p) nm
 *   Voc            Eg - 0.36 - (0.10 + 0.04 ln(1 + 3(1 - chi) + 4 delta) - 0.05 p) - 0.5 s V
 *   FF             0.84 - 0.004 a^2 - 0.03 t/1000 - 0.06 (1 - chi) - 0.05 delta
 *   PCE            Jsc Voc FF (% under 100 mW/cm2 AM1.5G)
 *   T80            800 h (1 + 3x)/(1 + 60 s^2) chi (1 + 0.6 (T - 70)/100)(1 - 0.85 delta)
 *                  (1 + 1.5 a/(a + 1.5)) (0.7 + 0.3 (1 - exp(-t/400)))
 *   hysteresis     (0.03 + 0.2 (1 - chi) + 0.1 delta + 0.3 s)/(1 + 3p)
 */

const BROMIDE: SimulatorParameter = {
  name: 'br_fraction',
  type: 'continuous',
  bounds: [0, 0.5],
  description: 'Br share of the halides, x in Pb(I1-xBrx)3; widens the bandgap, stabilises the lattice, segregates under light above ~0.2',
};
const ANNEAL: SimulatorParameter = {
  name: 'anneal_temperature_c',
  type: 'continuous',
  bounds: [70, 170],
  unit: '°C',
  description: 'film annealing temperature; crystallises and grows grains, decomposes the film to PbI2 above ~150 °C',
};
const THICKNESS: SimulatorParameter = {
  name: 'thickness_nm',
  type: 'continuous',
  bounds: [200, 1000],
  unit: 'nm',
  description: 'absorber thickness; thicker absorbs more light but collects carriers less well',
};
const ADDITIVE: SimulatorParameter = {
  name: 'additive_fraction',
  type: 'continuous',
  bounds: [0, 5],
  unit: 'mol%',
  description: 'passivating additive relative to Pb; passivates traps and blocks ion migration, forms insulating phases when in excess',
};

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));
const softplus = (z: number): number => (z > 30 ? z : Math.log1p(Math.exp(z)));

/** Shockley-Queisser-like AM1.5G short-circuit current at the iodide bandgap and its fall per eV. */
const JSC_IODIDE = 25.6;
const JSC_PER_EV = 28;
/** Optical loss (reflection, parasitic absorption in the contacts). */
const OPTICS = 0.95;
/** Mean absorption length across the spectrum above the gap, nm. */
const ABSORPTION_NM = 120;

function evaluate(values: Readonly<Record<string, number | string>>): Record<string, number> {
  const name = 'perovskite-solar-cell';
  const x = readNumber(name, values, BROMIDE);
  const temperature = readNumber(name, values, ANNEAL);
  const t = readNumber(name, values, THICKNESS);
  const a = readNumber(name, values, ADDITIVE);

  const gap = 1.57 + 0.39 * x + 0.33 * x * x;
  const crystallinity = sigmoid((temperature - 95) / 10);
  const decomposition = sigmoid((temperature - 155) / 7);
  const passivation = a / (a + 1);
  // light-induced segregation into I-rich domains pins the voltage once Br exceeds ~20 % (Hoke effect)
  const segregation = 0.04 * softplus((x - 0.2) / 0.04);

  const diffusion = 500 + 2000 * crystallinity * (1 - 0.6 * decomposition) * (1 + 0.4 * passivation);
  const absorbed = 1 - Math.exp(-t / ABSORPTION_NM);
  const collected = (diffusion / t) * (1 - Math.exp(-t / diffusion));
  const jsc = OPTICS * (JSC_IODIDE - JSC_PER_EV * (gap - 1.57)) * absorbed * collected;
  const nonRadiative = 0.1 + 0.04 * Math.log(1 + 3 * (1 - crystallinity) + 4 * decomposition) - 0.05 * passivation;
  const voc = gap - 0.36 - nonRadiative - 0.5 * segregation;
  // excess additive forms insulating low-dimensional phases; thick and poorly crystallised films add series resistance
  const ff = 0.84 - 0.004 * a * a - (0.03 * t) / 1000 - 0.06 * (1 - crystallinity) - 0.05 * decomposition;

  const halide = (1 + 3 * x) / (1 + 60 * segregation * segregation);
  const grains = crystallinity * (1 + (0.6 * (temperature - 70)) / 100) * (1 - 0.85 * decomposition);
  const barrier = 1 + (1.5 * a) / (a + 1.5);
  const encapsulation = 0.7 + 0.3 * (1 - Math.exp(-t / 400));
  const t80 = 800 * halide * grains * barrier * encapsulation;

  // mobile halide vacancies and unpassivated interface traps make the J-V scan direction matter
  const hysteresis = (0.03 + 0.2 * (1 - crystallinity) + 0.1 * decomposition + 0.3 * segregation) / (1 + 3 * passivation);

  return {
    efficiency: jsc * voc * ff,
    t80_hours: t80,
    hysteresis_index: hysteresis,
  };
}

export const perovskiteSolarCell: DomainSimulator = {
  name: 'perovskite-solar-cell',
  domain: 'energy',
  description:
    'Mixed-halide FA/Cs lead perovskite solar cell: bromide and a passivating additive buy stability at some cost in efficiency, annealing and absorber thickness have sweet spots.',
  parameters: [BROMIDE, ANNEAL, THICKNESS, ADDITIVE],
  objectives: [
    {
      name: 'efficiency',
      direction: 'maximize',
      unit: '%',
      range: [0, 33.7],
      description: 'power-conversion efficiency under AM1.5G, 100 mW/cm2, reverse scan',
    },
    {
      name: 't80_hours',
      direction: 'maximize',
      unit: 'h',
      range: [0, Infinity],
      description: 'hours under continuous 1-sun illumination at 65 °C until the efficiency falls to 80 % of its initial value (ISOS-L-2)',
    },
    {
      name: 'hysteresis_index',
      direction: 'minimize',
      unit: 'dimensionless',
      range: [0, 1],
      description: '(PCE reverse - PCE forward)/PCE reverse of the J-V scans',
    },
  ],
  evaluate,
};
