import { RE_FRONTS } from './re-fronts.js';
import { realWorldProblem, violation } from './re-common.js';

/** The four- and six-objective RE problems (Tanabe & Ishibuchi 2020, supplementary section S1). */

/** RE41, car side impact (Jain & Deb 2014): weight, door velocity, B-pillar velocity, violation of 10 constraints. */
export const re41 = realWorldProblem({
  ...RE_FRONTS.re41,
  name: 're41',
  description: 'RE41 car side impact (Tanabe & Ishibuchi 2020): weight, two velocities and constraint violation, 7 continuous variables.',
  bounds: [
    [0.5, 1.5],
    [0.45, 1.35],
    [0.5, 1.5],
    [0.5, 1.5],
    [0.875, 2.625],
    [0.4, 1.2],
    [0.4, 1.2],
  ],
  objectives: 4,
  evaluate([x1, x2, x3, x4, x5, x6, x7]) {
    const f1 = 1.98 + 4.9 * x1 + 6.67 * x2 + 6.98 * x3 + 4.01 * x4 + 1.78 * x5 + 0.00001 * x6 + 2.73 * x7;
    const f2 = 4.72 - 0.5 * x4 - 0.19 * x2 * x3;
    const vmbp = 10.58 - 0.674 * x1 * x2 - 0.67275 * x2;
    const vfd = 16.45 - 0.489 * x3 * x7 - 0.843 * x5 * x6;
    // the terms stand as in the reference code (two x1 and two x3 terms in the third constraint)
    const g = [
      1 - (1.16 - 0.3717 * x2 * x4 - 0.0092928 * x3),
      0.32 - (0.261 - 0.0159 * x1 * x2 - 0.06486 * x1 - 0.019 * x2 * x7 + 0.0144 * x3 * x5 + 0.0154464 * x6),
      0.32 -
        (0.214 +
          0.00817 * x5 -
          0.045195 * x1 -
          0.0135168 * x1 +
          0.03099 * x2 * x6 -
          0.018 * x2 * x7 +
          0.007176 * x3 +
          0.023232 * x3 -
          0.00364 * x5 * x6 -
          0.018 * x2 * x2),
      0.32 - (0.74 - 0.61 * x2 - 0.031296 * x3 - 0.031872 * x7 + 0.227 * x2 * x2),
      32 - (28.98 + 3.818 * x3 - 4.2 * x1 * x2 + 1.27296 * x6 - 2.68065 * x7),
      32 - (33.86 + 2.95 * x3 - 5.057 * x1 * x2 - 3.795 * x2 - 3.4431 * x7 + 1.45728),
      32 - (46.36 - 9.9 * x2 - 4.4505 * x1),
      4 - f2,
      9.9 - vmbp,
      15.7 - vfd,
    ];
    return Float64Array.of(f1, f2, 0.5 * (vmbp + vfd), violation(...g));
  },
});

/** RE42, conceptual marine design (Parsons & Scott 2004): transport cost, light ship weight, annual cargo (negated), violation. */
export const re42 = realWorldProblem({
  ...RE_FRONTS.re42,
  name: 're42',
  description: 'RE42 conceptual marine design (Tanabe & Ishibuchi 2020): cost, weight, cargo (negated) and constraint violation, 6 continuous variables.',
  bounds: [
    [150, 274.32],
    [20, 32.31],
    [13, 25],
    [10, 11.71],
    [14, 18],
    [0.63, 0.75],
  ],
  objectives: 4,
  evaluate([L, B, D, T, Vk, CB]) {
    const displacement = 1.025 * L * B * T * CB;
    const Fn = (0.5144 * Vk) / Math.sqrt(9.8065 * L);
    const a = 4977.06 * CB * CB - 8105.61 * CB + 4456.51;
    const b = -10847.2 * CB * CB + 12817 * CB - 6960.32;
    const power = (displacement ** (2 / 3) * Vk ** 3) / (a + b * Fn);
    const outfit = L ** 0.8 * B ** 0.6 * D ** 0.3 * CB ** 0.1;
    const steel = 0.034 * L ** 1.7 * B ** 0.7 * D ** 0.4 * CB ** 0.5;
    const machinery = 0.17 * power ** 0.9;
    const lightShip = steel + outfit + machinery;
    const shipCost = 1.3 * (2000 * steel ** 0.85 + 3500 * outfit + 2400 * power ** 0.8);
    const DWT = displacement - lightShip;
    const seaDays = (5000 / 24) * Vk;
    const dailyConsumption = (0.19 * power * 24) / 1000 + 0.2;
    const fuelCost = 1.05 * dailyConsumption * seaDays * 100;
    const portCost = 6.3 * DWT ** 0.8;
    const cargoDWT = DWT - dailyConsumption * (seaDays + 5) - 2 * DWT ** 0.5;
    const portDays = 2 * (cargoDWT / 8000 + 0.5);
    const tripsPerYear = 350 / (seaDays + portDays);
    const annualCosts = 0.2 * shipCost + 40_000 * DWT ** 0.3 + (fuelCost + portCost) * tripsPerYear;
    const annualCargo = cargoDWT * tripsPerYear;
    const KB = 0.53 * T;
    const BMT = ((0.085 * CB - 0.002) * B * B) / (T * CB);
    const KG = 1 + 0.52 * D;
    return Float64Array.of(
      annualCosts / annualCargo,
      lightShip,
      -annualCargo,
      violation(L / B - 6, 15 - L / D, 19 - L / T, 0.45 * DWT ** 0.31 - T, 0.7 * D + 0.7 - T, 500_000 - DWT, DWT - 3000, 0.32 - Fn, KB + BMT - KG - 0.07 * B),
    );
  },
});

/** RE61, water resource planning (Ray et al. 2001): five costs and the violation of seven constraints. */
export const re61 = realWorldProblem({
  ...RE_FRONTS.re61,
  name: 're61',
  description: 'RE61 water resource planning (Tanabe & Ishibuchi 2020): five costs and constraint violation, 3 continuous variables.',
  bounds: [
    [0.01, 0.45],
    [0.01, 0.1],
    [0.01, 0.1],
  ],
  objectives: 6,
  evaluate([x1, x2, x3]) {
    const p = x1 * x2;
    return Float64Array.of(
      106_780.37 * (x2 + x3) + 61_704.67,
      3000 * x1,
      (305_700 * 2289 * x2) / (0.06 * 2289) ** 0.65,
      250 * 2289 * Math.exp(-39.75 * x2 + 9.9 * x3 + 2.74),
      25 * (1.39 / p + 4940 * x3 - 80),
      violation(
        1 - (0.00139 / p + 4.94 * x3 - 0.08),
        1 - (0.000306 / p + 1.082 * x3 - 0.0986),
        50_000 - (12.307 / p + 49_408.24 * x3 + 4051.02),
        16_000 - (2.098 / p + 8046.33 * x3 - 696.71),
        10_000 - (2.138 / p + 7883.39 * x3 - 705.04),
        2000 - (0.417 * p + 1721.26 * x3 - 136.54),
        550 - (0.164 / p + 631.13 * x3 - 54.48),
      ),
    );
  },
});
