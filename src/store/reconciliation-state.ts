import type { TargetMirror } from '../domain/target-mirror';

/** Where a connector's last reconciliation left the target's change feeds. */
export interface ReconciliationCursors {
  /** The delta link of the managed groups' members, where the target tracks changes. */
  members?: string;
  /** The delta link of the accounts. */
  accounts?: string;
  /** The reconciliation job that reached them, and when. */
  jobId: string;
  savedAt: string;
}

/** How far a running reconciliation got: what `GET /jobs/{id}` shows while it runs. */
export interface ReconciliationProgress {
  phase: 'reading members' | 'reading accounts' | 'confirming' | 'waiting for requests to settle';
  groupsRead: number;
  accountsRead: number;
  /** ISO time of the last update. */
  at: string;
}

/** The copy of a target as the last run kept it, and what of it is stored. */
export interface KeptMirror {
  mirror: TargetMirror;
  cursors?: ReconciliationCursors;
  /** Rows of each group's member list as stored: what a save replaces. */
  readonly storedChunks: Map<string, number>;
}

/**
 * What reconciliation keeps between runs (DESIGN: src/store): for a target that tracks
 * changes, its copy of the managed groups' members and of the accounts that matter, with the
 * cursors to read the changes from; and the progress of running jobs.
 */
export interface ReconciliationStateStore {
  /** The copy the last run kept; an empty one (no cursors) before the first. */
  load(connector: string): Promise<KeptMirror>;
  /** Writes back what the run changed in the copy, then the cursors, last. */
  save(connector: string, kept: KeptMirror, cursors: ReconciliationCursors): Promise<void>;
  saveProgress(jobId: string, progress: ReconciliationProgress): Promise<void>;
  progress(jobId: string): Promise<ReconciliationProgress | undefined>;
}
