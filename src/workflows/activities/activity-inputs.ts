import type { DeferredAccount } from '../../domain/reconciliation-result';
import type { RequestMeasures } from '../../domain/request-measures';
import type { RecordStepInput } from '../../domain/step-ops';
import type { CommittedStep } from '../../store/account-state';
import type { RequestIndexEntry } from '../../store/request-index';

export type {
  AccountInput,
  ConnectorInput,
  CreateAccountInput,
  DeleteAccountInput,
  FindAccountInput,
  LookUpRolesInput,
  ReadMembershipsInput,
  RecordStepInput,
  ResolveGroupInput,
  SetEnabledInput,
  SetPasswordInput,
  UpdateAccountInput,
  WriteMembershipsInput,
} from '../../domain/step-ops';

/**
 * Inputs of the activities on the service's own state (the step machines' operations are
 * in src/domain/step-ops.ts). JSON, and never a secret (DESIGN invariant 5).
 */
export interface LeaseInput {
  connector: string;
  accountId: string;
  owner: string;
  nowMs: number;
  ttlMs: number;
  /** The request creates the account: its row is probably absent. */
  likelyNew?: boolean;
}
/** How a request ended: its entry in the request list and what the metrics count of it. */
export type RequestEnd = RequestIndexEntry & { measures?: RequestMeasures };
/** A step's commit; with `end`, the request's end written once the commit is. */
export type RecordStepActivityInput = RecordStepInput & { end?: RequestEnd };
/**
 * A step's commit as written. `indexed`: the input's end is in the request list and
 * counted in the metrics (absent: there was no end to write, or writing it failed).
 */
export type RecordedStep = CommittedStep & { indexed?: true };
export interface ImportCatalogueInput {
  connector: string;
  jobId: string;
  overwriteExisting: boolean;
  /** Only the changes since the last import, where the connector can tell them. */
  incremental?: boolean;
  at: string;
}
export interface RunCompatibilityInput {
  connector: string;
  /** The job running it, kept with the result. */
  jobId?: string;
  /** The group to grant and revoke (default: the catalogue's first, else a temporary one). */
  groupName?: string;
}
export interface ReconcileInput {
  connector: string;
  jobId: string;
  /** ISO time the job started: findings it finds are first seen then. */
  at: string;
  /**
   * ISO time this pass began, on the orchestration's clock (the clock requests are indexed
   * by): requests that ended less than the settle window before it are too recent to judge.
   */
  readAt: string;
  /** How long after a request's end its account is left alone (issue 18: the settle window). */
  settleMs: number;
}
export interface RecheckDeferredInput extends ReconcileInput {
  deferred: DeferredAccount[];
}
