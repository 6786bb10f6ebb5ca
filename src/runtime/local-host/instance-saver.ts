import { ProvisioningError } from '../../domain/errors';
import type { Logger } from '../../domain/logger';
import { copy, parsedJson, type DriverInstance } from './driver-instance';
import type { HistoryStore, InstanceSave, SavedInstance } from './history-store';

/** How far an instance's saves got. */
interface Progress {
  seq: number;
  events: number;
  actions: number;
  canceledTimers: number;
  /** The last save queued: saves of one instance are made one after the other. */
  chain: Promise<void>;
  /** A save failed: later ones would leave a hole in the history, so none is made. */
  broken: boolean;
}

/**
 * Saves instances to a history store as they run: after every change, what changed since
 * the last save (the new history events and actions) with the instance's current state.
 * What is saved is taken when `save` is called, so saves follow the instance's order even
 * though they are written later. Without a store it does nothing.
 */
export class InstanceSaver {
  private readonly progress = new Map<string, Progress>();

  constructor(
    private readonly store: HistoryStore | undefined,
    private readonly logger: Logger,
  ) {}

  get enabled(): boolean {
    return this.store !== undefined;
  }

  /** Instances as the store saved them (none without a store). */
  async load(): Promise<SavedInstance[]> {
    if (this.store === undefined) return [];
    const saved = await this.store.load();
    for (const instance of saved) {
      this.progress.set(instance.instanceId, {
        seq: instance.saves,
        events: instance.history.length,
        actions: instance.actions.length,
        canceledTimers: instance.canceledTimers.length,
        chain: Promise.resolve(),
        broken: false,
      });
    }
    return saved;
  }

  /**
   * Queues a save of what changed since the last one. Resolves when it is written; rejects
   * when it could not be (the instance is then no longer saved, and a restart resumes it
   * from its last save).
   */
  save(instance: DriverInstance): Promise<void> {
    const store = this.store;
    if (store === undefined) return Promise.resolve();
    let progress = this.progress.get(instance.instanceId);
    const first = progress === undefined;
    if (progress === undefined) {
      progress = {
        seq: 0,
        events: 0,
        actions: 0,
        canceledTimers: 0,
        chain: Promise.resolve(),
        broken: false,
      };
      this.progress.set(instance.instanceId, progress);
    }
    const entry = progress;
    if (entry.broken) return Promise.resolve();
    entry.seq += 1;
    const save: InstanceSave = {
      instanceId: instance.instanceId,
      seq: entry.seq,
      ...(first
        ? {
            start: {
              name: instance.name,
              inputJson: instance.inputJson,
              createdAt: instance.createdAt,
            },
          }
        : {}),
      state: copy({
        runtimeStatus: instance.runtimeStatus,
        customStatus: parsedJson(instance.customStatusJson),
        output: instance.output,
        ...(instance.failure === undefined ? {} : { failure: instance.failure }),
        updatedAt: instance.updatedAt,
        retries: [...instance.retries.entries()],
        nextEventId: instance.nextEventId,
        episodes: instance.episodes,
        lastEpisodeAt: instance.lastEpisodeAt,
      }),
      events: copy(instance.history.slice(entry.events)),
      actions: copy(instance.actions.slice(entry.actions)),
      canceledTimers: instance.canceledTimers.slice(entry.canceledTimers),
    };
    entry.events = instance.history.length;
    entry.actions = instance.actions.length;
    entry.canceledTimers = instance.canceledTimers.length;
    const written = entry.chain.then(() => {
      if (entry.broken) throw new Error('an earlier save of this instance failed');
      return store.save(save);
    });
    entry.chain = written.catch((error: unknown) => {
      if (!entry.broken) {
        this.logger.error(
          `the history of orchestration ${instance.instanceId} is no longer saved: ${error instanceof Error ? error.message : String(error)}`,
          { instanceId: instance.instanceId },
        );
      }
      entry.broken = true;
    });
    return written;
  }

  /**
   * Saves a new instance and waits until the save would survive a kill of the process:
   * a start the caller is told about is kept. On failure the instance is forgotten and the
   * error says it was not started.
   */
  async saveStart(instance: DriverInstance): Promise<void> {
    if (this.store === undefined) return;
    try {
      await this.save(instance);
      await this.durable(instance.instanceId);
    } catch (error) {
      this.progress.delete(instance.instanceId);
      throw new ProvisioningError(
        'INTERNAL_ERROR',
        `orchestration "${instance.instanceId}" could not be saved, so it was not started: ${error instanceof Error ? error.message : String(error)}`,
        { object: instance.instanceId },
      );
    }
  }

  /** Resolves once every save made so far would survive a kill of the process. */
  async durable(instanceId?: string): Promise<void> {
    if (this.store === undefined) return;
    if (instanceId !== undefined) await this.progress.get(instanceId)?.chain;
    await this.store.durable();
  }

  /** Resolves when every queued save is written (or failed). */
  async settled(): Promise<void> {
    await Promise.all([...this.progress.values()].map((progress) => progress.chain));
  }
}
