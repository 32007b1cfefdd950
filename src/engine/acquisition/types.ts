/**
 * An acquisition function scores candidates from the surrogate's posterior: it sees means and
 * standard deviations, and, when it names points in `joint`, each candidate's posterior
 * covariance with them, never the model (as in BoTorch, where acquisition functions only see a
 * posterior). Larger is better. All objectives are in minimization space.
 */
export interface AcquisitionFunction {
  readonly name: string;
  /**
   * Points (`count x d` encoded) whose joint posterior with each candidate the function needs,
   * over the first `outputs` outputs: the optimizer then passes the candidates' covariance with
   * them to `evaluate`. Absent for functions of the marginal posterior alone.
   */
  readonly joint?: { points: Float64Array; count: number; outputs: number };
  /**
   * mean, std: `q x m` row-major posterior moments of the q candidates. cross (with `joint`
   * only): the latent posterior covariance of each candidate with the joint points, `outputs x q
   * x count` row-major (Posterior.covariance).
   * Returns q values (>= 0); a promise where they are computed on the tensor backend.
   */
  evaluate(mean: Float64Array, std: Float64Array, q: number, cross?: Float64Array): Float64Array | Promise<Float64Array>;
  /** frees what it holds on the tensor backend, if anything */
  dispose?(): void;
}
