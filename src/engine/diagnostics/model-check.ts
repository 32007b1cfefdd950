/**
 * How well a surrogate predicts what was measured, from leave-one-out predictions: each
 * measurement against the model fitted to all the others. A scientist reads three things from
 * it: whether the model explains the data (R²), whether its errors are biased (mean standardized
 * error near 0), and whether its uncertainty can be trusted (about 68 % of measurements inside
 * the ±1σ interval and 95 % inside ±1.96σ; an RMS standardized error near 1).
 */

/** One leave-one-out prediction, in the output's own units and direction. */
export interface CheckedPrediction {
  id: string;
  measured: number;
  predicted: number;
  /** predictive standard deviation of a measurement (noise included) */
  sd: number;
}

export interface CheckMetrics {
  points: number;
  /** 1 − Σ(measured − predicted)² / Σ(measured − mean)²; 1 is perfect, ≤ 0 explains nothing */
  r2: number;
  /** mean of (measured − predicted) / sd: the bias, in units of the model's own uncertainty */
  mean_standardized_error: number;
  /** root mean square of (measured − predicted) / sd: near 1 when the intervals are calibrated */
  rms_standardized_error: number;
  /** share of measurements within ±1 sd (a calibrated model: about 0.68) */
  coverage_68: number;
  /** share of measurements within ±1.96 sd (a calibrated model: about 0.95) */
  coverage_95: number;
}

/** Metrics of predictions against measurements (at least one prediction). */
export function checkMetrics(predictions: readonly CheckedPrediction[]): CheckMetrics {
  const n = predictions.length;
  let mean = 0;
  for (const p of predictions) mean += p.measured;
  mean /= n;
  let sse = 0;
  let sst = 0;
  let zSum = 0;
  let z2Sum = 0;
  let in68 = 0;
  let in95 = 0;
  for (const p of predictions) {
    const error = p.measured - p.predicted;
    sse += error * error;
    sst += (p.measured - mean) * (p.measured - mean);
    const z = p.sd > 0 ? error / p.sd : error === 0 ? 0 : Infinity;
    zSum += z;
    z2Sum += z * z;
    if (Math.abs(z) <= 1) in68 += 1;
    if (Math.abs(z) <= 1.959964) in95 += 1;
  }
  return {
    points: n,
    r2: sst > 0 ? 1 - sse / sst : sse === 0 ? 1 : 0,
    mean_standardized_error: zSum / n,
    rms_standardized_error: Math.sqrt(z2Sum / n),
    coverage_68: in68 / n,
    coverage_95: in95 / n,
  };
}
