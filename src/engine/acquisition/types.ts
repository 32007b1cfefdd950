/**
 * An acquisition function scores candidates from the surrogate's marginal posterior: it sees
 * means and standard deviations, never the model (as in BoTorch, where acquisition functions
 * only see a posterior). Larger is better. All objectives are in minimization space.
 */
export interface AcquisitionFunction {
  readonly name: string;
  /**
   * mean, std: `q x m` row-major posterior moments of the q candidates.
   * Returns q values (>= 0); a promise where they are computed on the tensor backend.
   */
  evaluate(mean: Float64Array, std: Float64Array, q: number): Float64Array | Promise<Float64Array>;
  /** frees what it holds on the tensor backend, if anything */
  dispose?(): void;
}
