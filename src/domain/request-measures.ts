import type { ErrorCode } from './errors';
import type { ActionType } from './provisioning-request';
import type { RequestReport } from './request-report';
import type { VerificationMeasure } from './step-outcome';

/** One step that ran, as the step metrics count it. */
export interface StepMeasure {
  action: ActionType;
  outcome: 'succeeded' | 'failed';
  /** The code the step failed with. */
  errorType?: ErrorCode;
  /** From its first call to its verdict, durable timers included (orchestration time). */
  seconds: number;
  verification?: VerificationMeasure;
}

/**
 * What a finished request tells the metrics (src/domain/metric-catalogue.ts): its outcome,
 * the code of the step that failed it, and each step that ran. JSON without personal data:
 * it travels as activity input.
 */
export interface RequestMeasures {
  outcome: 'succeeded' | 'failed';
  errorType?: ErrorCode;
  steps: StepMeasure[];
}

/**
 * The measures of a finished request from its report and the read-backs of its steps
 * (by step index). Steps that never started (skipped, or a lease that was never had)
 * measure nothing; the request still counts.
 *
 * @example
 * requestMeasures(report, []); // { outcome: 'succeeded', steps: [{ action: 'create', outcome: 'succeeded', seconds: 1.2 }] }
 */
export function requestMeasures(
  report: RequestReport,
  verifications: readonly (VerificationMeasure | undefined)[],
): RequestMeasures {
  const failedStep = report.steps.find((step) => step.state === 'failed');
  const steps: StepMeasure[] = [];
  for (const step of report.steps) {
    if (step.state !== 'succeeded' && step.state !== 'failed') continue;
    if (step.startedAt === undefined || step.finishedAt === undefined) continue;
    const verification = verifications[step.index];
    steps.push({
      action: step.action,
      outcome: step.state,
      ...(step.error === undefined ? {} : { errorType: step.error.code }),
      seconds: Math.max(0, Date.parse(step.finishedAt) - Date.parse(step.startedAt)) / 1000,
      ...(verification === undefined ? {} : { verification }),
    });
  }
  return failedStep === undefined
    ? { outcome: 'succeeded', steps }
    : {
        outcome: 'failed',
        ...(failedStep.error === undefined ? {} : { errorType: failedStep.error.code }),
        steps,
      };
}
