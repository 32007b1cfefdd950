import { z } from 'zod';
import { mdlSchema } from './schema.js';

/**
 * The published JSON Schema (draft 2020-12) of MDL input documents, as the text of
 * docs/mdl.schema.json. Generated from the zod schema so the two cannot disagree; defaults are
 * shown and default-bearing members are optional, as an author writes them.
 */
export function mdlJsonSchemaText(): string {
  const generated = z.toJSONSchema(mdlSchema, { io: 'input' }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  const schema = {
    $schema,
    title: 'Kiln materials definition language (MDL) campaign',
    description: 'A multi-objective optimization campaign: parameters, objectives, constraints, optimizer settings ' + 'and evaluator. See docs/mdl.md.',
    ...rest,
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}
