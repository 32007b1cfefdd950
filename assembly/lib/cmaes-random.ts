// Seeded random numbers for the CMA-ES kernel: xoshiro128** (Blackman & Vigna 2018) seeded through
// splitmix32 as in src/engine/random.ts, 53-bit uniforms, and standard normals by Doornik's ZIGNOR
// ziggurat (Doornik 2005, "An Improved Ziggurat Method to Generate Normal Random Samples"; Marsaglia
// & Tsang 2000), which needs two 32-bit draws per normal on its fast path instead of a logarithm.

const ZIG_BLOCKS = 128;
const ZIG_R: f64 = 3.442619855899;
const ZIG_V: f64 = 9.91256303526217e-3;
const TWO_POW_MINUS_53: f64 = 1.1102230246251565e-16;

// Block edges x[0..128] and ratios x[i+1]/x[i]; static data, filled once.
const zigX = memory.data(8 * (ZIG_BLOCKS + 1), 16);
const zigRatio = memory.data(8 * ZIG_BLOCKS, 16);
let zigReady = false;

let s0: u32 = 1;
let s1: u32 = 0;
let s2: u32 = 0;
let s3: u32 = 0;
let splitState: u32 = 0;

function splitmix32(): u32 {
  splitState += 0x9e3779b9;
  let z = splitState;
  z = (z ^ (z >>> 16)) * 0x85ebca6b;
  z = (z ^ (z >>> 13)) * 0xc2b2ae35;
  return z ^ (z >>> 16);
}

function initZiggurat(): void {
  let f = Math.exp(-0.5 * ZIG_R * ZIG_R);
  store<f64>(zigX, ZIG_V / f);
  store<f64>(zigX + 8, ZIG_R);
  store<f64>(zigX + 8 * ZIG_BLOCKS, 0);
  for (let i = 2; i < ZIG_BLOCKS; i++) {
    const x = Math.sqrt(-2 * Math.log(ZIG_V / load<f64>(zigX + 8 * (i - 1)) + f));
    store<f64>(zigX + 8 * i, x);
    f = Math.exp(-0.5 * x * x);
  }
  for (let i = 0; i < ZIG_BLOCKS; i++) {
    store<f64>(zigRatio + 8 * i, load<f64>(zigX + 8 * (i + 1)) / load<f64>(zigX + 8 * i));
  }
  zigReady = true;
}

/** Restarts the stream from `seed` (an unsigned 32-bit integer). */
export function seedRandom(seed: u32): void {
  if (!zigReady) initZiggurat();
  splitState = seed;
  s0 = splitmix32();
  s1 = splitmix32();
  s2 = splitmix32();
  s3 = splitmix32();
  if ((s0 | s1 | s2 | s3) == 0) s0 = 1;
}

function nextUint32(): u32 {
  const result = rotl<u32>(s1 * 5, 7) * 9;
  const t = s1 << 9;
  s2 ^= s0;
  s3 ^= s1;
  s1 ^= s2;
  s0 ^= s3;
  s2 ^= t;
  s3 = rotl<u32>(s3, 11);
  return result;
}

/** Uniform on [0, 1) with 53 random bits. */
export function uniform(): f64 {
  const hi = <f64>(nextUint32() >>> 5);
  const lo = <f64>(nextUint32() >>> 6);
  return (hi * 67108864.0 + lo) * TWO_POW_MINUS_53;
}

// A sample from the normal tail beyond ZIG_R (Marsaglia 1964), negated when `negative`.
function normalTail(negative: bool): f64 {
  let x: f64 = 0;
  let y: f64 = 0;
  do {
    x = Math.log(1 - uniform()) / ZIG_R;
    y = Math.log(1 - uniform());
  } while (-2 * y < x * x);
  return negative ? x - ZIG_R : ZIG_R - x;
}

// The ziggurat's rare cases for the uniform u in [-1, 1) and block i: the tail beyond ZIG_R (block 0)
// or the wedge test; NaN when the wedge test rejects. Draws through the global state.
function normalSlowPath(u: f64, i: usize): f64 {
  if (i == 0) return normalTail(u < 0);
  const xi = load<f64>(zigX + (i << 3));
  const xi1 = load<f64>(zigX + ((i + 1) << 3));
  const x = u * xi;
  const f0 = Math.exp(-0.5 * (xi * xi - x * x));
  const f1 = Math.exp(-0.5 * (xi1 * xi1 - x * x));
  return f1 + uniform() * (f0 - f1) < 1 ? x : NaN;
}

// Ziggurat sample from the 64 bits (hi, lo): u uniform on [-1, 1) from 53 of them, and 7 of the bits
// the uniform drops pick the block. Returns the sample when the fast test accepts it, NaN otherwise;
// `slow` selects the full test (tail, wedge), which may draw through the global state.
@inline function zigguratFrom(hi: u32, lo: u32, slow: bool): f64 {
  const u = 2 * ((<f64>(hi >>> 5) * 67108864.0 + <f64>(lo >>> 6)) * TWO_POW_MINUS_53) - 1;
  const i = <usize>((hi & 31) | ((lo & 3) << 5));
  if (Math.abs(u) < load<f64>(zigRatio + (i << 3))) return u * load<f64>(zigX + (i << 3));
  return slow ? normalSlowPath(u, i) : NaN;
}

// Finishes a normal whose fast test failed on (hi, lo), drawing through the global state: the same
// draws, in the same order, as retrying inside fillNormal.
function normalRetry(hi: u32, lo: u32): f64 {
  let z = zigguratFrom(hi, lo, true);
  while (isNaN(z)) {
    const h = nextUint32();
    z = zigguratFrom(h, nextUint32(), true);
  }
  return z;
}

/**
 * Writes `count` standard normals to dst (f64). The generator state lives in locals here because
 * this loop produces nearly all the random numbers the kernel uses; the rare rejections leave the
 * loop straight-line code.
 */
export function fillNormal(dst: usize, count: i32): void {
  let a0 = s0;
  let a1 = s1;
  let a2 = s2;
  let a3 = s3;
  const end = dst + (<usize>count << 3);
  for (let p = dst; p < end; p += 8) {
    const hi = rotl<u32>(a1 * 5, 7) * 9;
    let t = a1 << 9;
    a2 ^= a0;
    a3 ^= a1;
    a1 ^= a2;
    a0 ^= a3;
    a2 ^= t;
    a3 = rotl<u32>(a3, 11);
    const lo = rotl<u32>(a1 * 5, 7) * 9;
    t = a1 << 9;
    a2 ^= a0;
    a3 ^= a1;
    a1 ^= a2;
    a0 ^= a3;
    a2 ^= t;
    a3 = rotl<u32>(a3, 11);
    let z = zigguratFrom(hi, lo, false);
    if (isNaN(z)) {
      s0 = a0;
      s1 = a1;
      s2 = a2;
      s3 = a3;
      z = normalRetry(hi, lo);
      a0 = s0;
      a1 = s1;
      a2 = s2;
      a3 = s3;
    }
    store<f64>(p, z);
  }
  s0 = a0;
  s1 = a1;
  s2 = a2;
  s3 = a3;
}
