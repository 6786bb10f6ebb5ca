/** The rows of a CSV text as RFC 4180 reads them (quoted fields may hold , " and line breaks). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  const field = /("(?:[^"]|"")*"|[^,\r\n]*)(,|\r\n|$)/y;
  let row: string[] = [];
  while (field.lastIndex < text.length) {
    const match = field.exec(text);
    if (match === null) throw new Error(`not CSV at ${field.lastIndex}`);
    const [, value = '', end] = match;
    row.push(value.startsWith('"') ? value.slice(1, -1).replace(/""/g, '"') : value);
    if (end !== ',') {
      rows.push(row);
      row = [];
    }
  }
  return rows;
}
