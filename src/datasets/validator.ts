import type { Mdl, Parameter } from '../engine/mdl/schema.js';
import type { Cell, DatasetIssue, FlaggedRow, Row } from '../store/datasets.js';

/** Issues listed in full up to this many; beyond it a count is kept, so a huge bad file stays cheap. */
const MAX_LISTED = 200;

/**
 * The upload rules against an MDL: (1) every parameter and objective column present (and every
 * outcome column, when the MDL declares outcomes), (2) values parse as the declared parameter
 * types, (3) values outside the bounds are warnings, (4) rows with NaN or empty objective or
 * outcome values are flagged and excluded from training.
 *
 * Messages name the row and column and what the MDL expects, never the cell's content: they
 * reach callers who may not read the dataset (a campaign's warm-start summary, a 422).
 */
export class DatasetValidator {
  readonly errors: DatasetIssue[] = [];
  readonly warnings: DatasetIssue[] = [];
  readonly flagged: FlaggedRow[] = [];
  errorCount = 0;
  warningCount = 0;

  constructor(private readonly mdl: Mdl) {}

  /** Rule 1, once the columns are known. */
  checkColumns(columns: readonly string[]): void {
    const present = new Set(columns);
    for (const name of [...this.mdl.parameters.map((p) => p.name), ...this.measured().map((o) => o.name)]) {
      if (!present.has(name)) this.error({ row: null, column: name, message: `column "${name}" of the MDL is missing` });
    }
  }

  /** Rules 2–4 for one row. */
  checkRow(rowNumber: number, row: Row): void {
    for (const parameter of this.mdl.parameters) {
      if (!(parameter.name in row)) continue;
      this.checkParameter(rowNumber, parameter, row[parameter.name]);
    }
    const missing: string[] = [];
    for (const objective of this.measured()) {
      if (!(objective.name in row)) continue;
      const value = row[objective.name];
      if (value === null || (typeof value === 'number' && Number.isNaN(value))) missing.push(objective.name);
      else if (typeof value !== 'number' || !Number.isFinite(value)) {
        this.error({ row: rowNumber, column: objective.name, message: 'is not a number' });
      }
    }
    if (missing.length > 0) this.flagged.push({ row: rowNumber, reason: `no value for ${missing.join(', ')}` });
  }

  /** The columns that hold measurements: the objectives, then the outcomes. */
  private measured(): { name: string }[] {
    return [...this.mdl.objectives, ...(this.mdl.outcomes ?? [])];
  }

  get ok(): boolean {
    return this.errorCount === 0;
  }

  private checkParameter(rowNumber: number, parameter: Parameter, value: Cell): void {
    const at = { row: rowNumber, column: parameter.name };
    if (value === null) {
      this.error({ ...at, message: 'is empty; every parameter needs a value' });
      return;
    }
    if (parameter.type === 'categorical') {
      if (!parameter.values.map(String).includes(String(value))) {
        this.error({ ...at, message: `is not one of the parameter's values (${parameter.values.join(', ')})` });
      }
      return;
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.error({ ...at, message: 'is not a number' });
      return;
    }
    if (parameter.type === 'integer' && !Number.isInteger(value)) {
      this.error({ ...at, message: 'is not a whole number (the parameter is an integer)' });
      return;
    }
    const [low, high] = parameter.bounds;
    if (value < low || value > high) {
      this.warning({ ...at, message: `is outside the bounds [${low}, ${high}]` });
    }
  }

  private error(issue: DatasetIssue): void {
    this.errorCount += 1;
    if (this.errors.length < MAX_LISTED) this.errors.push(issue);
  }

  private warning(issue: DatasetIssue): void {
    this.warningCount += 1;
    if (this.warnings.length < MAX_LISTED) this.warnings.push(issue);
  }
}
