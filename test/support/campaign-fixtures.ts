/** Small, fast MDL documents for the service tests (2-D ZDT1: exact EHVI, cheap fits). */
export function zdt1Mdl(options: { budget?: number; batch?: number; seed?: number; evaluator?: unknown } = {}) {
  return {
    parameters: [
      { name: 'x1', type: 'continuous', bounds: [0, 1] },
      { name: 'x2', type: 'continuous', bounds: [0, 1] },
    ],
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 1.1 },
      { name: 'f2', direction: 'minimize', reference: 10 },
    ],
    optimizer: { method: 'cma-es', budget: options.budget ?? 10, batch_size: options.batch ?? 2, seed: options.seed ?? 7, initial_samples: 4 },
    ...(options.evaluator === null ? {} : { evaluator: options.evaluator ?? { type: 'builtin', name: 'zdt1' } }),
  };
}

/** ZDT1 itself, to play the lab in external (ask/tell) tests. */
export function zdt1(x1: number, x2: number): { f1: number; f2: number } {
  const g = 1 + 9 * x2;
  return { f1: x1, f2: g * (1 - Math.sqrt(x1 / g)) };
}
