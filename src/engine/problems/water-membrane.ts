import { readChoice, readNumber } from './inputs.js';
import type { DomainSimulator, SimulatorParameter } from './types.js';

/**
 * A thin-film-composite polyamide desalination membrane made by interfacial polymerization of an
 * amine (MPD for reverse osmosis, piperazine for nanofiltration) with trimesoyl chloride, with an
 * optional nanofiller in the selective layer (thin-film nanocomposite). Equations, constants and
 * sources: docs/simulators.md. In short:
 *   crosslinking  chi = c/(c + 0.8) * (0.6 + 0.4 sigmoid((T - 65)/10))
 *   free volume   v = 1 - 0.7 chi
 *   permeances    A = A0 (v/0.6)^3 (1 + 1.2 phi/(phi + 0.1)) (100/L) damage(T),
 *                 B = B0 (v/0.6)^6 (100/L)   (so A/B falls as A rises: the trade-off)
 *   test          dP = 15.5 bar, 2000 mg/L NaCl (osmotic 1.6 bar), film coefficient k = 100 L m-2 h-1
 *   rejection     film theory: (1 - R)/R = (B/J) exp(J/k) with J = A (dP - dpi),
 *                 then a defect bypass fraction theta (thin layers, filler agglomeration, over-curing)
 *                 that passes feed unrejected: R_obs = (1 - theta) R, A_obs = A/(1 - theta).
 */

const MONOMER: SimulatorParameter = {
  name: 'amine_monomer',
  type: 'categorical',
  values: ['MPD', 'PIP'],
  description: 'amine monomer: MPD (m-phenylenediamine, fully aromatic RO layer) or PIP (piperazine, semi-aromatic NF layer)',
};
const CONCENTRATION: SimulatorParameter = {
  name: 'monomer_concentration',
  type: 'continuous',
  bounds: [0.5, 4],
  unit: 'wt%',
  description: 'amine concentration in the aqueous phase; more amine gives a more crosslinked layer',
};
const CURE: SimulatorParameter = {
  name: 'cure_temperature_c',
  type: 'continuous',
  bounds: [40, 120],
  unit: '°C',
  description: 'post-polymerization curing temperature; completes crosslinking, but above ~100 °C collapses support pores',
};
const THICKNESS: SimulatorParameter = {
  name: 'active_layer_thickness_nm',
  type: 'continuous',
  bounds: [30, 300],
  unit: 'nm',
  description: 'thickness of the polyamide selective layer; thinner passes more water but has more defects',
};
const FILLER: SimulatorParameter = {
  name: 'filler_loading',
  type: 'continuous',
  bounds: [0, 0.4],
  unit: 'w/v%',
  description: 'nanofiller (e.g. zeolite) loading in the organic phase; opens water channels, agglomerates when high',
};

/** Water and salt permeance of a 100 nm layer at free volume 0.6, L m-2 h-1 bar-1 and L m-2 h-1. */
const CHEMISTRY: Record<string, { a0: number; b0: number }> = {
  MPD: { a0: 2.0, b0: 0.15 },
  PIP: { a0: 12, b0: 60 },
};

const PRESSURE_BAR = 15.5;
const OSMOTIC_BAR = 1.6;
const MASS_TRANSFER_LMH = 100;

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

function evaluate(values: Readonly<Record<string, number | string>>): Record<string, number> {
  const name = 'water-membrane';
  const chemistry = CHEMISTRY[readChoice(name, values, MONOMER)];
  const c = readNumber(name, values, CONCENTRATION);
  const temperature = readNumber(name, values, CURE);
  const thickness = readNumber(name, values, THICKNESS);
  const filler = readNumber(name, values, FILLER);

  const crosslinking = (c / (c + 0.8)) * (0.6 + 0.4 * sigmoid((temperature - 65) / 10));
  const freeVolume = 1 - 0.7 * crosslinking;
  // support pores collapse when curing much above 100 °C, adding hydraulic resistance
  const damage = 1 - 0.35 * sigmoid((temperature - 100) / 6);
  const channels = 1 + (1.2 * filler) / (filler + 0.1);
  const scale = 100 / thickness;
  const permeance = chemistry.a0 * (freeVolume / 0.6) ** 3 * channels * scale * damage;
  const saltPermeance = chemistry.b0 * (freeVolume / 0.6) ** 6 * scale;

  const flux = permeance * (PRESSURE_BAR - OSMOTIC_BAR);
  const passage = (saltPermeance / flux) * Math.exp(flux / MASS_TRANSFER_LMH);
  const rejection = 1 / (1 + passage);

  const thinDefects = 0.04 * Math.exp(-(thickness - 30) / 35);
  const agglomeration = 0.03 * (filler / 0.4) ** 3;
  const cracking = 0.02 * sigmoid((temperature - 105) / 5);
  const intact = (1 - thinDefects) * (1 - agglomeration) * (1 - cracking);

  return {
    water_permeance: permeance / intact,
    salt_rejection: 100 * intact * rejection,
  };
}

export const waterMembrane: DomainSimulator = {
  name: 'water-membrane',
  domain: 'water',
  description:
    'Thin-film-composite polyamide desalination membrane (interfacial polymerization, optional nanofiller): water permeance against NaCl rejection along the permeability-selectivity trade-off.',
  parameters: [MONOMER, CONCENTRATION, CURE, THICKNESS, FILLER],
  objectives: [
    {
      name: 'water_permeance',
      direction: 'maximize',
      unit: 'L m-2 h-1 bar-1',
      range: [0, Infinity],
      description: 'pure-water permeance A measured at 15.5 bar (LMH/bar)',
    },
    {
      name: 'salt_rejection',
      direction: 'maximize',
      unit: '%',
      range: [0, 100],
      description: 'observed NaCl rejection at 15.5 bar with 2000 mg/L NaCl feed',
    },
  ],
  evaluate,
};
