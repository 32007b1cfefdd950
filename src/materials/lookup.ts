import { createHash } from 'node:crypto';
import { CATALOG, type Application, type CatalogEntry } from './catalog.js';
import { elementBySymbol, type Element } from './elements.js';
import { formatFormula, hillOrder, parseFormula, reduceComposition, type Composition } from './formula.js';

/** Composition-weighted element properties (weights: atomic fractions); null where an element lacks the property. */
export interface Descriptors {
  atoms_per_formula_unit: number;
  /** g/mol per atom */
  mean_atomic_mass: number;
  mean_atomic_number: number;
  /** Pauling */
  mean_electronegativity: number | null;
  /** max − min over the elements present */
  electronegativity_difference: number | null;
  /** pm, Slater's empirical radii */
  mean_atomic_radius: number | null;
  /** pm, Cordero's single-bond radii */
  mean_covalent_radius: number | null;
}

export interface MaterialRecord {
  id: string;
  /** catalog: a curated entry with cited properties; computed: derived from the formula alone */
  source: 'catalog' | 'computed';
  name: string | null;
  applications: Application[];
  formula: string;
  reduced_formula: string;
  /** Hill order */
  elements: string[];
  composition: Record<string, number>;
  /** g/mol */
  molar_mass: number;
  /** atomic fractions */
  element_fractions: Record<string, number>;
  weight_fractions: Record<string, number>;
  descriptors: Descriptors;
  properties: Record<string, { value: number | string; source: string }>;
}

/**
 * The materials a formula names: every catalog entry with the same reduced formula (polymorphs
 * included), or else one record computed from the formula alone. Throws FormulaError.
 */
export function lookupMaterials(formula: string): MaterialRecord[] {
  const composition = parseFormula(formula);
  const reduced = reducedFormula(composition);
  const entries = CATALOG_BY_REDUCED_FORMULA.get(reduced);
  if (entries) return entries.map((entry) => record(`catalog:${entry.key}`, entry.formula, parseFormula(entry.formula), entry));
  return [record(`computed:${reduced}`, formula.trim(), composition, null)];
}

const reducedFormula = (composition: Composition) => formatFormula(reduceComposition(composition));

const CATALOG_BY_REDUCED_FORMULA = new Map<string, CatalogEntry[]>();
for (const entry of CATALOG) {
  const key = reducedFormula(parseFormula(entry.formula));
  CATALOG_BY_REDUCED_FORMULA.set(key, [...(CATALOG_BY_REDUCED_FORMULA.get(key) ?? []), entry]);
}

function record(seed: string, formula: string, composition: Composition, entry: CatalogEntry | null): MaterialRecord {
  const symbols = hillOrder(composition.keys());
  const elements = symbols.map((s) => elementBySymbol(s) as Element);
  const amounts = symbols.map((s) => composition.get(s) as number);
  const atoms = sum(amounts);
  const masses = elements.map((e, i) => e.atomicWeight * amounts[i]);
  const molarMass = sum(masses);
  const mean = (pick: (e: Element) => number | null) => weightedMean(elements.map(pick), amounts, atoms);
  const electronegativities = elements.map((e) => e.electronegativity);
  return {
    id: materialId(seed),
    source: entry ? 'catalog' : 'computed',
    name: entry?.name ?? null,
    applications: entry ? [...entry.applications] : [],
    formula,
    reduced_formula: reducedFormula(composition),
    elements: symbols,
    composition: Object.fromEntries(symbols.map((s, i) => [s, amounts[i]])),
    molar_mass: round(molarMass, 3),
    element_fractions: Object.fromEntries(symbols.map((s, i) => [s, round(amounts[i] / atoms, 6)])),
    weight_fractions: Object.fromEntries(symbols.map((s, i) => [s, round(masses[i] / molarMass, 6)])),
    descriptors: {
      atoms_per_formula_unit: round(atoms, 6),
      mean_atomic_mass: round(molarMass / atoms, 3),
      mean_atomic_number: round(mean((e) => e.atomicNumber) as number, 3),
      mean_electronegativity: roundOrNull(
        mean((e) => e.electronegativity),
        3,
      ),
      electronegativity_difference: electronegativities.includes(null)
        ? null
        : round(Math.max(...(electronegativities as number[])) - Math.min(...(electronegativities as number[])), 3),
      mean_atomic_radius: roundOrNull(
        mean((e) => e.atomicRadius),
        1,
      ),
      mean_covalent_radius: roundOrNull(
        mean((e) => e.covalentRadius),
        1,
      ),
    },
    properties: Object.fromEntries(Object.entries(entry?.properties ?? {}).map(([name, [value, source]]) => [name, { value, source }])),
  };
}

// A partial mean over only the elements that have a value would describe a different material.
function weightedMean(values: (number | null)[], weights: number[], total: number): number | null {
  if (values.includes(null)) return null;
  return sum(values.map((v, i) => (v as number) * weights[i])) / total;
}

const ID_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * An id of src/ids.ts's shape (mat_ and 20 Crockford base32 characters), but derived from the
 * material rather than random: lookups store nothing, so a material must get the same id on every
 * request.
 */
function materialId(seed: string): string {
  const digest = createHash('sha256').update(seed).digest();
  let id = 'mat_';
  for (let i = 0; i < 20; i++) id += ID_ALPHABET[digest[i] & 31];
  return id;
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

// Abridged atomic weights carry no more than these digits; more would be noise in the response.
function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

function roundOrNull(value: number | null, digits: number): number | null {
  return value === null ? null : round(value, digits);
}
