/**
 * Splits items into consecutive chunks of at most `size` (at least 1).
 *
 * @example
 * chunk([1, 2, 3], 2); // [[1, 2], [3]]
 */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const step = Math.max(1, Math.floor(size));
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += step) {
    chunks.push(items.slice(start, start + step));
  }
  return chunks;
}
