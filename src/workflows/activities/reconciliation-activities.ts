import type { BulkPass, ReconciliationPass } from '../../domain/reconciliation-result';
import type { ActivityResult } from '../activity-result';
import { runActivity } from '../activity-result';
import type { ServicesProvider } from '../workflow-services';
import type { ReconcileInput, RecheckDeferredInput } from './activity-inputs';
import { connectorOf } from './connector-of';
import { recheckDeferred, runReconciliation } from './reconciliation-run';

/** Activities of reconciliation jobs ("Reconcile SCIM accounts" / "Reconcile Directory accounts"). */
export function reconciliationActivities(services: ServicesProvider) {
  return {
    /**
     * The bulk pass: one activity, as a catalogue import is (a read cursor cannot be carried
     * between activities for every target, and running the pass again is harmless).
     */
    async reconcileTarget(input: ReconcileInput): Promise<ActivityResult<BulkPass>> {
      return runActivity('reconcileTarget', services, (s) =>
        runReconciliation(s, connectorOf(s, input.connector), input),
      );
    },

    /** A pass over the accounts a request kept busy, once their settle window has passed. */
    async recheckDrift(input: RecheckDeferredInput): Promise<ActivityResult<ReconciliationPass>> {
      return runActivity('recheckDrift', services, (s) =>
        recheckDeferred(s, connectorOf(s, input.connector), input),
      );
    },
  };
}
