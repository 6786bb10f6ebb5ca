/** A YAML mapping: scalars are strings, nested mappings objects. */
export interface YamlMap {
  [key: string]: string | YamlMap;
}

/**
 * Reads the YAML that azure.yaml uses: nested mappings, plain or quoted scalars, `|` block
 * scalars and comments. Anything else (sequences, flow collections, anchors, folded scalars)
 * throws with its line, so the file can never be read as something it does not say.
 */
export function parseYamlSubset(text: string): YamlMap {
  const lines = text.split('\n');
  const root: YamlMap = {};
  const stack: { indent: number; map: YamlMap }[] = [{ indent: -1, map: root }];
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    if (/^\s*(#.*)?$/.test(line)) continue;
    const match = /^( *)([A-Za-z_][\w.-]*):(?: +(.*))?$/.exec(line);
    if (match === null) throw new Error(`azure.yaml line ${i + 1}: unsupported YAML "${line}"`);
    const indent = match[1]!.length;
    const key = match[2]!;
    const rest = (match[3] ?? '').replace(/\s+#.*$/, '').trim();
    while (indent <= stack.at(-1)!.indent) stack.pop();
    const parent = stack.at(-1)!.map;
    if (key in parent) throw new Error(`azure.yaml line ${i + 1}: "${key}" given twice`);
    if (rest === '') {
      const child: YamlMap = {};
      parent[key] = child;
      stack.push({ indent, map: child });
    } else if (rest === '|') {
      const block: string[] = [];
      let blockIndent: number | undefined;
      while (i + 1 < lines.length) {
        const next = lines[i + 1]!;
        const nextIndent = /^ */.exec(next)![0].length;
        if (next.trim() !== '' && nextIndent <= indent) break;
        blockIndent ??= next.trim() === '' ? undefined : nextIndent;
        block.push(next.slice(blockIndent ?? 0));
        i += 1;
      }
      parent[key] = `${block.join('\n').trimEnd()}\n`;
    } else if (/^[[{&*!>-]/.test(rest)) {
      throw new Error(`azure.yaml line ${i + 1}: unsupported YAML value "${rest}"`);
    } else {
      parent[key] = rest.replace(/^(['"])(.*)\1$/, '$2');
    }
  }
  return root;
}
