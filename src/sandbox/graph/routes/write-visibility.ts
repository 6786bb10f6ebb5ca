import type { GraphContext } from '../graph-context.js';
import { resourceNotFound } from '../graph-error.js';

/**
 * 404 `Request_ResourceNotFound` for a write naming a user created a moment ago, until its
 * write lag has passed (graph-behaviour.md: Eventual consistency, "Except right after a
 * create"). Nothing is changed; the client should retry with backoff.
 */
export function requireVisibleToWrites(
  context: GraphContext,
  userId: string,
  named = userId,
): void {
  if (!context.store.hiddenFromWrites(userId, context.now())) return;
  context.faults.count('new object 404');
  throw resourceNotFound(named);
}

/** Counts a read whose answer showed something in a state other than its committed one. */
export function noteStaleRead(context: GraphContext, stale: boolean): void {
  if (stale) context.faults.count('stale read');
}
