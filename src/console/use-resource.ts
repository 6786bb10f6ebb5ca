import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Resource<T> {
  data?: T;
  error?: Error;
  loading: boolean;
  /** Loads again, keeping what is shown until the new answer arrives. */
  reload: () => void;
}

/**
 * Something the page loads from the API, loaded again when `deps` change. An answer that
 * arrives after a newer load started is dropped, so a slow answer never overwrites a newer one.
 */
export function useResource<T>(load: () => Promise<T>, deps: readonly unknown[]): Resource<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({
    loading: true,
  });
  const generation = useRef(0);
  const latest = useRef(load);
  latest.current = load;
  const run = useCallback(() => {
    const mine = ++generation.current;
    setState((previous) => ({ ...previous, loading: true }));
    latest.current().then(
      (data) => {
        if (mine === generation.current) setState({ data, loading: false });
      },
      (error: unknown) => {
        if (mine === generation.current) {
          setState((previous) => ({
            ...previous,
            error: error instanceof Error ? error : new Error(String(error)),
            loading: false,
          }));
        }
      },
    );
  }, []);
  useEffect(() => {
    setState({ loading: true });
    run();
  }, deps);
  return { ...state, reload: run };
}

/** Calls `tick` every `ms` while `active`: a running request or job shown live. */
export function usePolling(tick: () => void, ms: number, active: boolean): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!active) return undefined;
    const timer = setInterval(() => latest.current(), ms);
    return () => clearInterval(timer);
  }, [ms, active]);
}
