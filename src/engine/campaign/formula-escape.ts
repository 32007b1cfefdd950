/**
 * Text cells of the CSV files Kiln writes (results, worklists, datasets) are escaped against
 * spreadsheet formula injection: a cell a spreadsheet could run as a formula gets a leading
 * apostrophe, which spreadsheets read as "text" and hide. That is a cell starting with = + - or @,
 * their full-width forms (＝ ＋ － ＠, which some spreadsheets take as the ASCII ones), either of
 * them after leading white space (some spreadsheets trim it), or a tab or carriage return (which
 * can hide the rest of a formula). A cell that starts with an apostrophe gets one more, so that
 * reading a file back (unescapeFormula) returns every text exactly as it was. Numbers are never
 * escaped: a negative number is no formula.
 */
export const FORMULA_START = /^(?:[\t\r']|\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20])/;

export function escapeFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** A cell read back from a file Kiln wrote: the escape's apostrophe removed, the text as it was. */
export function unescapeFormula(cell: string): string {
  return cell.startsWith("'") && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell;
}
