/**
 * The worklist as a tab-separated file for Excel. The server writes the worklist as CSV (UTF-8
 * with a byte-order mark); Excel splits a CSV at the list separator of the computer's region,
 * which is a semicolon in much of Europe, so there it opens in one column. Tabs separate columns
 * in every region. It starts with a byte-order mark (Excel then reads units such as °C as UTF-8), and
 * the filled file posts back to the results route as it is: the server tells tabs from commas.
 * Imports nothing, so the tests load it from its source.
 */

/** Rows of a CSV text (RFC 4180: quoted cells may hold commas, quotes doubled, line breaks). */
export function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

/**
 * The CSV worklist as tab-separated text with CRLF line ends, starting with a byte-order mark
 * (fetch's text() drops the server's); a cell holding a tab, quote or line break is quoted.
 */
export function worklistTsv(csv: string): string {
  const cell = (v: string) => (/[\t"\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  return (
    '\uFEFF' +
    csvRows(csv.replace(/^\uFEFF/, ''))
      .map((r) => r.map(cell).join('\t'))
      .join('\r\n') +
    '\r\n'
  );
}

/**
 * A worklist cell as it was before the server escaped it against formula injection: one leading
 * apostrophe removed where the rest would run as a formula or starts with an apostrophe itself.
 * The server's rule is src/engine/campaign/formula-escape.ts (`unescapeFormula`); the bundle
 * cannot import it, and test/web-format.test.ts holds the two together.
 */
export function unescapeCell(cell: string): string {
  return cell.startsWith("'") && /^(?:[\t\r']|\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20])/.test(cell.slice(1)) ? cell.slice(1) : cell;
}

/** A worklist column's MDL name: its heading without the unit the server adds ("f1 (MPa)" → "f1"). */
export function columnName(heading: string): string {
  return heading.replace(/ \(.*\)$/, '');
}
