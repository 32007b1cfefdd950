// Scratch memory for the hypervolume kernel: a bump allocator over linear memory. The kernel runs
// with the minimal runtime (no GC), so every temporary buffer comes from here and is released in LIFO
// order by resetting the top to a saved mark; memory only ever grows, and is reused across calls.

let top: usize = 0;

@inline
function align16(p: usize): usize {
  return (p + 15) & ~(<usize>15);
}

/** Makes sure linear memory covers the first `end` bytes, growing it if needed. */
export function ensureMemory(end: usize): void {
  const have = (<usize>memory.size()) << 16;
  if (end > have) {
    const pages = <i32>((end - have + 0xffff) >> 16);
    if (memory.grow(pages) < 0) unreachable();
  }
}

/** Starts a fresh arena at `start` (everything allocated before is forgotten). */
export function arenaReset(start: usize): void {
  top = align16(start);
}

/** `bytes` of uninitialised scratch, 16-byte aligned. */
export function arenaAlloc(bytes: usize): usize {
  const ptr = top;
  top = align16(top + bytes);
  ensureMemory(top);
  return ptr;
}

/** The current top, to hand back to `arenaRelease` when the caller's temporaries are done. */
@inline
export function arenaMark(): usize {
  return top;
}

@inline
export function arenaRelease(mark: usize): void {
  top = mark;
}
