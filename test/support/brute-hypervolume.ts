/**
 * Independent brute-force hypervolumes (minimisation) for checking the real implementations on
 * small inputs. They share no code with src/engine and use only definitions: the union of boxes
 * [p, ref] measured by inclusion–exclusion, or by splitting space into the grid cells between
 * consecutive distinct coordinates and adding up the dominated cells. Both sum with Neumaier's
 * compensated summation so their own rounding stays far below the 1e-12 tolerance of the tests.
 */

/** Points that bound some volume: strictly better than ref in every objective. */
function inside(points: number[][], ref: number[]): number[][] {
  return points.filter((p) => p.every((v, j) => v < ref[j]));
}

class CompensatedSum {
  private sum = 0;
  private carry = 0;
  add(v: number): void {
    const t = this.sum + v;
    this.carry += Math.abs(this.sum) >= Math.abs(v) ? this.sum - t + v : v - t + this.sum;
    this.sum = t;
  }
  get value(): number {
    return this.sum + this.carry;
  }
}

/**
 * Inclusion–exclusion over all non-empty subsets S: sum (-1)^(|S|+1) vol([max S, ref]).
 * `points`: n rows of m numbers; 2^n terms, so keep n at most ~10.
 */
export function bruteHypervolumeSubsets(points: number[][], ref: number[]): number {
  const pts = inside(points, ref);
  const m = ref.length;
  const total = new CompensatedSum();
  const visit = (start: number, corner: number[], size: number): void => {
    for (let i = start; i < pts.length; i++) {
      const next = corner.map((v, j) => Math.max(v, pts[i][j]));
      let vol = 1;
      for (let j = 0; j < m; j++) vol *= ref[j] - next[j];
      total.add(size % 2 === 0 ? vol : -vol);
      visit(i + 1, next, size + 1);
    }
  };
  visit(0, new Array<number>(m).fill(-Infinity), 0);
  return total.value;
}

/**
 * Grid decomposition: per objective, the sorted distinct coordinates of the points plus ref cut
 * space into cells; a cell is dominated when some point is <= its lower corner in every
 * objective. `points`: n rows of m numbers; (n + 1)^m cells, so keep that under a few million.
 */
export function bruteHypervolumeGrid(points: number[][], ref: number[]): number {
  const pts = inside(points, ref);
  if (pts.length === 0) return 0;
  const m = ref.length;
  const cuts = ref.map((r, j) => [...new Set(pts.map((p) => p[j]))].sort((a, b) => a - b).concat([r]));
  const ranks = pts.map((p) => p.map((v, j) => cuts[j].indexOf(v)));
  const total = new CompensatedSum();
  const cell = new Array<number>(m).fill(0);
  for (;;) {
    if (ranks.some((r) => r.every((v, j) => v <= cell[j]))) {
      let vol = 1;
      for (let j = 0; j < m; j++) vol *= cuts[j][cell[j] + 1] - cuts[j][cell[j]];
      total.add(vol);
    }
    let j = 0;
    while (j < m && ++cell[j] === cuts[j].length - 1) cell[j++] = 0;
    if (j === m) return total.value;
  }
}

/**
 * Slicing along the last objective, recursively: HV_d(P) = sum over consecutive distinct last
 * coordinates z_i < z_{i+1} of (z_{i+1} - z_i) HV_{d-1}({p : p_d <= z_i}), down to 1-D. No
 * subtraction anywhere, about n^(d-1) work, so it reaches larger n than the other two for d <= 4.
 */
export function bruteHypervolumeSlicing(points: number[][], ref: number[]): number {
  const slice = (pts: number[][], d: number): number => {
    if (pts.length === 0) return 0;
    if (d === 1) return ref[0] - Math.min(...pts.map((p) => p[0]));
    const zs = [...new Set(pts.map((p) => p[d - 1]))].sort((a, b) => a - b);
    const total = new CompensatedSum();
    zs.forEach((z, i) => {
      const top = i + 1 < zs.length ? zs[i + 1] : ref[d - 1];
      total.add(
        (top - z) *
          slice(
            pts.filter((p) => p[d - 1] <= z),
            d - 1,
          ),
      );
    });
    return total.value;
  };
  return slice(inside(points, ref), ref.length);
}
