import { createSeededRandom } from '../graph/seeded-random.js';

/**
 * An independent PRNG stream per purpose from one seed, so that, say, the replication
 * delays drawn by reads do not shift the throttling decisions of writes: each stream's
 * sequence depends only on the seed and on how often that stream is drawn.
 *
 * @example
 * const calls = seededStream(7, 'calls');
 * const lag = seededStream(7, 'new object lag'); // unrelated to `calls`
 */
export function seededStream(seed: number, purpose: string): () => number {
  // FNV-1a of the purpose, mixed into the seed.
  let hash = 0x811c9dc5;
  for (let i = 0; i < purpose.length; i += 1) {
    hash ^= purpose.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return createSeededRandom((seed ^ hash) >>> 0);
}

/** A draw from a fixed value or a `{ min, max }` range. */
export function drawInRange(range: number | { min: number; max: number }, random: () => number) {
  return typeof range === 'number' ? range : range.min + random() * (range.max - range.min);
}
