import { readNumber } from './inputs.js';
import type { DomainSimulator, SimulatorParameter } from './types.js';

/**
 * A liquid lithium-ion electrolyte: LiPF6 in a mixture of ethylene carbonate (EC) and ethyl methyl
 * carbonate (EMC) with fluoroethylene carbonate (FEC) and vinylene carbonate (VC) as SEI-forming
 * additives, tested at 25 °C in graphite || NMC532 cells cycled at 1 C to 4.3 V. Equations,
 * constants and sources: docs/simulators.md. In short, with c the salt concentration, x the EC
 * fraction, p and v the FEC and VC wt%:
 *   solvent        eta_s = 0.6 exp(1.3 x) (1 + 0.01 p + 0.02 v) cP
 *   conductivity   kappa = 30.9 c exp(-0.85 c) (x/(x + 0.17)) / eta_s mS/cm, exp(0.85 c) being the
 *                  viscosity rise with salt
 *   solvation      b = (3c/12)^2, the share of solvent bound to Li+ (3 per ion in ~12 mol/L solvent)
 *   window         E_ox = 4.25 + b + 0.1 x + 0.012 p - 0.03 v,  E_red = 0.85 - 0.3 b + 0.015 p + 0.04 v
 *   fade per cycle r = 3e-4 (1 + 2 exp(-x/0.1)) (1 - 0.6 p/(p + 1.5) + 0.004 p^2) (1 - 0.4 v/(v + 0.3) + 0.05 v^2)
 *                      + 2e-4 exp((4.3 - E_ox)/0.08) + 1.5e-4 (8/kappa)^2 + 3e-5 c
 *   retention      100 exp(-500 r) % after 500 cycles
 */

const SALT: SimulatorParameter = {
  name: 'salt_concentration',
  type: 'continuous',
  bounds: [0.5, 2.5],
  unit: 'mol/L',
  description: 'LiPF6 concentration; conductivity peaks near 1.1 M, while more salt binds more solvent and widens the window',
};
const EC: SimulatorParameter = {
  name: 'ec_fraction',
  type: 'continuous',
  bounds: [0.1, 0.6],
  description: 'EC volume share of the EC/EMC solvent; dissociates the salt and builds the graphite SEI, but is viscous',
};
const FEC: SimulatorParameter = {
  name: 'fec_wt',
  type: 'continuous',
  bounds: [0, 10],
  unit: 'wt%',
  description: 'fluoroethylene carbonate additive; a thin LiF-rich SEI, but excess FEC keeps reacting',
};
const VC: SimulatorParameter = {
  name: 'vc_wt',
  type: 'continuous',
  bounds: [0, 3],
  unit: 'wt%',
  description: 'vinylene carbonate additive; a polymeric SEI at small doses, but it oxidises at the cathode and adds impedance',
};

/** Cycles over which capacity retention is reported. */
const CYCLES = 500;
/** Upper cut-off voltage of the test cell, V vs Li/Li+. */
const CUTOFF_V = 4.3;
/** Solvent molarity of an EC/EMC blend and Li+ solvation number, for the bound-solvent share. */
const SOLVENT_MOL_L = 12;
const SOLVATION = 3;

function evaluate(values: Readonly<Record<string, number | string>>): Record<string, number> {
  const name = 'electrolyte-formulation';
  const c = readNumber(name, values, SALT);
  const x = readNumber(name, values, EC);
  const p = readNumber(name, values, FEC);
  const v = readNumber(name, values, VC);

  // Walden: molar conductivity ~ 1/viscosity; EC's dielectric constant frees the ions from pairs
  const solventViscosity = 0.6 * Math.exp(1.3 * x) * (1 + 0.01 * p + 0.02 * v);
  const dissociation = x / (x + 0.17);
  const conductivity = (30.9 * c * Math.exp(-0.85 * c) * dissociation) / solventViscosity;

  // solvent held in Li+ solvation shells is harder to oxidise and to reduce (concentrated electrolytes)
  const bound = ((SOLVATION * c) / SOLVENT_MOL_L) ** 2;
  const oxidation = 4.25 + bound + 0.1 * x + 0.012 * p - 0.03 * v;
  // the additives are reduced first, which is how they build the SEI
  const reduction = 0.85 - 0.3 * bound + 0.015 * p + 0.04 * v;

  const sei = 3e-4 * (1 + 2 * Math.exp(-x / 0.1)) * (1 - (0.6 * p) / (p + 1.5) + 0.004 * p * p) * (1 - (0.4 * v) / (v + 0.3) + 0.05 * v * v);
  const cathode = 2e-4 * Math.exp((CUTOFF_V - oxidation) / 0.08);
  // poor conductivity polarises the cell at 1 C and plates lithium on the graphite
  const polarisation = 1.5e-4 * (8 / conductivity) ** 2;
  const hydrolysis = 3e-5 * c;
  const fade = sei + cathode + polarisation + hydrolysis;

  return {
    ionic_conductivity: conductivity,
    stability_window: oxidation - reduction,
    capacity_retention: 100 * Math.exp(-CYCLES * fade),
  };
}

export const electrolyteFormulation: DomainSimulator = {
  name: 'electrolyte-formulation',
  domain: 'battery',
  description:
    'LiPF6 in EC/EMC with FEC and VC additives: salt concentration trades conductivity against the electrochemical window, EC and the additives build the SEI that sets capacity retention but have sweet spots.',
  parameters: [SALT, EC, FEC, VC],
  objectives: [
    {
      name: 'ionic_conductivity',
      direction: 'maximize',
      unit: 'mS/cm',
      range: [0, Infinity],
      description: 'ionic conductivity at 25 °C',
    },
    {
      name: 'stability_window',
      direction: 'maximize',
      unit: 'V',
      range: [0, Infinity],
      description: 'electrochemical stability window, oxidation minus reduction onset by linear sweep voltammetry',
    },
    {
      name: 'capacity_retention',
      direction: 'maximize',
      unit: '%',
      range: [0, 100],
      description: 'capacity retained after 500 cycles at 1 C in graphite || NMC532 cells, 4.3 V cut-off, 25 °C',
    },
  ],
  evaluate,
};
