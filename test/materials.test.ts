import test from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createApp } from '../src/api/app.js';
import { CATALOG } from '../src/materials/catalog.js';
import { ELEMENTS, elementBySymbol } from '../src/materials/elements.js';
import { FormulaError, formatFormula, parseFormula, reduceComposition } from '../src/materials/formula.js';
import { lookupMaterials } from '../src/materials/lookup.js';

const composition = (formula: string) => Object.fromEntries(parseFormula(formula));
const reduced = (formula: string) => formatFormula(reduceComposition(parseFormula(formula)));
const only = (formula: string) => {
  const records = lookupMaterials(formula);
  assert.equal(records.length, 1, `${formula} gives one record`);
  return records[0];
};

function assertFormulaError(formula: string, position: number, message: RegExp): void {
  assert.throws(
    () => parseFormula(formula),
    (error: unknown) => {
      assert.ok(error instanceof FormulaError, `${formula}: a FormulaError`);
      assert.equal(error.position, position, `${formula}: position (${error.message})`);
      assert.match(error.message, message);
      assert.match(error.message, new RegExp(`position ${position}\\b`));
      return true;
    },
  );
}

test('the parser reads nested parentheses and brackets', () => {
  assert.deepEqual(composition('Ca10(PO4)6(OH)2'), { Ca: 10, P: 6, O: 26, H: 2 });
  assert.deepEqual(composition('(CH3NH3)PbI3'), { C: 1, H: 6, N: 1, Pb: 1, I: 3 });
  assert.deepEqual(composition('CH3NH3PbI3'), { C: 1, H: 6, N: 1, Pb: 1, I: 3 });
  assert.deepEqual(composition('[Cu(NH3)4]SO4'), { Cu: 1, N: 4, H: 12, S: 1, O: 4 });
  assert.deepEqual(composition('K4[Fe(CN)6]'), { K: 4, Fe: 1, C: 6, N: 6 });
  assert.deepEqual(composition('Li7La3Zr2O12'), { Li: 7, La: 3, Zr: 2, O: 12 });
});

test('hydrates join with ·, * or ., with an optional coefficient', () => {
  const pentahydrate = { Cu: 1, S: 1, O: 9, H: 10 };
  assert.deepEqual(composition('CuSO4·5H2O'), pentahydrate);
  assert.deepEqual(composition('CuSO4*5H2O'), pentahydrate);
  assert.deepEqual(composition('CuSO4.5H2O'), pentahydrate);
  assert.deepEqual(composition('CuSO4.H2O'), { Cu: 1, S: 1, O: 5, H: 2 });
  assert.deepEqual(composition('CaSO4·0.5H2O'), { Ca: 1, S: 1, O: 4.5, H: 1 });
  assert.deepEqual(composition('CaSO4.0.5H2O'), { Ca: 1, S: 1, O: 4.5, H: 1 });
  assert.deepEqual(composition('Na12(AlO2)12(SiO2)12·27H2O'), { Na: 12, Al: 12, O: 75, Si: 12, H: 54 });
});

test('decimal counts are amounts, and a dot between digits is a decimal point unless water follows', () => {
  assert.deepEqual(composition('LiNi0.8Mn0.1Co0.1O2'), { Li: 1, Ni: 0.8, Mn: 0.1, Co: 0.1, O: 2 });
  assert.deepEqual(composition('Li4.4Si'), { Li: 4.4, Si: 1 });
  // 0.1 × 3 is 0.30000000000000004 in floating point
  assert.deepEqual(composition('(Co0.1)3O'), { Co: 0.3, O: 1 });
});

test('surrounding whitespace is trimmed; whitespace inside is an error', () => {
  assert.deepEqual(composition('  LiFePO4 '), { Li: 1, Fe: 1, P: 1, O: 4 });
  assertFormulaError('LiFe PO4', 4, /whitespace/);
  assertFormulaError('  Li Fe', 4, /whitespace/);
});

test('bad formulas say where they are wrong and what was expected', () => {
  assertFormulaError('', 0, /empty/);
  assertFormulaError('   ', 0, /empty/);
  assertFormulaError('lifepo4', 0, /lowercase.*capital/);
  assertFormulaError('Li2so4', 3, /"s".*lowercase/);
  assertFormulaError('LiXx2', 2, /unknown element "Xx"/);
  assertFormulaError('LiFeP(O4', 5, /"\(" at position 5 is never closed: expected "\)"/);
  assertFormulaError('LiFePO4)', 7, /no "\(" open/);
  assertFormulaError('(Li]', 3, /expected "\)" to close the "\(" at position 0/);
  assertFormulaError('Ca()2', 3, /expected an element symbol/);
  assertFormulaError('LiFePO4!', 7, /unexpected "!"/);
  assertFormulaError('H2O·', 4, /expected a formula after "·"/);
  assertFormulaError('Fe0O', 2, /zero/);
  assertFormulaError('0H2O', 0, /coefficient.*zero/);
  // charges are not part of a formula here
  assertFormulaError('Fe3+', 3, /unexpected "\+"/);
  assertFormulaError('SO4^2-', 3, /unexpected "\^"/);
});

test('molar masses match hand computation from the IUPAC 2021 abridged weights', () => {
  // H 1.008, Li 6.94, C 12.011, O 15.999, Na 22.990, P 30.974, S 32.06, Cl 35.45, Ca 40.078,
  // Mn 54.938, Fe 55.845, Co 58.933, Ni 58.693, Cu 63.546
  const expected: [string, number][] = [
    ['H2O', 2 * 1.008 + 15.999], // 18.015
    ['NaCl', 22.99 + 35.45], // 58.440
    ['LiFePO4', 6.94 + 55.845 + 30.974 + 4 * 15.999], // 157.755
    ['CuSO4·5H2O', 63.546 + 32.06 + 9 * 15.999 + 10 * 1.008], // 249.677
    ['Ca10(PO4)6(OH)2', 10 * 40.078 + 6 * 30.974 + 26 * 15.999 + 2 * 1.008], // 1004.614
    ['LiNi0.8Mn0.1Co0.1O2', 6.94 + 0.8 * 58.693 + 0.1 * 54.938 + 0.1 * 58.933 + 2 * 15.999], // 97.2795
    ['C6H12O6', 6 * 12.011 + 12 * 1.008 + 6 * 15.999], // 180.156
  ];
  const written = [18.015, 58.44, 157.755, 249.677, 1004.614, 97.2795, 180.156];
  expected.forEach(([formula, mass], i) => {
    assert.ok(Math.abs(mass - written[i]) < 1e-9, `the hand sum for ${formula}`);
    const got = only(formula).molar_mass;
    assert.ok(Math.abs(got - mass) <= 0.01, `${formula}: ${got} vs ${mass}`);
  });
});

test('reduced formulas divide whole-number counts by their divisor and print by electronegativity, as pymatgen does', () => {
  assert.equal(reduced('C6H12O6'), 'H2CO'); // pymatgen: Composition('C6H12O6').reduced_formula == 'H2CO'
  assert.equal(reduced('Fe2O3'), 'Fe2O3');
  assert.equal(reduced('O2'), 'O');
  assert.equal(reduced('H2O'), 'H2O');
  assert.equal(reduced('NaCl'), 'NaCl');
  assert.equal(reduced('FePO4Li'), 'LiFePO4');
  assert.equal(reduced('CH3NH3PbI3'), 'H6PbCI3N'); // H 2.20 < Pb 2.33 < C 2.55 < I 2.66 < N 3.04
  assert.equal(reduced('Ti2O4'), 'TiO2');
  assert.equal(reduced('LiNi0.8Mn0.1Co0.1O2'), 'LiMn0.1Co0.1Ni0.8O2');
  assert.equal(reduced('HeH'), 'HHe'); // helium has no Pauling value: last
  assert.equal(only('C6H12O6').reduced_formula, 'H2CO');
});

test('element and weight fractions sum to 1; water is 11.19 % hydrogen by mass', () => {
  for (const formula of ['H2O', 'LiNi0.8Mn0.1Co0.1O2', 'CuSO4·5H2O', 'Ca10(PO4)6(OH)2', 'Fe']) {
    const record = only(formula);
    const total = (fractions: Record<string, number>) => Object.values(fractions).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(total(record.element_fractions) - 1) < 1e-5, `${formula} element fractions`);
    assert.ok(Math.abs(total(record.weight_fractions) - 1) < 1e-5, `${formula} weight fractions`);
  }
  const water = only('H2O');
  assert.ok(Math.abs(water.weight_fractions.H - 0.1119) < 1e-4);
  assert.ok(Math.abs(water.weight_fractions.O - 0.8881) < 1e-4);
  assert.ok(Math.abs(water.element_fractions.H - 2 / 3) < 1e-5);
  assert.deepEqual(water.elements, ['H', 'O']);
  assert.deepEqual(water.composition, { H: 2, O: 1 });
});

test('descriptors are composition-weighted, and null where an element has no value', () => {
  const salt = only('NaCl').descriptors;
  assert.equal(salt.mean_electronegativity, 2.045); // (0.93 + 3.16) / 2
  assert.equal(salt.electronegativity_difference, 2.23);
  assert.equal(salt.atoms_per_formula_unit, 2);
  assert.equal(salt.mean_atomic_radius, 140); // (180 + 100) / 2
  assert.equal(only('He').descriptors.mean_electronegativity, null);
  assert.equal(only('Fe').descriptors.electronegativity_difference, 0);
});

test('the periodic table covers H to Og, with weights and placements', () => {
  assert.equal(ELEMENTS.length, 118);
  assert.equal(new Set(ELEMENTS.map((e) => e.symbol)).size, 118);
  ELEMENTS.forEach((e, i) => assert.equal(e.atomicNumber, i + 1));
  for (const e of ELEMENTS) assert.ok(e.atomicWeight > 0 && Number.isFinite(e.atomicWeight), e.symbol);
  assert.equal(elementBySymbol('Og')?.atomicNumber, 118);
  const place = (s: string) => {
    const e = elementBySymbol(s);
    return e && [e.group, e.period, e.block];
  };
  assert.deepEqual(place('H'), [1, 1, 's']);
  assert.deepEqual(place('He'), [18, 1, 's']);
  assert.deepEqual(place('O'), [16, 2, 'p']);
  assert.deepEqual(place('Fe'), [8, 4, 'd']);
  assert.deepEqual(place('La'), [null, 6, 'f']);
  assert.deepEqual(place('Lu'), [3, 6, 'd']);
  assert.deepEqual(place('Hg'), [12, 6, 'd']);
  assert.deepEqual(place('Pb'), [14, 6, 'p']);
  assert.deepEqual(place('U'), [null, 7, 'f']);
  assert.deepEqual(place('Og'), [18, 7, 'p']);
  assert.equal(elementBySymbol('U')?.massNumberOnly, false);
  assert.equal(elementBySymbol('Pu')?.massNumberOnly, true);
  assert.equal(elementBySymbol('Tc')?.massNumberOnly, true);
  assert.equal(elementBySymbol('Fe')?.massNumberOnly, false);
});

test('the catalog: at least 30 entries, each parses, every property cites a source', () => {
  assert.ok(CATALOG.length >= 30, `${CATALOG.length} entries`);
  assert.equal(new Set(CATALOG.map((e) => e.key)).size, CATALOG.length, 'keys are unique');
  for (const entry of CATALOG) {
    assert.doesNotThrow(() => parseFormula(entry.formula), entry.key);
    assert.ok(Object.keys(entry.properties).length > 0, `${entry.key} has properties`);
    for (const [name, [value, source]] of Object.entries(entry.properties)) {
      assert.ok(typeof value === 'number' ? Number.isFinite(value) : value.length > 0, `${entry.key}.${name} value`);
      assert.ok(source.length > 10, `${entry.key}.${name} cites a source`);
    }
  }
});

test('catalog theoretical capacities agree with Faraday’s law for one Li per formula unit', () => {
  for (const formula of ['LiFePO4', 'LiCoO2', 'LiMn2O4', 'LiNi0.8Mn0.1Co0.1O2', 'LiNi0.8Co0.15Al0.05O2', 'Li']) {
    const record = only(formula);
    const expected = 96485.33 / (3.6 * record.molar_mass);
    const stated = record.properties.theoretical_capacity_mah_g.value as number;
    assert.ok(Math.abs(stated - expected) < 1, `${formula}: ${stated} vs ${expected.toFixed(1)}`);
  }
});

test('lookups return every polymorph, or one computed record', () => {
  const titania = lookupMaterials('TiO2');
  assert.ok(titania.length >= 2);
  const names = titania.map((r) => r.name ?? '');
  assert.ok(names.some((n) => /anatase/.test(n)) && names.some((n) => /rutile/.test(n)), names.join('; '));
  for (const r of titania) {
    assert.equal(r.source, 'catalog');
    assert.equal(r.reduced_formula, 'TiO2');
    assert.match(r.id, /^mat_[0-9a-z]{20}$/);
  }
  assert.equal(new Set(titania.map((r) => r.id)).size, titania.length);
  assert.deepEqual(
    lookupMaterials('Ti2O4').map((r) => r.id),
    titania.map((r) => r.id),
  );
  assert.deepEqual(
    lookupMaterials('C').map((r) => r.name),
    ['Graphite', 'Diamond'],
  );
  assert.equal(lookupMaterials('LiCo0.1Mn0.1Ni0.8O2')[0].name, 'Lithium nickel manganese cobalt oxide (NMC811)');
  const rutile = titania.find((r) => /rutile/.test(r.name ?? ''));
  assert.equal(rutile?.properties.band_gap_ev.value, 3.0);
  assert.match(rutile?.properties.band_gap_ev.source ?? '', /doi:/);

  const hematite = only(' Fe2O3 ');
  assert.equal(hematite.source, 'computed');
  assert.equal(hematite.formula, 'Fe2O3');
  assert.equal(hematite.name, null);
  assert.deepEqual(hematite.properties, {});
  assert.equal(only('Fe2O3').id, hematite.id, 'ids are stable');
  assert.notEqual(only('Fe3O4').source, 'computed');
});

test('GET /v1/materials answers records, and 422 with the position for a bad formula', async () => {
  const { app } = createApp({
    logger: pino({ level: 'silent' }),
    health: async () => ({ status: 'ok', database: 'ok', tensor_backend: 'wasm', tensor_device: null, workers: [] }),
    db: {} as never,
    datasets: {} as never,
    templates: {} as never,
    tokens: {} as never,
    socialLogin: {} as never,
    version: 'test',
    authenticate: async () => ({ organizationId: 'org_test', plan: 'free', keyId: 'key_test', scopes: ['admin'] }),
  });
  const handle = app.callback(); // settles every request itself, errors included
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const get = async (formula: string) => {
    const res = await fetch(`${base}/materials?formula=${encodeURIComponent(formula)}`);
    return { status: res.status, body: await res.json() };
  };
  try {
    const lfp = await get('LiFePO4');
    assert.equal(lfp.status, 200);
    assert.equal(lfp.body.data.length, 1);
    const [record] = lfp.body.data;
    assert.equal(record.source, 'catalog');
    assert.match(record.id, /^mat_/);
    assert.equal(record.reduced_formula, 'LiFePO4');
    assert.equal(record.formula, 'LiFePO4', 'formula as given');
    const reordered = await get('O4PFeLi');
    assert.equal(reordered.body.data[0].id, record.id, 'any ordering finds the same record');
    assert.equal(reordered.body.data[0].formula, 'LiFePO4', 'a catalog record keeps its own formula');
    const computedOrder = await get('O2Zn');
    assert.equal(computedOrder.body.data[0].formula, 'O2Zn', 'a computed record keeps the formula as given');
    assert.equal(computedOrder.body.data[0].reduced_formula, 'ZnO2');
    assert.deepEqual(record.elements, ['Fe', 'Li', 'O', 'P']);
    assert.ok(Math.abs(record.molar_mass - 157.755) <= 0.01);
    assert.equal(record.properties.theoretical_capacity_mah_g.value, 170);

    const computed = await get('CuSO4·5H2O');
    assert.equal(computed.status, 200);
    assert.equal(computed.body.data.length, 1, 'a valid formula always gives at least one record');
    assert.equal(computed.body.data[0].source, 'computed');

    const bad = await get('LiFeP(O4');
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.code, 'VALIDATION_FAILED');
    assert.equal(bad.body.error.details.errors[0].path, 'formula');
    assert.match(bad.body.error.details.errors[0].message, /position 5/);

    const unknown = await get('Xx2O');
    assert.equal(unknown.status, 422);
    assert.match(unknown.body.error.details.errors[0].message, /unknown element "Xx" at position 0/);

    const missing = await fetch(`${base}/materials`);
    assert.equal(missing.status, 422);
    assert.equal((await missing.json()).error.details.errors[0].path, 'formula');

    const doc = await (await fetch(`${base}/openapi.json`)).json();
    assert.equal(doc.paths['/v1/materials'].get.operationId, 'lookupMaterials');
  } finally {
    server.close();
  }
});
