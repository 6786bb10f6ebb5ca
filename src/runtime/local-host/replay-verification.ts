import type { InvocationContext } from '@azure/functions';
import { ProvisioningError } from '../../domain/errors';
import type { DriverInstance } from './driver-instance';
import { HISTORY_EVENT } from './history-events';
import type { Replayer } from './orchestrator-replay';
import { actionDifference, describeAction } from './replayed-action';

/**
 * The determinism check: replays the orchestrator on every prefix of its final history,
 * cut before each OrchestratorStarted, and requires each replay to produce exactly the
 * actions recorded up to that episode (types, names, inputs, retry options, fire times),
 * and the last replay to end as the instance ended. Throws on the first difference.
 */
export async function verifyInstanceReplay(
  instance: DriverInstance,
  replay: Replayer,
  newContext: () => InvocationContext,
): Promise<void> {
  const starts = instance.history.flatMap((event, index) =>
    event.EventType === HISTORY_EVENT.OrchestratorStarted ? [index] : [],
  );
  const fail = (episode: number, detail: string): never => {
    throw new ProvisioningError(
      'INTERNAL_ERROR',
      `orchestration "${instance.instanceId}" (${instance.name}) is not deterministic: replay of episode ${episode + 1} of ${starts.length}: ${detail}`,
      { object: instance.instanceId },
    );
  };

  for (let episode = 0; episode < starts.length; episode += 1) {
    const end = starts[episode + 1] ?? instance.history.length;
    const outcome = await replay({
      instanceId: instance.instanceId,
      history: instance.history.slice(0, end),
      input: instance.input,
      context: newContext(),
    });
    const expected = instance.actions.filter((recorded) => recorded.episode <= episode);
    const isLast = episode === starts.length - 1;
    if (outcome.status === 'failed' && !(isLast && instance.failure?.source === 'orchestrator')) {
      fail(episode, `the orchestrator failed: ${outcome.error ?? 'without a message'}`);
    }
    if (outcome.status !== 'failed') {
      for (let index = 0; index < expected.length; index += 1) {
        const recorded = expected[index];
        const replayed = outcome.actions[index];
        if (recorded === undefined) break;
        if (replayed === undefined) {
          fail(episode, `action #${index} (${describeAction(recorded.action)}) was not produced`);
        } else {
          const difference = actionDifference(recorded.action, replayed, true);
          if (difference !== undefined) fail(episode, `action #${index}: ${difference}`);
        }
      }
      const extra = outcome.actions[expected.length];
      if (extra !== undefined) {
        fail(episode, `action #${expected.length} (${describeAction(extra)}) was never recorded`);
      }
    }
    if (isLast) checkEnd(instance, outcome, (detail) => fail(episode, detail));
  }
}

function checkEnd(
  instance: DriverInstance,
  outcome: Awaited<ReturnType<Replayer>>,
  fail: (detail: string) => never,
): void {
  if (instance.runtimeStatus === 'Completed') {
    if (outcome.status !== 'completed')
      fail(`the instance completed, the replay is ${outcome.status}`);
    if (JSON.stringify(outcome.output) !== JSON.stringify(instance.output)) {
      fail('the replay returned a different output');
    }
  } else if (instance.failure?.source === 'orchestrator') {
    if (outcome.status !== 'failed') fail(`the instance failed, the replay is ${outcome.status}`);
    if (outcome.error !== instance.failure.message)
      fail('the replay failed with a different error');
  } else if (instance.failure === undefined && outcome.status !== 'running') {
    fail(`the instance is still running, the replay is ${outcome.status}`);
  }
}
