import type { Mdl } from '../engine/mdl/schema.js';
import type { FieldError } from './validation.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Template overrides, which may change any member of the template's MDL:
 * `overrides.parameters.<name>` changes members of that parameter, `overrides.optimizer` members of the optimizer, and any other member is merged the
 * same way (objects member by member, anything else replaced). A parameter the template does not
 * have is an error; the merged document is validated again by the caller.
 */
export function applyOverrides(mdl: Mdl, overrides: Json): { document: Json; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const document: Json = structuredClone(mdl);
  for (const [key, value] of Object.entries(overrides)) {
    if (key === 'parameters' && isObject(value)) {
      const parameters = document.parameters as Json[];
      for (const [name, change] of Object.entries(value)) {
        const index = parameters.findIndex((p) => p.name === name);
        if (index < 0) {
          errors.push({
            path: `overrides.parameters.${name}`,
            message: `the template has no parameter ${name} (it has ${parameters.map((p) => p.name).join(', ')})`,
          });
        } else if (!isObject(change)) {
          errors.push({ path: `overrides.parameters.${name}`, message: 'must be an object of the members to change, e.g. {"bounds": [0, 1]}' });
        } else {
          parameters[index] = deepMerge(parameters[index], change);
        }
      }
    } else {
      document[key] = isObject(value) && isObject(document[key]) ? deepMerge(document[key], value) : value;
    }
  }
  return { document, errors };
}

function deepMerge(base: Json, change: Json): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(change)) {
    out[key] = isObject(value) && isObject(out[key]) ? deepMerge(out[key], value) : value;
  }
  return out;
}
