import type { RuntimeStatus } from '../../workflows/orchestration-client';
import type { InstanceFailure, RecordedAction, RetryProgress } from './driver-instance';
import type { HistoryEvent } from './history-events';

/** The parts of an instance that change as it runs, saved whole each time. */
export interface InstanceState {
  runtimeStatus: RuntimeStatus;
  customStatus: unknown;
  output: unknown;
  failure?: InstanceFailure;
  updatedAt: number;
  retries: [number, RetryProgress][];
  nextEventId: number;
  episodes: number;
  lastEpisodeAt: number;
}

/** How an instance began: saved once, with its first save. */
export interface InstanceStart {
  name: string;
  inputJson: string | undefined;
  createdAt: number;
}

/** One save of an instance: its state, and what its history gained since the save before. */
export interface InstanceSave {
  instanceId: string;
  /** 1 for the instance's first save, then one more each time. */
  seq: number;
  /** With the first save only. */
  start?: InstanceStart;
  state: InstanceState;
  events: HistoryEvent[];
  actions: RecordedAction[];
  /** Timers the orchestrator canceled (they never fire, after a restart neither). */
  canceledTimers: number[];
}

/** An instance as the saves left it. */
export interface SavedInstance extends InstanceStart {
  instanceId: string;
  state: InstanceState;
  history: HistoryEvent[];
  actions: RecordedAction[];
  canceledTimers: number[];
  /** The seq of its last save. */
  saves: number;
}

/**
 * Where the local host keeps orchestration histories so that a restart resumes every
 * instance from them. The saves of one instance are made in order, each whole or not at
 * all.
 */
export interface HistoryStore {
  /** Every saved instance. */
  load(): Promise<SavedInstance[]>;
  save(save: InstanceSave): Promise<void>;
  /** Resolves once every save that resolved before the call would survive a kill of the process. */
  durable(): Promise<void>;
}
