/** Digits after the decimal point in a number's shortest form (1e-7 → 7, 0.25 → 2, 5 → 0): how a step's grid is printed. */
export function decimals(x: number): number {
  const [mantissa, exponent] = String(Math.abs(x)).split('e');
  return Math.max(0, (mantissa.split('.')[1]?.length ?? 0) - Number(exponent ?? 0));
}
