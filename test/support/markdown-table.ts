/**
 * The rows of the first Markdown table under a heading of a document (up to the next heading of
 * the same or a higher level), each as cells without their padding; the header and the rule are
 * left out. An error names the heading when it or its table is missing.
 */
export function tableUnder(markdown: string, heading: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === heading);
  if (start === -1) throw new Error(`no heading "${heading}"`);
  const level = /^#+/.exec(heading)?.[0].length ?? 0;
  const rows: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    const higher = /^(#+) /.exec(line);
    if (higher !== null && higher[1]!.length <= level) break;
    if (line.startsWith('|'))
      rows.push(
        line
          .slice(1, -1)
          .split('|')
          .map((cell) => cell.trim()),
      );
    else if (rows.length > 0) break;
  }
  if (rows.length < 2) throw new Error(`no table under "${heading}"`);
  return rows.slice(2);
}

/** The code spans of a cell: "`a`, `b`" gives ["a", "b"]. */
export function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map(([, code]) => code!);
}
