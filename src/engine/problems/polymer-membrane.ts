import { readNumber } from './inputs.js';
import type { DomainSimulator, SimulatorParameter } from './types.js';

/**
 * A glassy 6FDA-polyimide gas-separation membrane for CO2/CH4 (natural-gas or biogas upgrading):
 * a copolyimide of a flexible (ODA) and a bulky, rigid (DAM) diamine, crosslinked with a diol,
 * optionally filled with a metal-organic framework (mixed-matrix membrane), and thermally
 * annealed. Tested with 50:50 CO2/CH4 at 10 bar and 35 °C. Equations, constants and sources:
 * docs/simulators.md. In short, with b the bulky share, x the crosslinker share, w the filler
 * wt%, T the annealing temperature and sigma(z) = 1/(1 + e^-z):
 *   Tg             300 + 95 b + 150 x + 0.8 w °C
 *   free volume    FFV = 0.155 + 0.045 b - 0.025 x - 0.012 sigma((T - Tg + 60)/20) - 0.008 sigma((160 - T)/15)
 *   diffusion      P_i = P_i,ref exp(B_i (1/0.155 - 1/FFV)), B_i = 0.216 d_i^2 (d: kinetic diameter, Å),
 *                  P_ref = 20 Barrer CO2, 20/60 Barrer CH4 (6FDA-ODA)
 *   plasticization psi = 0.35 exp(-x/0.08): P_CO2 x (1 + 0.3 psi), P_CH4 x (1 + psi)
 *   filler         Maxwell model with MOF permeabilities 1500 and 60 Barrer, volume fraction from densities
 *   voids          bypass fraction theta = 2e-5 (w/10)^4 at 1000 Barrer CO2 with Knudsen selectivity
 *   cost           (1 - w/100)(120 + 480 b + 300 x) + 8 w + 0.05 (T - 100) USD/kg
 */

const BULKY: SimulatorParameter = {
  name: 'bulky_diamine_fraction',
  type: 'continuous',
  bounds: [0, 1],
  description: 'share of the bulky, rigid diamine (DAM) in place of the flexible one (ODA); opens free volume',
};
const CROSSLINKER: SimulatorParameter = {
  name: 'crosslinker_fraction',
  type: 'continuous',
  bounds: [0, 0.3],
  description: 'share of crosslinkable (DABA) units crosslinked with a diol; tightens the matrix and suppresses CO2 plasticization',
};
const FILLER: SimulatorParameter = {
  name: 'filler_loading',
  type: 'continuous',
  bounds: [0, 30],
  unit: 'wt%',
  description: 'metal-organic framework filler; adds fast selective paths, leaves non-selective interfacial voids when overloaded',
};
const ANNEAL: SimulatorParameter = {
  name: 'anneal_temperature_c',
  type: 'continuous',
  bounds: [100, 350],
  unit: '°C',
  description: 'final thermal annealing; drives out casting solvent, then densifies the film as it nears Tg',
};

/** Kinetic diameters, Å. */
const DIAMETER = { co2: 3.3, ch4: 3.8 };
/** Free-volume constant per Å^2, from 6FDA-ODA (FFV 0.155, 20 Barrer CO2) to 6FDA-DAM (0.20, ~600). */
const FREE_VOLUME_B = 0.216;
const REFERENCE_FFV = 0.155;
const REFERENCE = { co2: 20, ch4: 20 / 60 };
/** Pure MOF filler permeabilities, Barrer, and densities of filler and polymer, g/cm3. */
const FILLER_PERMEABILITY = { co2: 1500, ch4: 60 };
const FILLER_DENSITY = 0.95;
const POLYMER_DENSITY = 1.4;
/** Permeability of an interfacial void, Barrer CO2, and the Knudsen CO2/CH4 selectivity sqrt(16/44). */
const VOID_CO2 = 1000;
const KNUDSEN = Math.sqrt(16.04 / 44.01);

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** Maxwell's effective permeability of a dispersed phase (volume fraction phi) in a continuous one. */
function maxwell(continuous: number, dispersed: number, phi: number): number {
  const diff = continuous - dispersed;
  return (continuous * (dispersed + 2 * continuous - 2 * phi * diff)) / (dispersed + 2 * continuous + phi * diff);
}

function evaluate(values: Readonly<Record<string, number | string>>): Record<string, number> {
  const name = 'polymer-membrane';
  const b = readNumber(name, values, BULKY);
  const x = readNumber(name, values, CROSSLINKER);
  const w = readNumber(name, values, FILLER);
  const temperature = readNumber(name, values, ANNEAL);

  const tg = 300 + 95 * b + 150 * x + 0.8 * w;
  // residual casting solvent fills free volume below ~160 °C; near Tg the glass relaxes and densifies
  const solvent = 0.008 * sigmoid((160 - temperature) / 15);
  const densification = 0.012 * sigmoid((temperature - tg + 60) / 20);
  const ffv = REFERENCE_FFV + 0.045 * b - 0.025 * x - densification - solvent;

  // larger molecules need larger free-volume holes: diffusivity selectivity falls as FFV opens
  const polymer = (gas: 'co2' | 'ch4'): number => REFERENCE[gas] * Math.exp(FREE_VOLUME_B * DIAMETER[gas] ** 2 * (1 / REFERENCE_FFV - 1 / ffv));
  // sorbed CO2 swells uncrosslinked chains in the mixed-gas test, letting CH4 through
  const plasticization = 0.35 * Math.exp(-x / 0.08);
  const matrix = { co2: polymer('co2') * (1 + 0.3 * plasticization), ch4: polymer('ch4') * (1 + plasticization) };

  const massFraction = w / 100;
  const phi = massFraction / FILLER_DENSITY / (massFraction / FILLER_DENSITY + (1 - massFraction) / POLYMER_DENSITY);
  const voids = 2e-5 * (w / 10) ** 4;
  const effective = (gas: 'co2' | 'ch4', bypass: number): number => (1 - voids) * maxwell(matrix[gas], FILLER_PERMEABILITY[gas], phi) + voids * bypass;
  const co2 = effective('co2', VOID_CO2);
  const ch4 = effective('ch4', VOID_CO2 / KNUDSEN);

  return {
    co2_permeability: co2,
    co2_ch4_selectivity: co2 / ch4,
    material_cost: (1 - massFraction) * (120 + 480 * b + 300 * x) + 8 * w + 0.05 * (temperature - 100),
  };
}

export const polymerMembrane: DomainSimulator = {
  name: 'polymer-membrane',
  domain: 'polymers',
  description:
    'Glassy 6FDA-polyimide CO2/CH4 membrane, optionally mixed-matrix: bulky monomers open free volume and trade selectivity for permeability along the Robeson bound, crosslinking resists plasticization, MOF filler helps until interfacial voids open.',
  parameters: [BULKY, CROSSLINKER, FILLER, ANNEAL],
  objectives: [
    {
      name: 'co2_permeability',
      direction: 'maximize',
      unit: 'Barrer',
      range: [0, Infinity],
      description: 'CO2 permeability in 50:50 CO2/CH4 at 10 bar feed and 35 °C',
    },
    {
      name: 'co2_ch4_selectivity',
      direction: 'maximize',
      unit: 'dimensionless',
      range: [0, Infinity],
      description: 'mixed-gas CO2/CH4 permeability ratio under the same conditions',
    },
    {
      name: 'material_cost',
      direction: 'minimize',
      unit: 'USD/kg',
      range: [0, Infinity],
      description: 'monomers, crosslinker and filler per kg of selective-layer material, plus annealing',
    },
  ],
  evaluate,
};
