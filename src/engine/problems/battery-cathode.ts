import { readNumber } from './inputs.js';
import type { DomainSimulator, SimulatorParameter } from './types.js';

/**
 * A layered Li[Ni_x Mn_y Co_z]O2 (NMC) cathode active material: composition, calcination
 * temperature and secondary-particle size against specific energy, cycle life and material cost.
 * Equations, constants and sources: docs/simulators.md. In short, with the composition normalised
 * to sum 1 and dT = (T - T_opt(x)) / 100 K, T_opt = 990 - 290 x °C:
 *   cation mixing   xi = 0.01 + 0.05 x^3 / (1 + 4z) * exp(0.8 dT)
 *   capacity        Q = (100 + 120 x + 60 z) mAh/g * (1 - 0.12 (1 - exp(-dT^2 / 1.44))) * (1 - 2 xi) * tanh(d/25)/(d/25)
 *   voltage         V = 3.87 - 0.12 x V;   specific energy = Q V (Wh/kg of active material)
 *   fade per cycle  r = 1e-4 exp(2 (x - 1/3)) (5/3)/(1 + 2y) (1 + 0.8 dT^2) (1 + 10 (xi - 0.01)) p(d)/p_111(10 µm),
 *                   p(d) = 0.55 + 0.25 (5/d)^0.6 + 0.4 x^2 (d/12)^2
 *   cycle life      0.2 / r cycles to 80 % capacity
 *   cost            metal contents at fixed prices + processing (heat, oxygen for Ni-rich, fine particles)
 */

const NI: SimulatorParameter = {
  name: 'ni_frac',
  type: 'continuous',
  bounds: [0, 1],
  description: 'nickel share of the transition metals (normalised with mn_frac and co_frac by their sum)',
};
const MN: SimulatorParameter = {
  name: 'mn_frac',
  type: 'continuous',
  bounds: [0, 1],
  description: 'manganese share of the transition metals; electrochemically inactive Mn4+ stabilises the lattice',
};
const CO: SimulatorParameter = {
  name: 'co_frac',
  type: 'continuous',
  bounds: [0, 1],
  description: 'cobalt share of the transition metals; suppresses Li/Ni mixing, the costliest metal',
};
const CALCINATION: SimulatorParameter = {
  name: 'calcination_temperature_c',
  type: 'continuous',
  bounds: [650, 1000],
  unit: '°C',
  description: 'final calcination temperature; the best value falls as the nickel share rises',
};
const PARTICLE: SimulatorParameter = {
  name: 'particle_size_um',
  type: 'continuous',
  bounds: [1, 30],
  unit: 'µm',
  description: 'secondary particle size D50 (search it on a log scale)',
};

/** Molar masses, g/mol. */
const MOLAR = { li: 6.941, ni: 58.693, mn: 54.938, co: 58.933, o: 15.999 };
/** Price per kg of contained element, USD (illustrative, of the order of recent market prices). */
const PRICE = { li: 70, ni: 20, mn: 3, co: 35 };

/** The particle factor of NMC111 at 10 µm, so that composition gives NMC111 about 2000 cycles there. */
const PARTICLE_REFERENCE = 0.55 + 0.25 * 0.5 ** 0.6 + 0.4 * (1 / 9) * (10 / 12) ** 2;

const softplus = (z: number): number => (z > 30 ? z : Math.log1p(Math.exp(z)));

/** The composition normalised by its sum; throws when the shares are all zero. */
function composition(values: Readonly<Record<string, number | string>>): { x: number; y: number; z: number } {
  const ni = readNumber('battery-cathode', values, NI);
  const mn = readNumber('battery-cathode', values, MN);
  const co = readNumber('battery-cathode', values, CO);
  const sum = ni + mn + co;
  if (!(sum > 0)) throw new Error('battery-cathode: ni_frac + mn_frac + co_frac is 0; at least one share must be positive.');
  return { x: ni / sum, y: mn / sum, z: co / sum };
}

function evaluate(values: Readonly<Record<string, number | string>>): Record<string, number> {
  const { x, y, z } = composition(values);
  const temperature = readNumber('battery-cathode', values, CALCINATION);
  const d = readNumber('battery-cathode', values, PARTICLE);

  // Ni-rich layered oxides lose lithium and disorder at lower temperatures than NMC111
  const optimum = 990 - 290 * x;
  const dT = (temperature - optimum) / 100;
  const mixing = 0.01 + ((0.05 * x ** 3) / (1 + 4 * z)) * Math.exp(0.8 * dT);
  const crystallinity = 1 - 0.12 * (1 - Math.exp(-(dT * dT) / 1.44));
  const psi = d / 25;
  const utilisation = Math.tanh(psi) / psi;
  const capacity = (100 + 120 * x + 60 * z) * crystallinity * (1 - 2 * mixing) * utilisation;
  const voltage = 3.87 - 0.12 * x;

  const chemistry = Math.exp(2.0 * (x - 1 / 3)) * ((1 + 2 / 3) / (1 + 2 * y));
  const processing = 1 + 0.8 * dT * dT;
  const disorder = 1 + 10 * (mixing - 0.01);
  // small particles expose more surface to the electrolyte; large Ni-rich ones crack
  const particles = (0.55 + 0.25 * (5 / d) ** 0.6 + 0.4 * x * x * (d / 12) ** 2) / PARTICLE_REFERENCE;
  const fade = 1e-4 * chemistry * processing * disorder * particles;

  const molar = MOLAR.li + x * MOLAR.ni + y * MOLAR.mn + z * MOLAR.co + 2 * MOLAR.o;
  const metals = (MOLAR.li * PRICE.li + x * MOLAR.ni * PRICE.ni + y * MOLAR.mn * PRICE.mn + z * MOLAR.co * PRICE.co) / molar;
  const process = 4 + 0.006 * softplus(temperature - 600) + 2 * x * x + 2 / d;

  return {
    specific_energy: capacity * voltage,
    cycle_life: 0.2 / fade,
    material_cost: metals + process,
  };
}

export const batteryCathode: DomainSimulator = {
  name: 'battery-cathode',
  domain: 'battery',
  description:
    'Layered Li[NixMnyCoz]O2 cathode: nickel raises capacity but shortens cycle life, cobalt raises cost, manganese stabilises; calcination temperature and particle size have sweet spots.',
  parameters: [NI, MN, CO, CALCINATION, PARTICLE],
  objectives: [
    {
      name: 'specific_energy',
      direction: 'maximize',
      unit: 'Wh/kg',
      range: [0, Infinity],
      description: 'discharge energy per kg of cathode active material at 0.1 C, 2.8-4.3 V vs Li',
    },
    {
      name: 'cycle_life',
      direction: 'maximize',
      unit: 'cycles',
      range: [0, Infinity],
      description: 'cycles until the capacity falls to 80 % of the initial value',
    },
    {
      name: 'material_cost',
      direction: 'minimize',
      unit: 'USD/kg',
      range: [0, Infinity],
      description: 'metal content at fixed prices plus processing, per kg of active material',
    },
  ],
  constraints: ['ni_frac + mn_frac + co_frac == 1'],
  evaluate,
};
