/** Durable Functions' runtime status names. */
export type RuntimeStatus =
  | 'Pending'
  | 'Running'
  | 'Completed'
  | 'Failed'
  | 'Terminated'
  | 'ContinuedAsNew'
  | 'Canceled'
  | 'Suspended';

/** The statuses of an instance that has ended: it runs no more, and its output is final. */
export const ENDED_STATUSES: ReadonlySet<RuntimeStatus> = new Set([
  'Completed',
  'Failed',
  'Terminated',
  'Canceled',
]);

export interface OrchestrationState {
  instanceId: string;
  name: string;
  runtimeStatus: RuntimeStatus;
  input: unknown;
  output: unknown;
  customStatus: unknown;
  createdTime: string;
  lastUpdatedTime: string;
}

/**
 * Starting and querying orchestrations, behind the project's own interface: the Durable
 * client in Azure (`df.getClient`, which throws outside the host), the replay driver in
 * the local host and in tests.
 */
export interface OrchestrationClient {
  /** Starts the orchestration unless an instance with this id exists (then `exists`: never twice). */
  startNew(name: string, instanceId: string, input: unknown): Promise<'started' | 'exists'>;
  /** The instance's state; undefined when there is no such instance. */
  getStatus(instanceId: string): Promise<OrchestrationState | undefined>;
}
