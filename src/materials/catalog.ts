/**
 * A small curated catalog of well-known materials. Every property value names its public source;
 * only textbook-level values are here, rounded as the source gives them. Polymers are listed by
 * their repeat unit (PVDF as C2H2F2).
 *
 * Property names carry their units:
 * - structure_type, crystal_system, space_group (Hermann–Mauguin symbol and number), at room temperature
 * - density_g_cm3
 * - band_gap_ev (300 K; indirect for Si, Ge, diamond and bulk MoS2)
 * - theoretical_capacity_mah_g: Faraday's law on the named lithiation reaction
 * - average_voltage_v: versus Li+/Li
 * - room_temperature_ionic_conductivity_s_cm
 * - melting_point_c, pore_aperture_nm, framework_type (IZA code)
 */

export type Application =
  | 'battery_cathode'
  | 'battery_anode'
  | 'solid_electrolyte'
  | 'photovoltaic_absorber'
  | 'semiconductor'
  | 'electrocatalyst'
  | 'photocatalyst'
  | 'polymer'
  | 'membrane'
  | 'adsorbent'
  | 'ceramic';

/** a value and the citation it comes from */
export type Sourced = readonly [value: number | string, source: string];

export interface CatalogEntry {
  /** stable slug; the material id derives from it */
  key: string;
  name: string;
  formula: string;
  applications: readonly Application[];
  properties: Readonly<Record<string, Sourced>>;
}

const CRC = 'W. M. Haynes (ed.), CRC Handbook of Chemistry and Physics, 97th ed. (CRC Press, 2016)';
const WYCKOFF = 'R. W. G. Wyckoff, Crystal Structures, 2nd ed., vols. 1–2 (Interscience, 1963–1964)';
const SZE = 'S. M. Sze, K. K. Ng, Physics of Semiconductor Devices, 3rd ed. (Wiley, 2007), appendices (300 K values)';
const NITTA = 'N. Nitta, F. Wu, J. T. Lee, G. Yushin, Mater. Today 18 (2015) 252–264, doi:10.1016/j.mattod.2014.10.001';
const PADHI = 'A. K. Padhi, K. S. Nanjundaswamy, J. B. Goodenough, J. Electrochem. Soc. 144 (1997) 1188–1194, doi:10.1149/1.1837571';
const MIZUSHIMA = 'K. Mizushima, P. C. Jones, P. J. Wiseman, J. B. Goodenough, Mater. Res. Bull. 15 (1980) 783–789, doi:10.1016/0025-5408(80)90012-4';
const THACKERAY = 'M. M. Thackeray, W. I. F. David, P. G. Bruce, J. B. Goodenough, Mater. Res. Bull. 18 (1983) 461–472, doi:10.1016/0025-5408(83)90138-1';
const NOH = 'H.-J. Noh, S. Youn, C. S. Yoon, Y.-K. Sun, J. Power Sources 233 (2013) 121–130, doi:10.1016/j.jpowsour.2013.01.063';
const OHZUKU = 'T. Ohzuku, A. Ueda, N. Yamamoto, J. Electrochem. Soc. 142 (1995) 1431–1435, doi:10.1149/1.2048592';
const MURUGAN = 'R. Murugan, V. Thangadurai, W. Weppner, Angew. Chem. Int. Ed. 46 (2007) 7778–7781, doi:10.1002/anie.200701144';
const KAMAYA = 'N. Kamaya et al., Nat. Mater. 10 (2011) 682–686, doi:10.1038/nmat3066';
const LUQUE = 'A. Luque, S. Hegedus (eds.), Handbook of Photovoltaic Science and Engineering, 2nd ed. (Wiley, 2011), chs. 13 (Cu(InGa)Se2) and 14 (CdTe)';
const SHAY = 'J. L. Shay, J. H. Wernick, Ternary Chalcopyrite Semiconductors (Pergamon, 1975)';
const GREEN = 'M. A. Green, A. Ho-Baillie, H. J. Snaith, Nat. Photonics 8 (2014) 506–514, doi:10.1038/nphoton.2014.134';
const POGLITSCH = 'A. Poglitsch, D. Weber, J. Chem. Phys. 87 (1987) 6373–6378, doi:10.1063/1.453467';
const EPERON = 'G. E. Eperon et al., J. Mater. Chem. A 3 (2015) 19688–19695, doi:10.1039/C5TA06398A';
const DIEBOLD = 'U. Diebold, Surf. Sci. Rep. 48 (2003) 53–229, doi:10.1016/S0167-5729(02)00100-0';
const LEE = 'Y. Lee, J. Suntivich, K. J. May, E. E. Perry, Y. Shao-Horn, J. Phys. Chem. Lett. 3 (2012) 399–404, doi:10.1021/jz2016507';
const MAK = 'K. F. Mak, C. Lee, J. Hone, J. Shan, T. F. Heinz, Phys. Rev. Lett. 105 (2010) 136805, doi:10.1103/PhysRevLett.105.136805';
const WANG = 'X. Wang et al., Nat. Mater. 8 (2009) 76–80, doi:10.1038/nmat2317';
const OZGUR = 'Ü. Özgür et al., J. Appl. Phys. 98 (2005) 041301, doi:10.1063/1.1992666';
const CORNELL = 'R. M. Cornell, U. Schwertmann, The Iron Oxides, 2nd ed. (Wiley-VCH, 2003)';
const WEFERS = 'K. Wefers, C. Misra, Oxides and Hydroxides of Aluminum, Alcoa Technical Paper 19 (Alcoa Laboratories, 1987)';
const ATLAS = 'Ch. Baerlocher, L. B. McCusker, D. H. Olson, Atlas of Zeolite Framework Types, 6th ed. (Elsevier, 2007); IZA Structure Commission database';
const BRECK = 'D. W. Breck, Zeolite Molecular Sieves (Wiley, 1974)';
const ELLIOTT = 'J. C. Elliott, Structure and Chemistry of the Apatites and Other Calcium Orthophosphates (Elsevier, 1994)';
const CALLISTER = 'W. D. Callister, D. G. Rethwisch, Materials Science and Engineering: An Introduction, 9th ed. (Wiley, 2014)';
const AMEDURI = 'B. Ameduri, Chem. Rev. 109 (2009) 6632–6686, doi:10.1021/cr800187m';

/** A derived value says how it was derived, so it can be checked like a cited one. */
const faraday = (reaction: string) =>
  `computed by Faraday's law, Q = n·F/(3.6·M), for ${reaction}, with F = 96485.33 C/mol and M from the IUPAC 2021 atomic weights`;

function structure(type: string, system: string, spaceGroup: string, source: string): Record<string, Sourced> {
  return { structure_type: [type, source], crystal_system: [system, source], space_group: [spaceGroup, source] };
}

const LAYERED = 'layered (α-NaFeO2 type)';

export const CATALOG: readonly CatalogEntry[] = [
  // Battery electrodes
  entry('lifepo4-olivine', 'Lithium iron phosphate (LFP)', 'LiFePO4', ['battery_cathode'], {
    ...structure('olivine', 'orthorhombic', 'Pnma (No. 62)', PADHI),
    theoretical_capacity_mah_g: [170, faraday('n = 1 Li per LiFePO4')],
    average_voltage_v: [3.4, NITTA],
  }),
  entry('licoo2-layered', 'Lithium cobalt oxide (LCO)', 'LiCoO2', ['battery_cathode'], {
    ...structure(LAYERED, 'trigonal', 'R-3m (No. 166)', MIZUSHIMA),
    theoretical_capacity_mah_g: [274, faraday('n = 1 Li per LiCoO2')],
    average_voltage_v: [3.8, NITTA],
  }),
  entry('limn2o4-spinel', 'Lithium manganese oxide spinel (LMO)', 'LiMn2O4', ['battery_cathode'], {
    ...structure('spinel', 'cubic', 'Fd-3m (No. 227)', THACKERAY),
    theoretical_capacity_mah_g: [148, faraday('n = 1 Li per LiMn2O4')],
    average_voltage_v: [4.1, NITTA],
  }),
  entry('nmc811', 'Lithium nickel manganese cobalt oxide (NMC811)', 'LiNi0.8Mn0.1Co0.1O2', ['battery_cathode'], {
    ...structure(LAYERED, 'trigonal', 'R-3m (No. 166)', NOH),
    theoretical_capacity_mah_g: [276, faraday('n = 1 Li per LiNi0.8Mn0.1Co0.1O2')],
  }),
  entry('nca', 'Lithium nickel cobalt aluminium oxide (NCA)', 'LiNi0.8Co0.15Al0.05O2', ['battery_cathode'], {
    ...structure(LAYERED, 'trigonal', 'R-3m (No. 166)', NITTA),
    theoretical_capacity_mah_g: [279, faraday('n = 1 Li per LiNi0.8Co0.15Al0.05O2')],
    average_voltage_v: [3.7, NITTA],
  }),
  entry('graphite', 'Graphite', 'C', ['battery_anode'], {
    ...structure('graphite (AB stacking)', 'hexagonal', 'P6_3/mmc (No. 194)', WYCKOFF),
    theoretical_capacity_mah_g: [372, faraday('n = 1 Li per 6 C (LiC6)')],
  }),
  entry('li4ti5o12-spinel', 'Lithium titanate (LTO)', 'Li4Ti5O12', ['battery_anode'], {
    ...structure('spinel', 'cubic', 'Fd-3m (No. 227)', OHZUKU),
    theoretical_capacity_mah_g: [175, faraday('n = 3 Li per Li4Ti5O12 (to Li7Ti5O12)')],
    average_voltage_v: [1.55, OHZUKU],
  }),
  entry('silicon', 'Silicon', 'Si', ['battery_anode', 'photovoltaic_absorber', 'semiconductor'], {
    ...structure('diamond cubic', 'cubic', 'Fd-3m (No. 227)', SZE),
    density_g_cm3: [2.33, SZE],
    band_gap_ev: [1.12, SZE],
    theoretical_capacity_mah_g: [
      3579,
      faraday(
        'n = 3.75 Li per Si (Li15Si4, the end phase at room temperature: M. N. Obrovac, L. Christensen, Electrochem. Solid-State Lett. 7 (2004) A93, doi:10.1149/1.1652421)',
      ),
    ],
  }),
  entry('lithium-metal', 'Lithium metal', 'Li', ['battery_anode'], {
    ...structure('body-centred cubic', 'cubic', 'Im-3m (No. 229)', WYCKOFF),
    density_g_cm3: [0.534, CRC],
    theoretical_capacity_mah_g: [3862, faraday('n = 1 Li per Li')],
  }),

  // Solid electrolytes
  entry('llzo-cubic', 'Lithium lanthanum zirconium oxide (LLZO), cubic garnet', 'Li7La3Zr2O12', ['solid_electrolyte'], {
    ...structure('garnet', 'cubic', 'Ia-3d (No. 230)', MURUGAN),
    room_temperature_ionic_conductivity_s_cm: [3e-4, MURUGAN],
  }),
  entry('lgps', 'Lithium germanium thiophosphate (LGPS)', 'Li10GeP2S12', ['solid_electrolyte'], {
    crystal_system: ['tetragonal', KAMAYA],
    space_group: ['P4_2/nmc (No. 137)', KAMAYA],
    room_temperature_ionic_conductivity_s_cm: [1.2e-2, KAMAYA],
  }),

  // Semiconductors and photovoltaic absorbers
  entry('germanium', 'Germanium', 'Ge', ['semiconductor'], {
    ...structure('diamond cubic', 'cubic', 'Fd-3m (No. 227)', SZE),
    density_g_cm3: [5.33, SZE],
    band_gap_ev: [0.66, SZE],
  }),
  entry('diamond', 'Diamond', 'C', ['semiconductor'], {
    ...structure('diamond cubic', 'cubic', 'Fd-3m (No. 227)', WYCKOFF),
    density_g_cm3: [3.51, CRC],
    band_gap_ev: [5.47, SZE],
  }),
  entry('gaas', 'Gallium arsenide', 'GaAs', ['photovoltaic_absorber', 'semiconductor'], {
    ...structure('zinc blende', 'cubic', 'F-43m (No. 216)', SZE),
    density_g_cm3: [5.32, SZE],
    band_gap_ev: [1.42, SZE],
  }),
  entry('cdte', 'Cadmium telluride', 'CdTe', ['photovoltaic_absorber', 'semiconductor'], {
    ...structure('zinc blende', 'cubic', 'F-43m (No. 216)', WYCKOFF),
    density_g_cm3: [5.85, CRC],
    band_gap_ev: [1.5, LUQUE],
  }),
  entry('mapbi3', 'Methylammonium lead iodide (MAPbI3)', 'CH3NH3PbI3', ['photovoltaic_absorber'], {
    ...structure('perovskite', 'tetragonal', 'I4/mcm (No. 140)', POGLITSCH),
    band_gap_ev: [1.55, GREEN],
  }),
  entry('cspbi3-alpha', 'Caesium lead iodide, black α phase', 'CsPbI3', ['photovoltaic_absorber'], {
    ...structure('perovskite', 'cubic', 'Pm-3m (No. 221)', EPERON),
    band_gap_ev: [1.73, EPERON],
  }),
  entry('cigs', 'Copper indium gallium selenide (CIGS), Ga/(In+Ga) = 0.3', 'CuIn0.7Ga0.3Se2', ['photovoltaic_absorber'], {
    ...structure('chalcopyrite', 'tetragonal', 'I-42d (No. 122)', LUQUE),
  }),
  entry('cuinse2', 'Copper indium diselenide (CIS)', 'CuInSe2', ['photovoltaic_absorber'], {
    ...structure('chalcopyrite', 'tetragonal', 'I-42d (No. 122)', SHAY),
    band_gap_ev: [1.04, LUQUE],
  }),

  // Catalysts
  entry('tio2-anatase', 'Titanium dioxide, anatase', 'TiO2', ['photocatalyst'], {
    ...structure('anatase', 'tetragonal', 'I4_1/amd (No. 141)', DIEBOLD),
    band_gap_ev: [3.2, DIEBOLD],
  }),
  entry('tio2-rutile', 'Titanium dioxide, rutile', 'TiO2', ['photocatalyst'], {
    ...structure('rutile', 'tetragonal', 'P4_2/mnm (No. 136)', DIEBOLD),
    band_gap_ev: [3.0, DIEBOLD],
  }),
  entry('tio2-brookite', 'Titanium dioxide, brookite', 'TiO2', ['photocatalyst'], {
    ...structure('brookite', 'orthorhombic', 'Pbca (No. 61)', DIEBOLD),
  }),
  entry('platinum', 'Platinum', 'Pt', ['electrocatalyst'], {
    ...structure('face-centred cubic', 'cubic', 'Fm-3m (No. 225)', WYCKOFF),
    density_g_cm3: [21.5, CRC],
  }),
  entry('nio', 'Nickel(II) oxide', 'NiO', ['electrocatalyst'], {
    ...structure('rock salt', 'cubic', 'Fm-3m (No. 225)', WYCKOFF),
  }),
  entry('iro2-rutile', 'Iridium dioxide', 'IrO2', ['electrocatalyst'], {
    ...structure('rutile', 'tetragonal', 'P4_2/mnm (No. 136)', LEE),
  }),
  entry('ruo2-rutile', 'Ruthenium dioxide', 'RuO2', ['electrocatalyst'], {
    ...structure('rutile', 'tetragonal', 'P4_2/mnm (No. 136)', LEE),
  }),
  entry('mos2-2h', 'Molybdenum disulfide, 2H', 'MoS2', ['electrocatalyst', 'semiconductor'], {
    ...structure('molybdenite (2H)', 'hexagonal', 'P6_3/mmc (No. 194)', WYCKOFF),
    band_gap_ev: [1.29, MAK],
    monolayer_band_gap_ev: [1.9, MAK],
  }),
  entry('g-c3n4', 'Graphitic carbon nitride (g-C3N4)', 'C3N4', ['photocatalyst'], {
    band_gap_ev: [2.7, WANG],
  }),
  entry('zno-wurtzite', 'Zinc oxide', 'ZnO', ['photocatalyst', 'semiconductor'], {
    ...structure('wurtzite', 'hexagonal', 'P6_3mc (No. 186)', OZGUR),
    band_gap_ev: [3.37, OZGUR],
  }),

  // Water treatment: adsorbents, ion exchangers, ceramic membranes
  entry('alpha-al2o3', 'α-Alumina (corundum)', 'Al2O3', ['ceramic', 'membrane'], {
    ...structure('corundum', 'trigonal', 'R-3c (No. 167)', WYCKOFF),
    density_g_cm3: [3.99, CRC],
  }),
  entry('gamma-al2o3', 'γ-Alumina (activated alumina)', 'Al2O3', ['adsorbent'], {
    ...structure('defect spinel', 'cubic', 'Fd-3m (No. 227)', WEFERS),
  }),
  entry('zeolite-4a', 'Zeolite 4A (sodium zeolite A)', 'Na12(AlO2)12(SiO2)12·27H2O', ['adsorbent'], {
    framework_type: ['LTA', ATLAS],
    crystal_system: ['cubic', ATLAS],
    pore_aperture_nm: [0.4, BRECK],
  }),
  entry('hydroxyapatite', 'Hydroxyapatite', 'Ca10(PO4)6(OH)2', ['adsorbent'], {
    ...structure('apatite', 'hexagonal', 'P6_3/m (No. 176)', ELLIOTT),
    density_g_cm3: [3.16, ELLIOTT],
  }),
  entry('magnetite', 'Magnetite', 'Fe3O4', ['adsorbent'], {
    ...structure('inverse spinel', 'cubic', 'Fd-3m (No. 227)', CORNELL),
  }),

  // Polymers and membranes, by repeat unit
  entry('nylon-66', 'Nylon 6,6 (polyamide 66), repeat unit', 'C12H22N2O2', ['polymer', 'membrane'], {
    density_g_cm3: [1.14, CALLISTER],
    melting_point_c: [265, CALLISTER],
  }),
  entry('ptfe', 'Polytetrafluoroethylene (PTFE), repeat unit', 'C2F4', ['polymer', 'membrane'], {
    melting_point_c: [327, CALLISTER],
  }),
  entry('pvdf', 'Poly(vinylidene fluoride) (PVDF), repeat unit', 'C2H2F2', ['polymer', 'membrane'], {
    density_g_cm3: [1.78, AMEDURI],
  }),
];

function entry(key: string, name: string, formula: string, applications: Application[], properties: Record<string, Sourced>): CatalogEntry {
  return { key, name, formula, applications, properties };
}
