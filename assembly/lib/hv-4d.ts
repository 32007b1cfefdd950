// 4-D hypervolume by HV4D+ (Guerreiro & Fonseca 2018, "Computing and updating hypervolume
// contributions in up to four dimensions", IEEE TEC 22(3)): sweep the fourth objective in
// ascending order, adding each point's exclusive 3-D contribution to the points before it, times
// its distance to ref_4 (summation by parts of the slab formula). The points seen so far that are
// non-dominated in 3-D form a list sorted by (z, y, x). Each point keeps two "closest" links to
// points before it in the list: near0, the smallest x among those with smaller y (its right
// neighbour on their 2-D staircase), and near1, the smallest y among those with smaller x (its
// upper neighbour). With them the staircase at any height is rebuilt in one pass by splicing,
// and a contribution is one walk up the list with no searching, so a whole call is O(n^2). The
// same list answers one-point 3-D contribution queries (hypervolume improvements in 3-D).
//
// Nodes live in arena memory as 48-byte records: x, y, z (f64), then the addresses (u32) of the
// nodes next/prev (z list), cur0/cur1 (current staircase neighbours towards larger x / larger y)
// and near0/near1 (the closest links). The first three nodes are sentinels: (-inf, ref_y, -inf)
// heads the list, (ref_x, -inf, -inf) follows it, and (-inf, -inf, ref_z) ends it.

import { arenaAlloc, arenaMark, arenaRelease } from './hv-arena';

const NODE: usize = 48;

/** Addresses of the three sentinel nodes. */
let head: usize = 0;
let right: usize = 0;
let tail: usize = 0;
/** A node outside the list, for `frontContribution` queries. */
let spare: usize = 0;

@inline function nx(i: usize): f64 { return load<f64>(i); }
@inline function ny(i: usize): f64 { return load<f64>(i, 8); }
@inline function nz(i: usize): f64 { return load<f64>(i, 16); }
@inline function next(i: usize): usize { return load<u32>(i, 24); }
@inline function prev(i: usize): usize { return load<u32>(i, 28); }
@inline function cur0(i: usize): usize { return load<u32>(i, 32); }
@inline function cur1(i: usize): usize { return load<u32>(i, 36); }
@inline function near0(i: usize): usize { return load<u32>(i, 40); }
@inline function near1(i: usize): usize { return load<u32>(i, 44); }
@inline function setNext(i: usize, v: usize): void { store<u32>(i, <u32>v, 24); }
@inline function setPrev(i: usize, v: usize): void { store<u32>(i, <u32>v, 28); }
@inline function setCur0(i: usize, v: usize): void { store<u32>(i, <u32>v, 32); }
@inline function setCur1(i: usize, v: usize): void { store<u32>(i, <u32>v, 36); }
@inline function setNear0(i: usize, v: usize): void { store<u32>(i, <u32>v, 40); }
@inline function setNear1(i: usize, v: usize): void { store<u32>(i, <u32>v, 44); }

function setPoint(a: usize, x: f64, y: f64, z: f64): void {
  store<f64>(a, x);
  store<f64>(a, y, 8);
  store<f64>(a, z, 16);
}

/**
 * Hypervolume of `rows` (`k x stride`, first 4 columns used, all strictly inside ref) sorted by
 * the fourth objective ascending (any order among ties; dominated rows allowed).
 */
export function hv4(rows: usize, k: i32, stride: i32, ref: usize): f64 {
  const mark = arenaMark();
  startList(k + 3, ref);
  const rw = load<f64>(ref, 24);
  let volume = 0.0;
  for (let i = 0; i < k; i++) {
    const row = rows + ((<usize>i * <usize>stride) << 3);
    const p = tail + <usize>(i + 1) * NODE;
    setPoint(p, load<f64>(row), load<f64>(row, 8), load<f64>(row, 16));
    if (!rebuildBelow(p)) continue;
    link(p);
    volume += (rw - load<f64>(row, 24)) * contribution(p, true);
  }
  arenaRelease(mark);
  return volume;
}

/**
 * Builds the list for the 3-D front of `rows` (`k x stride`, first 3 columns used, all strictly
 * inside ref, any order) in arena memory the caller releases, for `frontContribution` queries.
 */
export function buildFront(rows: usize, k: i32, stride: i32, ref: usize): void {
  startList(k + 4, ref);
  for (let i = 0; i < k; i++) {
    const row = rows + ((<usize>i * <usize>stride) << 3);
    const p = tail + <usize>(i + 1) * NODE;
    setPoint(p, load<f64>(row), load<f64>(row, 8), load<f64>(row, 16));
    if (rebuildBelow(p)) {
      link(p);
      contribution(p, true);
    }
  }
}

/**
 * Exclusive 3-D contribution of `c` (3 f64, strictly inside ref) over the front of the last
 * `buildFront`, which it leaves unchanged (only the current staircase links move); 0 when a front
 * point weakly dominates c.
 */
export function frontContribution(c: usize): f64 {
  const p = spare;
  setPoint(p, load<f64>(c), load<f64>(c, 8), load<f64>(c, 16));
  return rebuildBelow(p) ? contribution(p, false) : 0;
}

/** Allocates `size` nodes (sentinels included) and links the empty list. */
function startList(size: i32, ref: usize): void {
  head = arenaAlloc(<usize>size * NODE);
  right = head + NODE;
  tail = right + NODE;
  spare = head + <usize>(size - 1) * NODE;
  setPoint(head, -Infinity, load<f64>(ref, 8), -Infinity);
  setPoint(right, load<f64>(ref), -Infinity, -Infinity);
  setPoint(tail, -Infinity, -Infinity, load<f64>(ref, 16));
  setNext(head, right);
  setNext(right, tail);
  setPrev(tail, right);
  setPrev(right, head);
}

/** Puts p (after a successful `rebuildBelow`) into the list at its place. */
function link(p: usize): void {
  setNext(prev(p), p);
  setPrev(next(p), p);
}

/**
 * Rebuilds the staircase of the listed points that come before p in (z, y, x) order, by splicing
 * each between its closest links, while finding p's own closest links and its place in the list.
 * Returns false, leaving everything else as it was, when a listed point weakly dominates p.
 */
function rebuildBelow(p: usize): bool {
  const px = nx(p);
  const py = ny(p);
  const pz = nz(p);
  let c0 = right;
  let c0x = nx(right);
  let c0y = ny(right);
  let c1 = head;
  let c1x = nx(head);
  let c1y = ny(head);
  setCur0(head, right);
  setCur1(right, head);
  let q = next(right);
  while (true) {
    const qx = nx(q);
    const qy = ny(q);
    const qz = nz(q);
    if (qx <= px && qy <= py && qz <= pz) return false;
    if (!(qz < pz || (qz == pz && (qy < py || (qy == py && qx <= px))))) {
      setNear0(p, c0);
      setNear1(p, c1);
      setPrev(p, prev(q));
      setNext(p, q);
      return true;
    }
    const a = near0(q);
    const b = near1(q);
    setCur0(q, a);
    setCur1(q, b);
    setCur1(a, q);
    setCur0(b, q);
    if (qy < py) {
      if (qx < c0x || (qx == c0x && qy < c0y)) {
        c0 = q;
        c0x = qx;
        c0y = qy;
      }
    } else if (qx < px) {
      if (qy < c1y || (qy == c1y && qx < c1x)) {
        c1 = q;
        c1x = qx;
        c1y = qy;
      }
    }
    q = next(q);
  }
}

/**
 * Area of the part of the box above (ax, ay) that the staircase leaves uncovered, between the
 * staircase point `q` to its right (lower y) and the first point to its left, walking the
 * staircase towards larger y one horizontal strip at a time.
 */
function areaFromRight(ax: f64, ay: f64, q: usize): f64 {
  let u = cur1(q);
  let area = (nx(q) - ax) * (ny(u) - ay);
  while (ax < nx(u)) {
    q = u;
    u = cur1(u);
    area += (nx(q) - ax) * (ny(u) - ny(q));
  }
  return area;
}

/** Mirror image of `areaFromRight`: starts at the point `q` above-left of (ax, ay), vertical strips. */
function areaFromLeft(ax: f64, ay: f64, q: usize): f64 {
  let u = cur0(q);
  let area = (ny(q) - ay) * (nx(u) - ax);
  while (ay < ny(u)) {
    q = u;
    u = cur0(u);
    area += (ny(q) - ay) * (nx(u) - nx(q));
  }
  return area;
}

/**
 * Exclusive 3-D contribution of p once the staircase below it is rebuilt: the uncovered area of
 * its base, then a walk up the list shrinking that area as points above cover parts of it, until
 * one covers it all (the tail sentinel at ref_z always does). Points to the left of or below p's
 * box count through their projection onto its edge and become p's new delimiter; points inside
 * are spliced in through their closest links.
 *
 * With `update`, p has just been linked into the list and the same walk also does the list's
 * bookkeeping for it (one pass instead of two over the points above p): each point after p that
 * p weakly dominates is dropped, and p becomes the closest link of those it now is closest to,
 * after the contribution step has read their old links. The walk ends at the first point that
 * dominates p on the (x, y) plane, which shields every later one from p; only when that point
 * equals p there does the bookkeeping go on past it, in `relink`.
 */
function contribution(p: usize, update: bool): f64 {
  const px = nx(p);
  const py = ny(p);
  const pz = nz(p);
  setCur0(p, near0(p));
  setCur1(p, near1(p));
  let area = areaFromRight(px, py, cur0(p));
  let volume = 0.0;
  let lastZ = pz;
  let q = next(p);
  while (true) {
    const qx = nx(q);
    const qy = ny(q);
    const qz = nz(q);
    volume += area * (qz - lastZ);
    if (qx <= px && qy <= py) {
      if (update && qx == px && qy == py) {
        unlink(q);
        relink(p, next(q));
      }
      return volume;
    }
    setCur0(q, near0(q));
    setCur1(q, near1(q));
    if (qx < px) {
      const up = cur1(p);
      if (qy <= ny(up)) {
        area -= areaFromLeft(px, qy, up);
        setCur1(q, up);
        setCur1(cur0(q), q);
        setCur1(p, q);
      }
      if (update) closerLeft(q, p, px, py, pz);
    } else if (qy < py) {
      const right = cur0(p);
      if (qx <= nx(right)) {
        area -= areaFromRight(qx, py, right);
        setCur0(q, right);
        setCur0(cur1(q), q);
        setCur0(p, q);
      }
      if (update && px < qx) closerBelow(q, p, px, py, pz);
    } else {
      area -= areaFromRight(qx, qy, cur0(q));
      setCur0(cur1(q), q);
      setCur1(cur0(q), q);
      if (update) unlink(q);
    }
    lastZ = qz;
    q = next(q);
  }
}

/** Takes q out of the z list (its own links stay, so a walk standing on it can go on). */
@inline function unlink(q: usize): void {
  const a = prev(q);
  const b = next(q);
  setNext(a, b);
  setPrev(b, a);
}

/** Makes p, right of q and below it in y, q's near0 if it is closer than the current one. */
@inline function closerLeft(q: usize, p: usize, px: f64, py: f64, pz: f64): void {
  const c = near0(q);
  const cx = nx(c);
  const cy = ny(c);
  if (px < cx || (px == cx && (py < cy || (py == cy && pz < nz(c))))) setNear0(q, p);
}

/** Makes p, strictly left of q and above it in y, q's near1 if it is closer than the current one. */
@inline function closerBelow(q: usize, p: usize, px: f64, py: f64, pz: f64): void {
  const c = near1(q);
  const cx = nx(c);
  const cy = ny(c);
  if (py < cy || (py == cy && (px < cx || (px == cx && pz < nz(c))))) setNear1(q, p);
}

/**
 * The list bookkeeping of `contribution` for p, from q on: drops the points p weakly dominates and
 * makes p the closest link of those it now is closest to, up to the first point that dominates p
 * on the (x, y) plane.
 */
function relink(p: usize, q: usize): void {
  const px = nx(p);
  const py = ny(p);
  const pz = nz(p);
  while (q != tail) {
    const qx = nx(q);
    const qy = ny(q);
    if (qx <= px && qy <= py && (qx < px || qy < py)) return;
    if (px <= qx) {
      if (py <= qy) unlink(q);
      else if (px < qx) closerBelow(q, p, px, py, pz);
    } else if (py < qy) {
      closerLeft(q, p, px, py, pz);
    }
    q = next(q);
  }
}
