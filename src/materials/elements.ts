/**
 * The periodic table, H to Og, with the properties the materials descriptors are built from.
 *
 * Sources:
 * - Atomic weights: IUPAC 2021 standard atomic weights (T. Prohaska et al., Pure Appl. Chem. 94
 *   (2022) 573–600, doi:10.1515/pac-2019-0603), the abridged values, and the conventional values for
 *   the elements whose standard weight is an interval (H, Li, B, C, N, O, Mg, Si, S, Cl, Ar, Br, Tl,
 *   Pb). Elements without a standard atomic weight (Tc, Pm, Po–Ac, Np onwards) carry the mass number
 *   of their longest-lived known isotope instead, flagged by `massNumberOnly`; for the
 *   superheavy elements that number moves as new isotopes are made.
 * - Electronegativity: Pauling scale as revised by A. L. Allred, J. Inorg. Nucl. Chem. 17 (1961)
 *   215–221, doi:10.1016/0022-1902(61)80142-5, as tabulated in the CRC Handbook of Chemistry and
 *   Physics. Null where no value is generally agreed (He, Ne, Ar, Rn, Fr, Pm, Eu, Tb, Yb, Am
 *   onwards). Pb is Pb(IV)'s 2.33.
 * - Atomic radius: J. C. Slater's empirical radii, J. Chem. Phys. 41 (1964) 3199–3204,
 *   doi:10.1063/1.1725697 (±5 pm); Slater gives none for the noble gases, At, Fr, or Cm onwards.
 * - Covalent radius: single-bond radii of B. Cordero et al., Dalton Trans. (2008) 2832–2838,
 *   doi:10.1039/b801115j, for Z ≤ 96: sp3 carbon, and low-spin Mn, Fe and Co.
 * - Group, period and block follow from Z (see `placement`), in the layout with La–Yb and Ac–No
 *   as the f-block and Lu and Lr in group 3.
 */

export type Block = 's' | 'p' | 'd' | 'f';

export interface Element {
  atomicNumber: number;
  symbol: string;
  name: string;
  /** g/mol */
  atomicWeight: number;
  /** atomicWeight is the mass number of the longest-lived isotope, not a standard atomic weight */
  massNumberOnly: boolean;
  electronegativity: number | null;
  /** pm */
  atomicRadius: number | null;
  /** pm */
  covalentRadius: number | null;
  /** null for the f-block, which has no IUPAC group number */
  group: number | null;
  period: number;
  block: Block;
}

type Row = [symbol: string, name: string, weight: number, electronegativity: number | null, atomicRadius: number | null, covalentRadius: number | null];

// In atomic-number order: row i is Z = i + 1.
const ROWS: Row[] = [
  ['H', 'Hydrogen', 1.008, 2.2, 25, 31],
  ['He', 'Helium', 4.0026, null, null, 28],
  ['Li', 'Lithium', 6.94, 0.98, 145, 128],
  ['Be', 'Beryllium', 9.0122, 1.57, 105, 96],
  ['B', 'Boron', 10.81, 2.04, 85, 84],
  ['C', 'Carbon', 12.011, 2.55, 70, 76],
  ['N', 'Nitrogen', 14.007, 3.04, 65, 71],
  ['O', 'Oxygen', 15.999, 3.44, 60, 66],
  ['F', 'Fluorine', 18.998, 3.98, 50, 57],
  ['Ne', 'Neon', 20.18, null, null, 58],
  ['Na', 'Sodium', 22.99, 0.93, 180, 166],
  ['Mg', 'Magnesium', 24.305, 1.31, 150, 141],
  ['Al', 'Aluminium', 26.982, 1.61, 125, 121],
  ['Si', 'Silicon', 28.085, 1.9, 110, 111],
  ['P', 'Phosphorus', 30.974, 2.19, 100, 107],
  ['S', 'Sulfur', 32.06, 2.58, 100, 105],
  ['Cl', 'Chlorine', 35.45, 3.16, 100, 102],
  ['Ar', 'Argon', 39.95, null, null, 106],
  ['K', 'Potassium', 39.098, 0.82, 220, 203],
  ['Ca', 'Calcium', 40.078, 1.0, 180, 176],
  ['Sc', 'Scandium', 44.956, 1.36, 160, 170],
  ['Ti', 'Titanium', 47.867, 1.54, 140, 160],
  ['V', 'Vanadium', 50.942, 1.63, 135, 153],
  ['Cr', 'Chromium', 51.996, 1.66, 140, 139],
  ['Mn', 'Manganese', 54.938, 1.55, 140, 139],
  ['Fe', 'Iron', 55.845, 1.83, 140, 132],
  ['Co', 'Cobalt', 58.933, 1.88, 135, 126],
  ['Ni', 'Nickel', 58.693, 1.91, 135, 124],
  ['Cu', 'Copper', 63.546, 1.9, 135, 132],
  ['Zn', 'Zinc', 65.38, 1.65, 135, 122],
  ['Ga', 'Gallium', 69.723, 1.81, 130, 122],
  ['Ge', 'Germanium', 72.63, 2.01, 125, 120],
  ['As', 'Arsenic', 74.922, 2.18, 115, 119],
  ['Se', 'Selenium', 78.971, 2.55, 115, 120],
  ['Br', 'Bromine', 79.904, 2.96, 115, 120],
  ['Kr', 'Krypton', 83.798, 3.0, null, 116],
  ['Rb', 'Rubidium', 85.468, 0.82, 235, 220],
  ['Sr', 'Strontium', 87.62, 0.95, 200, 195],
  ['Y', 'Yttrium', 88.906, 1.22, 180, 190],
  ['Zr', 'Zirconium', 91.224, 1.33, 155, 175],
  ['Nb', 'Niobium', 92.906, 1.6, 145, 164],
  ['Mo', 'Molybdenum', 95.95, 2.16, 145, 154],
  ['Tc', 'Technetium', 97, 1.9, 135, 147],
  ['Ru', 'Ruthenium', 101.07, 2.2, 130, 146],
  ['Rh', 'Rhodium', 102.91, 2.28, 135, 142],
  ['Pd', 'Palladium', 106.42, 2.2, 140, 139],
  ['Ag', 'Silver', 107.87, 1.93, 160, 145],
  ['Cd', 'Cadmium', 112.41, 1.69, 155, 144],
  ['In', 'Indium', 114.82, 1.78, 155, 142],
  ['Sn', 'Tin', 118.71, 1.96, 145, 139],
  ['Sb', 'Antimony', 121.76, 2.05, 145, 139],
  ['Te', 'Tellurium', 127.6, 2.1, 140, 138],
  ['I', 'Iodine', 126.9, 2.66, 140, 139],
  ['Xe', 'Xenon', 131.29, 2.6, null, 140],
  ['Cs', 'Caesium', 132.91, 0.79, 260, 244],
  ['Ba', 'Barium', 137.33, 0.89, 215, 215],
  ['La', 'Lanthanum', 138.91, 1.1, 195, 207],
  ['Ce', 'Cerium', 140.12, 1.12, 185, 204],
  ['Pr', 'Praseodymium', 140.91, 1.13, 185, 203],
  ['Nd', 'Neodymium', 144.24, 1.14, 185, 201],
  ['Pm', 'Promethium', 145, null, 185, 199],
  ['Sm', 'Samarium', 150.36, 1.17, 185, 198],
  ['Eu', 'Europium', 151.96, null, 185, 198],
  ['Gd', 'Gadolinium', 157.25, 1.2, 180, 196],
  ['Tb', 'Terbium', 158.93, null, 175, 194],
  ['Dy', 'Dysprosium', 162.5, 1.22, 175, 192],
  ['Ho', 'Holmium', 164.93, 1.23, 175, 192],
  ['Er', 'Erbium', 167.26, 1.24, 175, 189],
  ['Tm', 'Thulium', 168.93, 1.25, 175, 190],
  ['Yb', 'Ytterbium', 173.05, null, 175, 187],
  ['Lu', 'Lutetium', 174.97, 1.27, 175, 187],
  ['Hf', 'Hafnium', 178.49, 1.3, 155, 175],
  ['Ta', 'Tantalum', 180.95, 1.5, 145, 170],
  ['W', 'Tungsten', 183.84, 2.36, 135, 162],
  ['Re', 'Rhenium', 186.21, 1.9, 135, 151],
  ['Os', 'Osmium', 190.23, 2.2, 130, 144],
  ['Ir', 'Iridium', 192.22, 2.2, 135, 141],
  ['Pt', 'Platinum', 195.08, 2.28, 135, 136],
  ['Au', 'Gold', 196.97, 2.54, 135, 136],
  ['Hg', 'Mercury', 200.59, 2.0, 150, 132],
  ['Tl', 'Thallium', 204.38, 1.62, 190, 145],
  ['Pb', 'Lead', 207.2, 2.33, 180, 146],
  ['Bi', 'Bismuth', 208.98, 2.02, 160, 148],
  ['Po', 'Polonium', 209, 2.0, 190, 140],
  ['At', 'Astatine', 210, 2.2, null, 150],
  ['Rn', 'Radon', 222, null, null, 150],
  ['Fr', 'Francium', 223, null, null, 260],
  ['Ra', 'Radium', 226, 0.9, 215, 221],
  ['Ac', 'Actinium', 227, 1.1, 195, 215],
  ['Th', 'Thorium', 232.04, 1.3, 180, 206],
  ['Pa', 'Protactinium', 231.04, 1.5, 180, 200],
  ['U', 'Uranium', 238.03, 1.38, 175, 196],
  ['Np', 'Neptunium', 237, 1.36, 175, 190],
  ['Pu', 'Plutonium', 244, 1.28, 175, 187],
  ['Am', 'Americium', 243, null, 175, 180],
  ['Cm', 'Curium', 247, null, null, 169],
  ['Bk', 'Berkelium', 247, null, null, null],
  ['Cf', 'Californium', 251, null, null, null],
  ['Es', 'Einsteinium', 252, null, null, null],
  ['Fm', 'Fermium', 257, null, null, null],
  ['Md', 'Mendelevium', 258, null, null, null],
  ['No', 'Nobelium', 259, null, null, null],
  ['Lr', 'Lawrencium', 266, null, null, null],
  ['Rf', 'Rutherfordium', 267, null, null, null],
  ['Db', 'Dubnium', 268, null, null, null],
  ['Sg', 'Seaborgium', 269, null, null, null],
  ['Bh', 'Bohrium', 270, null, null, null],
  ['Hs', 'Hassium', 269, null, null, null],
  ['Mt', 'Meitnerium', 278, null, null, null],
  ['Ds', 'Darmstadtium', 281, null, null, null],
  ['Rg', 'Roentgenium', 282, null, null, null],
  ['Cn', 'Copernicium', 285, null, null, null],
  ['Nh', 'Nihonium', 286, null, null, null],
  ['Fl', 'Flerovium', 289, null, null, null],
  ['Mc', 'Moscovium', 290, null, null, null],
  ['Lv', 'Livermorium', 293, null, null, null],
  ['Ts', 'Tennessine', 294, null, null, null],
  ['Og', 'Oganesson', 294, null, null, null],
];

// From Po on nothing is stable; Th, Pa and U still have standard atomic weights because their
// terrestrial isotopic composition is fixed enough.
const STANDARD_WEIGHT_WITHOUT_STABLE_ISOTOPE = new Set(['Th', 'Pa', 'U']);
const NO_STABLE_ISOTOPE_BEFORE_PO = new Set(['Tc', 'Pm']);

/** The last atomic number of each period. */
const PERIOD_ENDS = [2, 10, 18, 36, 54, 86, 118];

/** Group, period and block from the atomic number alone (the table's shape is fixed). */
function placement(z: number): Pick<Element, 'group' | 'period' | 'block'> {
  const period = PERIOD_ENDS.findIndex((end) => z <= end) + 1;
  const start = period === 1 ? 1 : PERIOD_ENDS[period - 2] + 1;
  const width = PERIOD_ENDS[period - 1] - start + 1;
  const fromEnd = PERIOD_ENDS[period - 1] - z;
  const at = z - start;
  if (period === 1) return { period, group: z === 1 ? 1 : 18, block: 's' };
  if (at < 2) return { period, group: at + 1, block: 's' };
  if (fromEnd < 6) return { period, group: 18 - fromEnd, block: 'p' };
  // what lies between the s- and p-blocks: 10 d columns, preceded by 14 f columns in periods 6 and 7
  const fWidth = width === 32 ? 14 : 0;
  if (at - 2 < fWidth) return { period, group: null, block: 'f' };
  return { period, group: at - fWidth + 1, block: 'd' };
}

function massNumberOnly(symbol: string, z: number): boolean {
  if (NO_STABLE_ISOTOPE_BEFORE_PO.has(symbol)) return true;
  return z >= 84 && !STANDARD_WEIGHT_WITHOUT_STABLE_ISOTOPE.has(symbol);
}

export const ELEMENTS: readonly Element[] = ROWS.map(([symbol, name, atomicWeight, electronegativity, atomicRadius, covalentRadius], i) => ({
  atomicNumber: i + 1,
  symbol,
  name,
  atomicWeight,
  massNumberOnly: massNumberOnly(symbol, i + 1),
  electronegativity,
  atomicRadius,
  covalentRadius,
  ...placement(i + 1),
}));

const BY_SYMBOL = new Map(ELEMENTS.map((e) => [e.symbol, e]));

export function elementBySymbol(symbol: string): Element | undefined {
  return BY_SYMBOL.get(symbol);
}
