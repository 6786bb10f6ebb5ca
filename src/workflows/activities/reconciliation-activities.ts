import { isProvisioningError } from '../../domain/errors';
import type { BulkPass, ReconciliationPass } from '../../domain/reconciliation-result';
import type { ReconciliationState } from '../../store/connector-states';
import type { ActivityResult } from '../activity-result';
import { runActivity } from '../activity-result';
import type { ServicesProvider, WorkflowServices } from '../workflow-services';
import type { ReconcileInput, RecheckDeferredInput } from './activity-inputs';
import { connectorOf } from './connector-of';
import { recheckDeferred, runReconciliation } from './reconciliation-run';

/** Activities of reconciliation jobs ("Reconcile SCIM accounts" / "Reconcile Directory accounts"). */
export function reconciliationActivities(services: ServicesProvider) {
  return {
    /**
     * The bulk pass: one activity, as a catalogue import is (a read cursor cannot be carried
     * between activities for every target, and running the pass again is harmless). Its
     * outcome is kept as the connector's last reconciliation for the health report.
     */
    async reconcileTarget(input: ReconcileInput): Promise<ActivityResult<BulkPass>> {
      return runActivity('reconcileTarget', services, async (s) => {
        const kept = { at: input.at, jobId: input.jobId };
        try {
          const pass = await runReconciliation(s, connectorOf(s, input.connector), input);
          const { tally } = pass;
          await keepReconciliationState(s, input.connector, {
            ...kept,
            ok: true,
            mode: pass.mode,
            found: total(tally.found),
            open: total(tally.open),
            incomplete: pass.incomplete.length,
            waiting: pass.deferred.length,
          });
          return pass;
        } catch (error) {
          if (isProvisioningError(error)) {
            await keepReconciliationState(s, input.connector, {
              ...kept,
              ok: false,
              error: { code: error.code, message: error.message },
            });
          }
          throw error;
        }
      });
    },

    /** A pass over the accounts a request kept busy, once their settle window has passed. */
    async recheckDrift(input: RecheckDeferredInput): Promise<ActivityResult<ReconciliationPass>> {
      return runActivity('recheckDrift', services, (s) =>
        recheckDeferred(s, connectorOf(s, input.connector), input),
      );
    },
  };
}

const total = (counts: Partial<Record<string, number>>) =>
  Object.values(counts).reduce((sum: number, n) => sum + (n ?? 0), 0);

/** The health report's record of the run; a store that fails only costs that record. */
async function keepReconciliationState(
  s: WorkflowServices,
  connector: string,
  state: ReconciliationState,
): Promise<void> {
  try {
    await s.connectorStates.recordReconciliation(connector, state);
  } catch (error) {
    s.logger.warn(
      `connector ${connector}: the reconciliation's end was not kept for the health report (${isProvisioningError(error) ? error.code : 'unexpected failure'})`,
      { connector, jobId: state.jobId },
    );
  }
}
