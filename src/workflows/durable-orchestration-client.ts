import type { DurableClient } from 'durable-functions';
import type {
  OrchestrationClient,
  OrchestrationState,
  RuntimeStatus,
} from './orchestration-client';

/**
 * The OrchestrationClient in Azure: the Durable client of one invocation
 * (`df.getClient(context)` with `df.input.durableClient()` among the trigger's inputs).
 */
export class DurableOrchestrationClient implements OrchestrationClient {
  constructor(private readonly client: DurableClient) {}

  async startNew(name: string, instanceId: string, input: unknown): Promise<'started' | 'exists'> {
    if ((await this.getStatus(instanceId)) !== undefined) return 'exists';
    try {
      await this.client.startNew(name, { instanceId, input });
      return 'started';
    } catch (error) {
      // Two starts of the same id at once: the task hub refuses the second.
      if ((await this.getStatus(instanceId)) !== undefined) return 'exists';
      throw error;
    }
  }

  async getStatus(instanceId: string): Promise<OrchestrationState | undefined> {
    try {
      const status = await this.client.getStatus(instanceId, { showInput: true });
      return {
        instanceId: status.instanceId,
        name: status.name,
        runtimeStatus: status.runtimeStatus as RuntimeStatus,
        input: status.input,
        output: status.output,
        customStatus: status.customStatus,
        createdTime: status.createdTime.toISOString(),
        lastUpdatedTime: status.lastUpdatedTime.toISOString(),
      };
    } catch (error) {
      // durable-functions 3 answers an unknown instance with an error naming HTTP 404.
      if (error instanceof Error && error.message.includes('HTTP 404')) return undefined;
      throw error;
    }
  }
}
