/**
 * Whether every Node.js release of a major line satisfies an npm `engines.node` range. Flex
 * Consumption takes the runtime as a major version and moves the app to that line's newest
 * release on its own, so "the runtime equals engines" means: no release of the line, from X.0.0
 * on, falls outside the range. Comparator sets (`>=20.19`, `>=20 <23`), `^X.Y.Z`, `X` and `X.x`
 * are understood; anything else throws, so that a new form of `engines` is looked at.
 */
export function everyReleaseOfMajorSatisfies(range: string, major: number): boolean {
  return comparators(range).every(({ op, version: [x, y, z] }) => {
    const exact = y === 0 && z === 0;
    switch (op) {
      case '>=': // the lowest release, major.0.0, must reach it
        return major > x || (major === x && exact);
      case '>':
        return major > x;
      case '<': // no release of the line may reach it: the line ends below it
      case '<=':
        return major < x;
    }
  });
}

type Version = [number, number, number];
interface Comparator {
  op: '>=' | '>' | '<' | '<=';
  version: Version;
}

function comparators(range: string): Comparator[] {
  const trimmed = range.trim();
  const caret = /^\^(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(trimmed);
  if (caret) {
    const x = Number(caret[1]);
    return [
      { op: '>=', version: [x, Number(caret[2] ?? 0), Number(caret[3] ?? 0)] },
      { op: '<', version: [x + 1, 0, 0] },
    ];
  }
  const line = /^(\d+)(?:\.[x*])?$/.exec(trimmed);
  if (line) {
    const x = Number(line[1]);
    return [
      { op: '>=', version: [x, 0, 0] },
      { op: '<', version: [x + 1, 0, 0] },
    ];
  }
  return trimmed.split(/\s+/).map((part) => {
    const match = /^(>=|>|<=|<)(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(part);
    if (match === null) throw new Error(`unsupported engines range "${range}"`);
    return {
      op: match[1] as Comparator['op'],
      version: [Number(match[2]), Number(match[3] ?? 0), Number(match[4] ?? 0)],
    };
  });
}
