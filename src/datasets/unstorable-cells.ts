import type { DatasetIssue, Row } from '../store/datasets.js';
import { unstorableText } from '../text-rules.js';

/** Cells listed up to this many; a file full of them stays cheap to refuse. */
const MAX_LISTED = 200;

/**
 * Cells and column names no store keeps (a NUL, a lone surrogate from a JSON escape), named by
 * row and column only: the message never repeats the cell, as the validator's never do.
 */
export class UnstorableCells {
  readonly errors: DatasetIssue[] = [];

  get ok(): boolean {
    return this.errors.length === 0;
  }

  checkColumns(columns: readonly string[]): void {
    for (const column of columns) {
      const why = unstorableText(column);
      // the column's own name cannot be stored either, so the issue names its position
      if (why) this.add({ row: null, column: null, message: `column ${columns.indexOf(column) + 1}'s name ${why}` });
    }
  }

  checkRow(rowNumber: number, row: Row): void {
    for (const [column, cell] of Object.entries(row)) {
      if (typeof cell !== 'string' || unstorableText(column)) continue;
      const why = unstorableText(cell);
      if (why) this.add({ row: rowNumber, column, message: why });
    }
  }

  private add(issue: DatasetIssue): void {
    if (this.errors.length < MAX_LISTED) this.errors.push(issue);
  }
}
