/**
 * Types for durable-functions' internal testing helper (platform-notes.md, "Running
 * orchestrations without the host"): the package ships no declaration for it. Pinned to
 * durable-functions 3.5.0.
 */
declare module 'durable-functions/lib/src/util/testingUtils' {
  import type { InvocationContext } from '@azure/functions';
  import type { OrchestrationHandler } from 'durable-functions';

  /** Wraps a generator in the library's real Orchestrator / TaskOrchestrationExecutor. */
  export function createOrchestrator(
    fn: OrchestrationHandler,
  ): (trigger: unknown, context: InvocationContext) => Promise<unknown>;
}
