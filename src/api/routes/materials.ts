import { z } from 'zod';
import { FormulaError } from '../../materials/formula.js';
import { lookupMaterials } from '../../materials/lookup.js';
import { validationFailed } from '../../service/validation.js';
import type { RouteTable } from '../route.js';
import { materialSchema } from '../schemas.js';

const tag = 'Materials';

const materialsQuery = z.object({
  formula: z.string().min(1).max(200).describe('a chemical formula, e.g. LiFePO4, Ca10(PO4)6(OH)2, CuSO4·5H2O or LiNi0.8Mn0.1Co0.1O2'),
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
