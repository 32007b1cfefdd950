/**
 * The 2-, 3- and 4-D sweeps of the plain TypeScript hypervolume reference
 * (./hypervolume.ts), step for step the same as assembly/lib/hv-sweep.ts,
 * hv-staircase.ts and hv-4d.ts. Minimisation; rows strictly inside ref; row sets are `k x stride`
 * row-major Float64Arrays, a single row is addressed by (array, offset).
 */

/**
 * 2-D staircase of the 3-D sweep: non-dominated (x, y) pairs sorted by x, between sentinels
 * (-inf, ref_y) and (ref_x, -inf). `insert` returns the area a new pair adds.
 */
export class Staircase {
  private readonly xy: Float64Array;
  private size = 0;

  constructor(capacity: number) {
    this.xy = new Float64Array(2 * (capacity + 2));
  }

  reset(rx: number, ry: number): void {
    this.xy[0] = -Infinity;
    this.xy[1] = ry;
    this.xy[2] = rx;
    this.xy[3] = -Infinity;
    this.size = 2;
  }

  insert(qx: number, qy: number): number {
    const s = this.xy;
    let lo = 1;
    let hi = this.size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (s[2 * mid] < qx) lo = mid + 1;
      else hi = mid;
    }
    const i = lo;
    let h = s[2 * i - 1];
    if (h <= qy) return 0;
    if (s[2 * i] === qx && s[2 * i + 1] <= qy) return 0;
    let j = i;
    let x0 = qx;
    let gain = 0;
    while (s[2 * j + 1] >= qy) {
      const xj = s[2 * j];
      gain += (xj - x0) * (h - qy);
      x0 = xj;
      h = s[2 * j + 1];
      j++;
    }
    gain += (s[2 * j] - x0) * (h - qy);
    const removed = j - i;
    if (removed !== 1) {
      s.copyWithin(2 * (i + 1), 2 * j, 2 * this.size);
      this.size += 1 - removed;
    }
    s[2 * i] = qx;
    s[2 * i + 1] = qy;
    return gain;
  }
}

/** 2-D hypervolume; `rows` (`k x stride`) sorted by the second objective. */
export function hv2(rows: Float64Array, k: number, stride: number, ref: Float64Array): number {
  let left = ref[0];
  let area = 0;
  for (let i = 0; i < k; i++) {
    const x = rows[i * stride];
    if (x < left) {
      area += (left - x) * (ref[1] - rows[i * stride + 1]);
      left = x;
    }
  }
  return area;
}

/** 3-D hypervolume by dimension sweep; `rows` (`k x stride`) sorted by the third objective. */
export function hv3(rows: Float64Array, k: number, stride: number, ref: Float64Array): number {
  const stair = new Staircase(k);
  stair.reset(ref[0], ref[1]);
  let area = 0;
  let volume = 0;
  let prevZ = rows[2];
  for (let i = 0; i < k; i++) {
    const z = rows[i * stride + 2];
    volume += area * (z - prevZ);
    prevZ = z;
    area += stair.insert(rows[i * stride], rows[i * stride + 1]);
  }
  return volume + area * (ref[2] - prevZ);
}

/**
 * Exclusive 2-D contribution of (cx, cy) over `front` (`k x 2`, non-dominated, sorted by the
 * second objective): binary search, then a walk over the front points inside c's box.
 */
export function contribution2(front: Float64Array, k: number, cx: number, cy: number, ref: Float64Array): number {
  let lo = 0;
  let hi = k;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (front[2 * mid + 1] <= cy) lo = mid + 1;
    else hi = mid;
  }
  let right = lo > 0 ? front[2 * (lo - 1)] : ref[0];
  if (right <= cx) return 0;
  let area = 0;
  for (let j = lo; j < k; j++) {
    const xj = front[2 * j];
    const left = Math.max(xj, cx);
    area += (right - left) * (front[2 * j + 1] - cy);
    right = left;
    if (xj <= cx) return area;
  }
  return area + (right - cx) * (ref[1] - cy);
}

const HEAD = 0;
const RIGHT = 1;
const TAIL = 2;

/**
 * HV4D+ state (Guerreiro & Fonseca 2018): node i has coordinates x, y, z and links next/prev (the
 * list of 3-D non-dominated points sorted by (z, y, x)), cur0/cur1 (current staircase neighbours
 * towards larger x / larger y) and near0/near1 (its closest links). Nodes 0, 1, 2 are the
 * sentinels (-inf, ref_y, -inf), (ref_x, -inf, -inf) and (-inf, -inf, ref_z).
 */
export class Hv4State {
  readonly x: Float64Array;
  readonly y: Float64Array;
  readonly z: Float64Array;
  readonly next: Int32Array;
  readonly prev: Int32Array;
  readonly cur0: Int32Array;
  readonly cur1: Int32Array;
  readonly near0: Int32Array;
  readonly near1: Int32Array;

  constructor(size: number, ref: Float64Array) {
    this.x = new Float64Array(size);
    this.y = new Float64Array(size);
    this.z = new Float64Array(size);
    this.next = new Int32Array(size);
    this.prev = new Int32Array(size);
    this.cur0 = new Int32Array(size);
    this.cur1 = new Int32Array(size);
    this.near0 = new Int32Array(size);
    this.near1 = new Int32Array(size);
    this.set(HEAD, -Infinity, ref[1], -Infinity);
    this.set(RIGHT, ref[0], -Infinity, -Infinity);
    this.set(TAIL, -Infinity, -Infinity, ref[2]);
    this.next[HEAD] = RIGHT;
    this.next[RIGHT] = TAIL;
    this.prev[TAIL] = RIGHT;
    this.prev[RIGHT] = HEAD;
  }

  set(i: number, x: number, y: number, z: number): void {
    this.x[i] = x;
    this.y[i] = y;
    this.z[i] = z;
  }
}

/** 4-D hypervolume by HV4D+; `rows` (`k x stride`) sorted by the fourth objective. */
export function hv4(rows: Float64Array, k: number, stride: number, ref: Float64Array): number {
  const s = new Hv4State(k + 3, ref);
  let volume = 0;
  for (let i = 0; i < k; i++) {
    const p = i + 3;
    s.set(p, rows[i * stride], rows[i * stride + 1], rows[i * stride + 2]);
    if (!rebuildBelow(s, p)) continue;
    volume += (ref[3] - rows[i * stride + 3]) * contribution4(s, p);
    insert(s, p);
  }
  return volume;
}

/**
 * The list of the 3-D front of `rows` (`k x stride`, first 3 columns, inside ref, any order), for
 * `frontContribution` queries; its last node is a spare outside the list.
 */
export function buildFront(rows: Float64Array, k: number, stride: number, ref: Float64Array): Hv4State {
  const s = new Hv4State(k + 4, ref);
  for (let i = 0; i < k; i++) {
    const p = i + 3;
    s.set(p, rows[i * stride], rows[i * stride + 1], rows[i * stride + 2]);
    if (rebuildBelow(s, p)) insert(s, p);
  }
  return s;
}

/** Exclusive 3-D contribution of the row of `pts` at `c` over a built front; 0 when dominated. */
export function frontContribution(s: Hv4State, pts: Float64Array, c: number): number {
  const p = s.x.length - 1;
  s.set(p, pts[c], pts[c + 1], pts[c + 2]);
  return rebuildBelow(s, p) ? contribution4(s, p) : 0;
}

/** Puts p (after a successful `rebuildBelow`) into the list at its place and updates the others. */
function insert(s: Hv4State, p: number): void {
  const before = s.prev[p];
  const after = s.next[before];
  s.next[p] = after;
  s.prev[after] = p;
  s.next[before] = p;
  relink(s, p);
}

/** Staircase below p rebuilt from the closest links, p's own links found; false if p is dominated. */
function rebuildBelow(s: Hv4State, p: number): boolean {
  const px = s.x[p];
  const py = s.y[p];
  const pz = s.z[p];
  let c0 = RIGHT;
  let c1 = HEAD;
  s.cur0[HEAD] = RIGHT;
  s.cur1[RIGHT] = HEAD;
  for (let q = s.next[RIGHT]; ; q = s.next[q]) {
    const qx = s.x[q];
    const qy = s.y[q];
    const qz = s.z[q];
    if (qx <= px && qy <= py && qz <= pz) return false;
    if (!(qz < pz || (qz === pz && (qy < py || (qy === py && qx <= px))))) {
      s.near0[p] = c0;
      s.near1[p] = c1;
      s.prev[p] = s.prev[q];
      return true;
    }
    const a = s.near0[q];
    const b = s.near1[q];
    s.cur0[q] = a;
    s.cur1[q] = b;
    s.cur1[a] = q;
    s.cur0[b] = q;
    if (qy < py) {
      if (qx < s.x[c0] || (qx === s.x[c0] && qy < s.y[c0])) c0 = q;
    } else if (qx < px) {
      if (qy < s.y[c1] || (qy === s.y[c1] && qx < s.x[c1])) c1 = q;
    }
  }
}

/** Uncovered area above (ax, ay) walking the staircase from its right delimiter q towards larger y. */
function areaFromRight(s: Hv4State, ax: number, ay: number, q: number): number {
  let u = s.cur1[q];
  let area = (s.x[q] - ax) * (s.y[u] - ay);
  while (ax < s.x[u]) {
    q = u;
    u = s.cur1[u];
    area += (s.x[q] - ax) * (s.y[u] - s.y[q]);
  }
  return area;
}

/** Mirror image of `areaFromRight`, from the upper-left delimiter q towards larger x. */
function areaFromLeft(s: Hv4State, ax: number, ay: number, q: number): number {
  let u = s.cur0[q];
  let area = (s.y[q] - ay) * (s.x[u] - ax);
  while (ay < s.y[u]) {
    q = u;
    u = s.cur0[u];
    area += (s.y[q] - ay) * (s.x[u] - s.x[q]);
  }
  return area;
}

/** Exclusive 3-D contribution of p over the listed points (see `contribution` in hv-4d.ts). */
function contribution4(s: Hv4State, p: number): number {
  const px = s.x[p];
  const py = s.y[p];
  s.cur0[p] = s.near0[p];
  s.cur1[p] = s.near1[p];
  let area = areaFromRight(s, px, py, s.cur0[p]);
  let volume = 0;
  let lastZ = s.z[p];
  for (let q = s.next[s.prev[p]]; ; q = s.next[q]) {
    const qx = s.x[q];
    const qy = s.y[q];
    const qz = s.z[q];
    volume += area * (qz - lastZ);
    if (qx <= px && qy <= py) return volume;
    s.cur0[q] = s.near0[q];
    s.cur1[q] = s.near1[q];
    if (qx < px) {
      const up = s.cur1[p];
      if (qy <= s.y[up]) {
        area -= areaFromLeft(s, px, qy, up);
        s.cur1[q] = up;
        s.cur1[s.cur0[q]] = q;
        s.cur1[p] = q;
      }
    } else if (qy < py) {
      const right = s.cur0[p];
      if (qx <= s.x[right]) {
        area -= areaFromRight(s, qx, py, right);
        s.cur0[q] = right;
        s.cur0[s.cur1[q]] = q;
        s.cur0[p] = q;
      }
    } else {
      area -= areaFromRight(s, qx, qy, s.cur0[q]);
      s.cur0[s.cur1[q]] = q;
      s.cur1[s.cur0[q]] = q;
    }
    lastZ = qz;
  }
}

/** After p joins the list: drop the points it dominates, become the closest link where it now is. */
function relink(s: Hv4State, p: number): void {
  const px = s.x[p];
  const py = s.y[p];
  const pz = s.z[p];
  for (let q = s.next[p]; q !== TAIL; q = s.next[q]) {
    const qx = s.x[q];
    const qy = s.y[q];
    if (qx <= px && qy <= py && (qx < px || qy < py)) return;
    if (px <= qx) {
      if (py <= qy) {
        s.next[s.prev[q]] = s.next[q];
        s.prev[s.next[q]] = s.prev[q];
      } else if (px < qx) {
        const c = s.near1[q];
        if (py < s.y[c] || (py === s.y[c] && (px < s.x[c] || (px === s.x[c] && pz < s.z[c])))) s.near1[q] = p;
      }
    } else if (py < qy) {
      const c = s.near0[q];
      if (px < s.x[c] || (px === s.x[c] && (py < s.y[c] || (py === s.y[c] && pz < s.z[c])))) s.near0[q] = p;
    }
  }
}
