// Ordering helpers for the CMA-ES kernel: a stable argsort of the fitness values (ties keep sample
// order, so ranking is deterministic) and a selection routine for the medians of the stagnation test.

@inline function keyAt(keys: usize, idx: usize, i: i32): f64 {
  return load<f64>(keys + (<usize>load<i32>(idx + (<usize>i << 2)) << 3));
}

// Insertion sort of idx[lo..hi) by keys; stable.
function insertionSort(keys: usize, idx: usize, lo: i32, hi: i32): void {
  for (let i = lo + 1; i < hi; i++) {
    const v = load<i32>(idx + (<usize>i << 2));
    const kv = load<f64>(keys + (<usize>v << 3));
    let j = i - 1;
    while (j >= lo && keyAt(keys, idx, j) > kv) {
      store<i32>(idx + (<usize>(j + 1) << 2), load<i32>(idx + (<usize>j << 2)));
      j--;
    }
    store<i32>(idx + (<usize>(j + 1) << 2), v);
  }
}

/**
 * Stable argsort, ascending.
 * keys: `count` f64 values without NaN; idx: `count` i32 (output permutation); tmp: `count` i32 scratch.
 */
export function argsort(keys: usize, idx: usize, tmp: usize, count: i32): void {
  for (let i = 0; i < count; i++) store<i32>(idx + (<usize>i << 2), i);
  const run = 16;
  for (let lo = 0; lo < count; lo += run) insertionSort(keys, idx, lo, min(lo + run, count));
  let src = idx;
  let dst = tmp;
  for (let width = run; width < count; width <<= 1) {
    for (let lo = 0; lo < count; lo += width << 1) {
      const mid = min(lo + width, count);
      const hi = min(lo + (width << 1), count);
      let a = lo;
      let b = mid;
      for (let k = lo; k < hi; k++) {
        let takeA = a < mid;
        if (takeA && b < hi) takeA = keyAt(keys, src, a) <= keyAt(keys, src, b);
        const from = takeA ? a++ : b++;
        store<i32>(dst + (<usize>k << 2), load<i32>(src + (<usize>from << 2)));
      }
    }
    const t = src;
    src = dst;
    dst = t;
  }
  if (src != idx) memory.copy(idx, src, <usize>count << 2);
}

/**
 * The k-th smallest (0-based) of `count` f64 values at `values`, which are reordered in place
 * (Hoare's quickselect with a middle pivot; inputs here are short histories, not adversarial).
 */
export function selectKth(values: usize, count: i32, k: i32): f64 {
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const pivot = load<f64>(values + (<usize>((lo + hi) >>> 1) << 3));
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (load<f64>(values + (<usize>i << 3)) < pivot) i++;
      while (load<f64>(values + (<usize>j << 3)) > pivot) j--;
      if (i <= j) {
        const t = load<f64>(values + (<usize>i << 3));
        store<f64>(values + (<usize>i << 3), load<f64>(values + (<usize>j << 3)));
        store<f64>(values + (<usize>j << 3), t);
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return load<f64>(values + (<usize>k << 3));
}
