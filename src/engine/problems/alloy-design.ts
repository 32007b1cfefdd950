import { readNumber } from './inputs.js';
import type { DomainSimulator, SimulatorParameter } from './types.js';

/**
 * A cobalt-free Al-Cr-Fe-Ni high-entropy (compositionally complex) alloy, homogenised, quenched
 * and aged. Equations, constants and sources: docs/simulators.md. In short, with the atomic
 * fractions normalised to sum 1, sigma(z) = 1/(1 + e^-z), and the Hollomon-Jaffe aging parameter
 * P = T_K (20 + log10 t_h) / 1000:
 *   phases         VEC = 3 a + 6 r + 8 e + 10 n,  BCC/B2 fraction  phi = sigma((7.45 - VEC)/0.2)
 *   size misfit    delta = sqrt(sum x_i (1 - r_i/r_mean)^2)
 *   precipitates   k = 4 a n,  Dsigma_p = 600 k exp(-((P - 19.5)/2.2)^2) MPa
 *   sigma phase    s = 3 r^2 exp(-((T - 750)/100)^2) (1 - exp(-t/10))
 *   recovery       q = sigma((P - 24)/1.5)
 *   yield          ((1 - phi)(150 + 3000 delta) + phi (700 + 4000 delta) + 400 phi (1 - phi)) (1 - 0.15 q)
 *                  + Dsigma_p + 200 s MPa
 *   elongation     ((1 - phi) 55 + 3 phi)(1 - 4 delta)(1 - 0.5 Dsigma_p/(Dsigma_p + 300)) exp(-3 s)(1 + 0.3 q) %
 *   density        sum x_i M_i / sum x_i M_i/rho_i
 */

const AL: SimulatorParameter = {
  name: 'al_frac',
  type: 'continuous',
  bounds: [0, 0.35],
  description: 'aluminium atomic fraction (normalised with cr_frac, fe_frac and ni_frac by their sum); light, strengthens, drives FCC to BCC/B2',
};
const CR: SimulatorParameter = {
  name: 'cr_frac',
  type: 'continuous',
  bounds: [0, 0.4],
  description: 'chromium atomic fraction; BCC former, forms brittle sigma phase on aging at 600-900 °C',
};
const FE: SimulatorParameter = {
  name: 'fe_frac',
  type: 'continuous',
  bounds: [0, 0.5],
  description: 'iron atomic fraction; the cheap base element',
};
const NI: SimulatorParameter = {
  name: 'ni_frac',
  type: 'continuous',
  bounds: [0.05, 0.6],
  description: 'nickel atomic fraction; stabilises ductile FCC and, with Al, forms strengthening precipitates',
};
const AGING_TEMPERATURE: SimulatorParameter = {
  name: 'aging_temperature_c',
  type: 'continuous',
  bounds: [500, 1000],
  unit: '°C',
  description: 'aging temperature after homogenisation and quench',
};
const AGING_TIME: SimulatorParameter = {
  name: 'aging_time_h',
  type: 'continuous',
  bounds: [0.5, 100],
  unit: 'h',
  description: 'aging time (search it on a log scale)',
};

/** Per element: valence electron count, Goldschmidt radius Å, molar mass g/mol, density g/cm3. */
const ELEMENTS = {
  al: { vec: 3, radius: 1.432, molar: 26.982, density: 2.7 },
  cr: { vec: 6, radius: 1.249, molar: 51.996, density: 7.19 },
  fe: { vec: 8, radius: 1.241, molar: 55.845, density: 7.87 },
  ni: { vec: 10, radius: 1.246, molar: 58.693, density: 8.91 },
};
type Element = keyof typeof ELEMENTS;

/** Hollomon-Jaffe parameter of peak aging: about 650 °C for 10 h. */
const PEAK_AGING = 19.5;

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** The atomic fractions normalised by their sum (positive: ni_frac has a positive lower bound). */
function composition(values: Readonly<Record<string, number | string>>): Record<Element, number> {
  const name = 'alloy-design';
  const al = readNumber(name, values, AL);
  const cr = readNumber(name, values, CR);
  const fe = readNumber(name, values, FE);
  const ni = readNumber(name, values, NI);
  const sum = al + cr + fe + ni;
  return { al: al / sum, cr: cr / sum, fe: fe / sum, ni: ni / sum };
}

function evaluate(values: Readonly<Record<string, number | string>>): Record<string, number> {
  const x = composition(values);
  const temperature = readNumber('alloy-design', values, AGING_TEMPERATURE);
  const hours = readNumber('alloy-design', values, AGING_TIME);
  const elements = Object.keys(ELEMENTS) as Element[];
  const sum = (f: (e: Element) => number): number => elements.reduce((total, e) => total + f(e), 0);

  // valence electron concentration sorts FCC (>= 8) from BCC/B2 (< 6.87) solid solutions
  const vec = sum((e) => x[e] * ELEMENTS[e].vec);
  const bcc = sigmoid((7.45 - vec) / 0.2);
  const meanRadius = sum((e) => x[e] * ELEMENTS[e].radius);
  const misfit = Math.sqrt(sum((e) => x[e] * (1 - ELEMENTS[e].radius / meanRadius) ** 2));

  const agingParameter = ((temperature + 273.15) * (20 + Math.log10(hours))) / 1000;
  const precipitation = 600 * 4 * x.al * x.ni * Math.exp(-(((agingParameter - PEAK_AGING) / 2.2) ** 2));
  const sigmaPhase = 3 * x.cr * x.cr * Math.exp(-(((temperature - 750) / 100) ** 2)) * (1 - Math.exp(-hours / 10));
  // long, hot aging recovers dislocations and coarsens grains: softer, more ductile
  const recovery = sigmoid((agingParameter - 24) / 1.5);

  const matrix = (1 - bcc) * (150 + 3000 * misfit) + bcc * (700 + 4000 * misfit) + 400 * bcc * (1 - bcc);
  const strength = matrix * (1 - 0.15 * recovery) + precipitation + 200 * sigmaPhase;
  const elongation =
    ((1 - bcc) * 55 + 3 * bcc) * (1 - 4 * misfit) * (1 - (0.5 * precipitation) / (precipitation + 300)) * Math.exp(-3 * sigmaPhase) * (1 + 0.3 * recovery);
  const density = sum((e) => x[e] * ELEMENTS[e].molar) / sum((e) => (x[e] * ELEMENTS[e].molar) / ELEMENTS[e].density);

  return {
    yield_strength: strength,
    elongation,
    density,
  };
}

export const alloyDesign: DomainSimulator = {
  name: 'alloy-design',
  domain: 'alloys',
  description:
    'Co-free Al-Cr-Fe-Ni high-entropy alloy: aluminium lowers density and turns ductile FCC into strong but brittle BCC/B2, aging adds precipitates (and sigma phase in Cr-rich alloys) at the cost of elongation.',
  parameters: [AL, CR, FE, NI, AGING_TEMPERATURE, AGING_TIME],
  objectives: [
    {
      name: 'yield_strength',
      direction: 'maximize',
      unit: 'MPa',
      range: [0, Infinity],
      description: '0.2 % offset yield strength in tension at room temperature',
    },
    {
      name: 'elongation',
      direction: 'maximize',
      unit: '%',
      range: [0, 100],
      description: 'tensile elongation to fracture at room temperature',
    },
    {
      name: 'density',
      direction: 'minimize',
      unit: 'g/cm3',
      range: [0, Infinity],
      description: "density from the rule of mixtures of the elements' atomic volumes",
    },
  ],
  constraints: ['al_frac + cr_frac + fe_frac + ni_frac == 1'],
  evaluate,
};
