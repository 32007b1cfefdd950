import { z } from 'zod';
import { FormulaError } from '../../materials/formula.js';
import { lookupMaterials } from '../../materials/lookup.js';
import { validationFailed } from '../../service/validation.js';
import type { RouteTable } from '../route.js';

const tag = 'Materials';

const materialsQuery = z.object({
  formula: z
    .string()
    .min(1)
    .max(200)
    .describe('a chemical formula, e.g. LiFePO4, Ca10(PO4)6(OH)2, CuSO4·5H2O or LiNi0.8Mn0.1Co0.1O2'),
});

const fractions = z.record(z.string(), z.number());

const materialSchema = z.object({
  id: z.string().describe('mat_…, stable for the same material'),
  source: z.enum(['catalog', 'computed']).describe('catalog: a curated entry with cited properties; computed: derived from the formula alone'),
  name: z.string().nullable(),
  applications: z.array(z.string()),
  formula: z.string(),
  reduced_formula: z.string().describe('Hill order, divided by the common divisor of whole-number counts'),
  elements: z.array(z.string()).describe('Hill order'),
  composition: fractions.describe('element → count per formula unit'),
  molar_mass: z.number().describe('g/mol, from the IUPAC 2021 standard atomic weights'),
  element_fractions: fractions.describe('atomic fractions'),
  weight_fractions: fractions.describe('mass fractions'),
  descriptors: z.object({
    atoms_per_formula_unit: z.number(),
    mean_atomic_mass: z.number(),
    mean_atomic_number: z.number(),
    mean_electronegativity: z.number().nullable().describe('Pauling; null where an element has no value'),
    electronegativity_difference: z.number().nullable().describe('max − min'),
    mean_atomic_radius: z.number().nullable().describe('pm'),
    mean_covalent_radius: z.number().nullable().describe('pm'),
  }),
  properties: z
    .record(z.string(), z.object({ value: z.union([z.number(), z.string()]), source: z.string() }))
    .describe('catalog properties (units in the name, e.g. band_gap_ev), each with its citation; empty for computed records'),
});

export function materialRoutes(table: RouteTable): void {
  table.add({
    method: 'get',
    path: '/materials',
    operationId: 'lookupMaterials',
    guests: true,
    tag,
    summary: 'Look up materials by chemical formula',
    description:
      'Every catalog entry whose reduced formula matches (polymorphs such as anatase and rutile TiO2 are separate records), or else one record computed from the formula alone (source "computed"), so a valid formula always answers at least one record. Accepts nested () and [] groups, decimal counts and hydrates joined by ·, * or . (CuSO4.5H2O). An unreadable formula or an unknown element is a 422 whose message gives the 0-based position and what was expected there.',
    scope: 'none',
    query: materialsQuery,
    responses: { 200: { description: 'the matching materials', data: materialSchema, list: true } },
    handle: async ({ query }) => {
      try {
        return { data: lookupMaterials(query.formula) };
      } catch (error) {
        if (error instanceof FormulaError) throw validationFailed([{ path: 'formula', message: error.message }]);
        throw error;
      }
    },
  });
}
