import { isProvisioningError } from '../domain/errors';
import { targetFailureOf, type TargetFailure, type TargetFailureMark } from '../domain/quarantine';
import type { Connector } from './connector';

/** Sees how each call of a connector ended: what decides a quarantine (issue 14). */
export interface TargetObserver {
  /** The target answered (even with an error about this request alone). */
  answered(connector: string): void;
  /** The call failed in a way that fails every request; true when that quarantines the connector. */
  failed(connector: string, kind: TargetFailure): boolean;
}

/** Calls that are not the target's health: the operator's own check, and closing. */
const UNOBSERVED = new Set<PropertyKey>(['close', 'checkStatus']);

/**
 * The connector with every target call observed: an answer tells the observer the target
 * answers; a failure that fails every request (refused credentials, an unreachable or
 * failing target) is told to it, and the error carries `details.targetFailure` (its kind,
 * and whether it quarantines the connector) to the request that met it.
 *
 * @example
 * const connector = observedConnector(scimConnector, health);
 */
export function observedConnector(connector: Connector, observer: TargetObserver): Connector {
  const seen = <T>(result: Promise<T>): Promise<T> =>
    result.then(
      (value) => {
        observer.answered(connector.name);
        return value;
      },
      (error: unknown) => {
        throw observeFailure(connector.name, error, observer);
      },
    );
  return new Proxy(connector, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function' || UNOBSERVED.has(key)) return value;
      return (...args: unknown[]) => {
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (result instanceof Promise) return seen(result);
        if (isAsyncIterable(result)) return observeIterable(result, connector.name, observer);
        return result;
      };
    },
  });
}

function observeFailure(name: string, error: unknown, observer: TargetObserver): unknown {
  if (!isProvisioningError(error)) return error;
  const kind = targetFailureOf(error);
  if (kind === undefined) {
    observer.answered(name);
    return error;
  }
  const mark: TargetFailureMark = { kind, quarantines: observer.failed(name, kind) };
  return error.withDetails({ targetFailure: mark });
}

async function* observeIterable<T>(
  items: AsyncIterable<T>,
  name: string,
  observer: TargetObserver,
): AsyncGenerator<T> {
  try {
    for await (const item of items) yield item;
    observer.answered(name);
  } catch (error) {
    throw observeFailure(name, error, observer);
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function'
  );
}
