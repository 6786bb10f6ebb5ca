import { DRIFT_TYPES, type DriftType } from '../../domain/drift-finding';
import type { WorkflowServices } from '../workflow-services';

/** The findings this attempt stored, in the reconciliation metric and the operator log. */
export function logFound(
  s: WorkflowServices,
  connector: string,
  found: Partial<Record<DriftType, number>>,
): void {
  const total = DRIFT_TYPES.reduce((sum, type) => sum + (found[type] ?? 0), 0);
  if (total === 0) return;
  for (const type of DRIFT_TYPES) {
    if ((found[type] ?? 0) > 0) s.metrics.reconciliationFound(connector, type, found[type]);
  }
  s.logger.info(`reconciliation of connector ${connector}: ${total} new findings`, {
    connector,
    ...Object.fromEntries(DRIFT_TYPES.map((type) => [type, found[type] ?? 0])),
  });
}
