import { RE_FRONTS } from './re-fronts.js';
import { nearest, realWorldProblem, violation } from './re-common.js';

/**
 * The two-objective RE problems (Tanabe & Ishibuchi 2020, supplementary section S1). The second
 * objective of RE22-RE25 is the sum of the original constraints' violations.
 */

/** RE21, four-bar truss (Cheng & Li 1999): structural volume and joint displacement; F = 10 kN, sigma = 10 kN/cm^2, E = 2e5, L = 200 cm. */
export const re21 = realWorldProblem({
  ...RE_FRONTS.re21,
  name: 're21',
  description: 'RE21 four-bar truss (Tanabe & Ishibuchi 2020): volume and displacement, 4 continuous variables.',
  bounds: [
    [1, 3],
    [Math.SQRT2, 3],
    [Math.SQRT2, 3],
    [1, 3],
  ],
  objectives: 2,
  evaluate([x1, x2, x3, x4]) {
    const [F, E, L] = [10, 2e5, 200];
    // sqrt(x3) rather than the truss's sqrt2 x3: as the reference code, whose front this is, has it
    return Float64Array.of(
      L * (2 * x1 + Math.SQRT2 * x2 + Math.sqrt(x3) + x4),
      ((F * L) / E) * (2 / x1 + (2 * Math.SQRT2) / x2 - (2 * Math.SQRT2) / x3 + 2 / x4),
    );
  },
});

/** Catalogue of reinforcement areas (in^2) of RE22; "3, 10" stands as the reference code has it (3.10 was likely meant). */
const RE22_AREAS = [
  0.2, 0.31, 0.4, 0.44, 0.6, 0.62, 0.79, 0.8, 0.88, 0.93, 1.0, 1.2, 1.24, 1.32, 1.4, 1.55, 1.58, 1.6, 1.76, 1.8, 1.86, 2.0, 2.17, 2.2, 2.37, 2.4, 2.48, 2.6,
  2.64, 2.79, 2.8, 3.0, 3.08, 3, 10, 3.16, 3.41, 3.52, 3.6, 3.72, 3.95, 3.96, 4.0, 4.03, 4.2, 4.34, 4.4, 4.65, 4.74, 4.8, 4.84, 5.0, 5.28, 5.4, 5.53, 5.72, 6.0,
  6.16, 6.32, 6.6, 7.11, 7.2, 7.8, 7.9, 8.0, 8.4, 8.69, 9.0, 9.48, 10.27, 11.0, 11.06, 11.85, 12.0, 13.0, 14.0, 15.0,
];

/** Smallest beam width used (the reference divides by x2, whose range starts at 0). */
const RE22_MIN_WIDTH = 1e-9;

/** RE22, reinforced concrete beam (Amir & Hasegawa 1989): cost; reinforcement area from a catalogue. */
export const re22 = realWorldProblem({
  ...RE_FRONTS.re22,
  name: 're22',
  description: 'RE22 reinforced concrete beam (Tanabe & Ishibuchi 2020): cost and constraint violation; area from a catalogue of 77 values, 2 continuous.',
  bounds: [
    [0.2, 15],
    [0, 20],
    [0, 40],
  ],
  objectives: 2,
  evaluate([area, width, depth]) {
    const x1 = nearest(RE22_AREAS, area);
    const x2 = Math.max(width, RE22_MIN_WIDTH);
    return Float64Array.of(29.4 * x1 + 0.6 * x2 * depth, violation(x1 * depth - (7.735 * x1 * x1) / x2 - 180, 4 - depth / x2));
  },
});

/** RE23, pressure vessel (Kannan & Kramer 1994): cost; shell and head thickness in multiples of 0.0625 in. */
export const re23 = realWorldProblem({
  ...RE_FRONTS.re23,
  name: 're23',
  description: 'RE23 pressure vessel (Tanabe & Ishibuchi 2020): cost and constraint violation; 2 integer (x 0.0625 in) and 2 continuous variables.',
  bounds: [
    [1, 100],
    [1, 100],
    [10, 200],
    [10, 240],
  ],
  integers: [0, 1],
  objectives: 2,
  evaluate([a, b, x3, x4]) {
    const x1 = 0.0625 * Math.round(a);
    const x2 = 0.0625 * Math.round(b);
    const cost = 0.6224 * x1 * x3 * x4 + 1.7781 * x2 * x3 * x3 + 3.1661 * x1 * x1 * x4 + 19.84 * x1 * x1 * x3;
    return Float64Array.of(cost, violation(x1 - 0.0193 * x3, x2 - 0.00954 * x3, Math.PI * x3 * x3 * x4 + (4 / 3) * Math.PI * x3 ** 3 - 1_296_000));
  },
});

/** RE24, hatch cover (Amir & Hasegawa 1989): weight; E = 700,000, stress, shear and deflection limits. */
export const re24 = realWorldProblem({
  ...RE_FRONTS.re24,
  name: 're24',
  description: 'RE24 hatch cover (Tanabe & Ishibuchi 2020): weight and constraint violation, 2 continuous variables.',
  bounds: [
    [0.5, 4],
    [0.5, 50],
  ],
  objectives: 2,
  evaluate([x1, x2]) {
    const E = 700_000;
    const sigmaK = (E * x1 * x1) / 100;
    const sigmaB = 4500 / (x1 * x2);
    const tau = 1800 / x2;
    const delta = 562_000 / (E * x1 * x2 * x2);
    return Float64Array.of(x1 + 120 * x2, violation(1 - sigmaB / 700, 1 - tau / 450, 1 - delta / 1.5, 1 - sigmaB / sigmaK));
  },
});

/** Catalogue of wire diameters (in) of RE25. */
const RE25_WIRES = [
  0.009, 0.0095, 0.0104, 0.0118, 0.0128, 0.0132, 0.014, 0.015, 0.0162, 0.0173, 0.018, 0.02, 0.023, 0.025, 0.028, 0.032, 0.035, 0.041, 0.047, 0.054, 0.063,
  0.072, 0.08, 0.092, 0.105, 0.12, 0.135, 0.148, 0.162, 0.177, 0.192, 0.207, 0.225, 0.244, 0.263, 0.283, 0.307, 0.331, 0.362, 0.394, 0.4375, 0.5,
];

/** RE25, coil compression spring (Sandgren 1990): volume; coils an integer, wire from a catalogue; G = 11.5e6 psi. */
export const re25 = realWorldProblem({
  ...RE_FRONTS.re25,
  name: 're25',
  description: 'RE25 coil compression spring (Tanabe & Ishibuchi 2020): volume and constraint violation; 1 integer, 1 continuous, 1 catalogue variable.',
  bounds: [
    [1, 70],
    [0.6, 3],
    [0.09, 0.5],
  ],
  integers: [0],
  objectives: 2,
  evaluate([coils, x2, wire]) {
    const x1 = Math.round(coils);
    const x3 = nearest(RE25_WIRES, wire);
    const Cf = (4 * (x2 / x3) - 1) / (4 * (x2 / x3) - 4) + (0.615 * x3) / x2;
    const [Fmax, S, G, lmax, Fp, sigmaPM, sigmaW] = [1000, 189_000, 11.5e6, 14, 300, 6, 1.25];
    const K = (G * x3 ** 4) / (8 * x1 * x2 ** 3);
    const lf = Fmax / K + 1.05 * (x1 + 2) * x3;
    const sigmaP = Fp / K;
    return Float64Array.of(
      (Math.PI * Math.PI * x2 * x3 * x3 * (x1 + 2)) / 4,
      violation(
        S - (8 * Cf * Fmax * x2) / (Math.PI * x3 ** 3),
        lmax - lf,
        x2 / x3 - 3,
        sigmaPM - sigmaP,
        lf - sigmaP - (Fmax - Fp) / K - 1.05 * (x1 + 2) * x3,
        sigmaW - (Fmax - Fp) / K,
      ),
    );
  },
});
