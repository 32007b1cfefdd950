// Box constraints for the CMA-ES kernel by pycma's BoundTransform (Hansen, pycma
// `BoxConstraintsLinQuadTransformation`): the search runs on an unbounded genotype, and each
// coordinate is mapped into [lb, ub] by a periodic function that is the identity in the interior and
// quadratic in margins of width al (lower) and au (upper). The quadratic pieces have zero slope at
// the bounds, so an optimum on a bound becomes a smooth quadratic optimum for the genotype, and every
// sample handed to the objective is feasible by construction.

/** Width of the lower quadratic margin for bounds [lb, ub]. */
export function lowerMargin(lb: f64, ub: f64): f64 {
  return Math.min((ub - lb) / 2, (1 + Math.abs(lb)) / 20);
}

/** Width of the upper quadratic margin for bounds [lb, ub]. */
export function upperMargin(lb: f64, ub: f64): f64 {
  return Math.min((ub - lb) / 2, (1 + Math.abs(ub)) / 20);
}

/** Maps the genotype coordinate x into [lb, ub]. */
export function toPhenotype(x: f64, lb: f64, ub: f64, al: f64, au: f64): f64 {
  const width = ub - lb;
  if (x < lb - 2 * al - width / 2 || x > ub + 2 * au + width / 2) {
    const period = 2 * (width + al + au);
    const start = lb - 2 * al - width / 2;
    x -= period * Math.floor((x - start) / period);
  }
  if (x > ub + au) x -= 2 * (x - ub - au);
  if (x < lb - al) x += 2 * (lb - al - x);
  let y: f64;
  if (x < lb + al) {
    const t = x - (lb - al);
    y = lb + (t * t) / (4 * al);
  } else if (x < ub - au) {
    y = x;
  } else {
    const t = x - (ub + au);
    y = ub - (t * t) / (4 * au);
  }
  return Math.min(ub, Math.max(lb, y));
}

/** The genotype coordinate in the invertible domain [lb - al, ub + au] that maps to y in [lb, ub]. */
export function toGenotype(y: f64, lb: f64, ub: f64, al: f64, au: f64): f64 {
  if (y < lb + al) return lb - al + 2 * Math.sqrt(al * Math.max(0, y - lb));
  if (y > ub - au) return ub + au - 2 * Math.sqrt(au * Math.max(0, ub - y));
  return y;
}
