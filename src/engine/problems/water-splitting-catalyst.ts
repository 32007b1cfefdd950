import { readNumber } from './inputs.js';
import type { DomainSimulator, SimulatorParameter } from './types.js';

/**
 * A Ni-Fe(-Co) oxyhydroxide oxygen-evolution electrocatalyst for alkaline water electrolysis,
 * drop-cast or electrodeposited on an inert substrate and annealed, tested in 1 M KOH at
 * 10 mA cm-2 (geometric). Equations, constants and sources: docs/simulators.md. In short, with
 * sigma(z) = 1/(1 + e^-z):
 *   conductivity   s = (1 + 2c)(1 + 3f)/(1 + 15f^2)        (a little Fe and Co conduct, FeOOH does not)
 *   surface area   S = 0.3 + 0.7 sigma((300 - T)/45)       (amorphous films keep their sites)
 *   sites          A = S * 0.4 s (1 - exp(-m/(0.4 s))) / 0.1  (only the outer film is reached)
 *   Tafel slope    b = 38 + 42 exp(-f/0.07) + 12 (1 - S) + 6 m/s  mV/dec
 *   overpotential  eta = eta1 + b log10(10/A) + 8 m/s,
 *                  eta1 = 330 - 90 f/(f + 0.06) + 250 f^2 - 20 c/(c + 0.1) + 150 c^2 mV
 *   durability     200 h (0.25 + sigma((T - 300)/50)) (1 - 0.5 sigma((T - 450)/20))
 *                  exp(-(f/0.4)^2) (1 + 1.5c) (m/(m + 0.1)) / (1 + m^2)
 */

const FE: SimulatorParameter = {
  name: 'fe_fraction',
  type: 'continuous',
  bounds: [0, 0.6],
  description: 'Fe share of the metals, Fe/(Ni + Fe + Co); Fe sites are the most active near 20-25 %, then FeOOH segregates',
};
const ANNEAL: SimulatorParameter = {
  name: 'anneal_temperature_c',
  type: 'continuous',
  bounds: [100, 500],
  unit: '°C',
  description: 'post-deposition annealing temperature; crystallises and anchors the film at the cost of active surface',
};
const LOADING: SimulatorParameter = {
  name: 'loading_mg_cm2',
  type: 'continuous',
  bounds: [0.05, 2],
  unit: 'mg/cm2',
  description: 'catalyst mass per geometric area (search it on a log scale); thick films are only partly reached and peel',
};
const DOPANT: SimulatorParameter = {
  name: 'co_fraction',
  type: 'continuous',
  bounds: [0, 0.3],
  description: 'Co dopant share of the metals; raises conductivity and robustness, lowers the overpotential up to ~13 %',
};

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** Current density at which the overpotential is reported, mA/cm2 (the solar-fuels benchmark). */
const BENCHMARK_MA_CM2 = 10;
/** Loading, mg/cm2, of a fully reached amorphous film that defines one unit of active sites. */
const UNIT_SITES_MG_CM2 = 0.1;

function evaluate(values: Readonly<Record<string, number | string>>): Record<string, number> {
  const name = 'water-splitting-catalyst';
  const f = readNumber(name, values, FE);
  const temperature = readNumber(name, values, ANNEAL);
  const m = readNumber(name, values, LOADING);
  const c = readNumber(name, values, DOPANT);

  // Fe doping makes NiOOH more conductive, but Fe-rich films segregate insulating FeOOH
  const conductivity = ((1 + 2 * c) * (1 + 3 * f)) / (1 + 15 * f * f);
  const surface = 0.3 + 0.7 * sigmoid((300 - temperature) / 45);
  // electrons and electrolyte reach only a limited depth of a poorly conducting film
  const reach = 0.4 * conductivity;
  const sites = (surface * reach * (1 - Math.exp(-m / reach))) / UNIT_SITES_MG_CM2;

  // Fe incorporation switches the rate-limiting step (lower slope); crystalline and thick films
  // add transport limitations that show up as an apparent rise of the slope
  const tafel = 38 + 42 * Math.exp(-f / 0.07) + 12 * (1 - surface) + (6 * m) / conductivity;
  // a little Co helps; more forms a separate, less active CoOOH phase
  const onset = 330 - (90 * f) / (f + 0.06) + 250 * f * f - (20 * c) / (c + 0.1) + 150 * c * c;
  const filmDrop = (8 * m) / conductivity;
  const overpotential = onset + tafel * Math.log10(BENCHMARK_MA_CM2 / sites) + filmDrop;

  const crystallinity = 0.25 + sigmoid((temperature - 300) / 50);
  // above ~450 °C the substrate oxidises under the film and adhesion fails
  const adhesion = 1 - 0.5 * sigmoid((temperature - 450) / 20);
  const ironRetention = Math.exp(-((f / 0.4) ** 2));
  // thin films run out of sites as they corrode; thick ones crack and peel under gas evolution
  const film = m / (m + 0.1) / (1 + m * m);
  const durability = 200 * crystallinity * adhesion * ironRetention * (1 + 1.5 * c) * film;

  return {
    overpotential,
    tafel_slope: tafel,
    durability_hours: durability,
  };
}

export const waterSplittingCatalyst: DomainSimulator = {
  name: 'water-splitting-catalyst',
  domain: 'water',
  description:
    'Ni-Fe(-Co) oxyhydroxide oxygen-evolution catalyst in 1 M KOH: Fe and low annealing temperatures make it active, while Fe leaching and weakly anchored films cut its durability; loading has a sweet spot.',
  parameters: [FE, ANNEAL, LOADING, DOPANT],
  objectives: [
    {
      name: 'overpotential',
      direction: 'minimize',
      unit: 'mV',
      range: [0, Infinity],
      description: 'oxygen-evolution overpotential at 10 mA/cm2 (geometric) in 1 M KOH, iR-corrected for the electrolyte only',
    },
    {
      name: 'tafel_slope',
      direction: 'minimize',
      unit: 'mV/dec',
      range: [0, Infinity],
      description: 'apparent Tafel slope around 10 mA/cm2',
    },
    {
      name: 'durability_hours',
      direction: 'maximize',
      unit: 'h',
      range: [0, Infinity],
      description: 'hours at 10 mA/cm2 until the overpotential has risen by 30 mV',
    },
  ],
  evaluate,
};
