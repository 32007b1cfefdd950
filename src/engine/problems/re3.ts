import { RE_FRONTS } from './re-fronts.js';
import { realWorldProblem, violation } from './re-common.js';

/** The three-objective RE problems (Tanabe & Ishibuchi 2020, supplementary section S1). */

/** RE31, two-bar truss (Chiandussi et al. 2012): volume, stress, violation. */
export const re31 = realWorldProblem({
  ...RE_FRONTS.re31,
  name: 're31',
  description: 'RE31 two-bar truss (Tanabe & Ishibuchi 2020): volume, stress and constraint violation, 3 continuous variables.',
  bounds: [
    [0.00001, 100],
    [0.00001, 100],
    [1, 3],
  ],
  objectives: 3,
  evaluate([x1, x2, x3]) {
    const f1 = x1 * Math.sqrt(16 + x3 * x3) + x2 * Math.sqrt(1 + x3 * x3);
    const f2 = (20 * Math.sqrt(16 + x3 * x3)) / (x1 * x3);
    return Float64Array.of(f1, f2, violation(0.1 - f1, 100_000 - f2, 100_000 - (80 * Math.sqrt(1 + x3 * x3)) / (x3 * x2)));
  },
});

/** RE32, welded beam (Ray & Liew 2002): cost, end deflection, violation; P = 6000 lb, L = 14 in. */
export const re32 = realWorldProblem({
  ...RE_FRONTS.re32,
  name: 're32',
  description: 'RE32 welded beam (Tanabe & Ishibuchi 2020): cost, deflection and constraint violation, 4 continuous variables.',
  bounds: [
    [0.125, 5],
    [0.1, 10],
    [0.1, 10],
    [0.125, 5],
  ],
  objectives: 3,
  evaluate([x1, x2, x3, x4]) {
    const [P, L, E, G, tauMax, sigmaMax] = [6000, 14, 30e6, 12e6, 13_600, 30_000];
    const f1 = 1.10471 * x1 * x1 * x2 + 0.04811 * x3 * x4 * (14 + x2);
    const f2 = (4 * P * L ** 3) / (E * x4 * x3 ** 3);
    const M = P * (L + x2 / 2);
    const R = Math.sqrt((x2 * x2) / 4 + ((x1 + x3) / 2) ** 2);
    const J = 2 * Math.SQRT2 * x1 * x2 * ((x2 * x2) / 12 + ((x1 + x3) / 2) ** 2);
    const tau2 = (M * R) / J;
    const tau1 = P / (Math.SQRT2 * x1 * x2);
    const tau = Math.sqrt(tau1 * tau1 + (2 * tau1 * tau2 * x2) / (2 * R) + tau2 * tau2);
    const sigma = (6 * P * L) / (x4 * x3 * x3);
    const buckling = ((4.013 * E * Math.sqrt((x3 * x3 * x4 ** 6) / 36)) / (L * L)) * (1 - (x3 / (2 * L)) * Math.sqrt(E / (4 * G)));
    return Float64Array.of(f1, f2, violation(tauMax - tau, sigmaMax - sigma, x4 - x1, buckling - P));
  },
});

/** RE35, speed reducer (Golinski 1970): weight, stress, violation of 11 constraints; x3 (teeth) an integer. */
export const re35 = realWorldProblem({
  ...RE_FRONTS.re35,
  name: 're35',
  description: 'RE35 speed reducer (Tanabe & Ishibuchi 2020): weight, stress and constraint violation; 1 integer and 6 continuous variables.',
  bounds: [
    [2.6, 3.6],
    [0.7, 0.8],
    [17, 28],
    [7.3, 8.3],
    [7.3, 8.3],
    [2.9, 3.9],
    [5.0, 5.5],
  ],
  integers: [2],
  objectives: 3,
  evaluate([x1, x2, teeth, x4, x5, x6, x7]) {
    const x3 = Math.round(teeth);
    const f1 =
      0.7854 * x1 * x2 * x2 * ((10 * x3 * x3) / 3 + 14.933 * x3 - 43.0934) -
      1.508 * x1 * (x6 * x6 + x7 * x7) +
      7.477 * (x6 ** 3 + x7 ** 3) +
      0.7854 * (x4 * x6 * x6 + x5 * x7 * x7);
    const f2 = Math.sqrt(((745 * x4) / (x2 * x3)) ** 2 + 1.69e7) / (0.1 * x6 ** 3);
    return Float64Array.of(
      f1,
      f2,
      violation(
        1 / 27 - 1 / (x1 * x2 * x2 * x3),
        1 / 397.5 - 1 / (x1 * x2 * x2 * x3 * x3),
        1 / 1.93 - x4 ** 3 / (x2 * x3 * x6 ** 4),
        1 / 1.93 - x5 ** 3 / (x2 * x3 * x7 ** 4),
        40 - x2 * x3,
        12 - x1 / x2,
        x1 / x2 - 5,
        x4 - 1.5 * x6 - 1.9,
        x5 - 1.1 * x7 - 1.9,
        1300 - f2,
        1100 - Math.sqrt(((745 * x5) / (x2 * x3)) ** 2 + 1.575e8) / (0.1 * x7 ** 3),
      ),
    );
  },
});

/** RE36, gear train (Deb & Srinivasan 2006): ratio error, largest gear, violation; four integer tooth counts. */
export const re36 = realWorldProblem({
  ...RE_FRONTS.re36,
  name: 're36',
  description: 'RE36 gear train (Tanabe & Ishibuchi 2020): gear-ratio error, largest gear and constraint violation, 4 integer variables.',
  bounds: [
    [12, 60],
    [12, 60],
    [12, 60],
    [12, 60],
  ],
  integers: [0, 1, 2, 3],
  objectives: 3,
  evaluate(x) {
    const [x1, x2, x3, x4] = Array.from(x, Math.round);
    const error = Math.abs(6.931 - (x3 / x1) * (x4 / x2));
    return Float64Array.of(error, Math.max(x1, x2, x3, x4), violation(0.5 - error / 6.931));
  },
});

/** RE37, rocket injector (Vaidyanathan et al. 2003): response surfaces of three temperatures and a length, on [0, 1]^4. */
export const re37 = realWorldProblem({
  ...RE_FRONTS.re37,
  name: 're37',
  description: 'RE37 rocket injector (Tanabe & Ishibuchi 2020): three quadratic/cubic response surfaces, 4 continuous variables in [0, 1].',
  bounds: [
    [0, 1],
    [0, 1],
    [0, 1],
    [0, 1],
  ],
  objectives: 3,
  evaluate([a, ha, oa, optt]) {
    const f1 =
      0.692 +
      0.477 * a -
      0.687 * ha -
      0.08 * oa -
      0.065 * optt -
      0.167 * a * a -
      0.0129 * ha * a +
      0.0796 * ha * ha -
      0.0634 * oa * a -
      0.0257 * oa * ha +
      0.0877 * oa * oa -
      0.0521 * optt * a +
      0.00156 * optt * ha +
      0.00198 * optt * oa +
      0.0184 * optt * optt;
    const f2 =
      0.153 -
      0.322 * a +
      0.396 * ha +
      0.424 * oa +
      0.0226 * optt +
      0.175 * a * a +
      0.0185 * ha * a -
      0.0701 * ha * ha -
      0.251 * oa * a +
      0.179 * oa * ha +
      0.015 * oa * oa +
      0.0134 * optt * a +
      0.0296 * optt * ha +
      0.0752 * optt * oa +
      0.0192 * optt * optt;
    const f3 =
      0.37 -
      0.205 * a +
      0.0307 * ha +
      0.108 * oa +
      1.019 * optt -
      0.135 * a * a +
      0.0141 * ha * a +
      0.0998 * ha * ha +
      0.208 * oa * a -
      0.0301 * oa * ha -
      0.226 * oa * oa +
      0.353 * optt * a -
      0.0497 * optt * oa -
      0.423 * optt * optt +
      0.202 * ha * a * a -
      0.281 * oa * a * a -
      0.342 * ha * ha * a -
      0.245 * ha * ha * oa +
      0.281 * oa * oa * ha -
      0.184 * optt * optt * a -
      0.281 * ha * a * oa;
    return Float64Array.of(f1, f2, f3);
  },
});
