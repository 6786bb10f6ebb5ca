import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import './console.css';
import { ApiError, createApi, probeSession, type Session } from './api-client';
import { App } from './app-context';
import type { Caller, ConnectorInfo } from './api-types';
import { interceptLinks } from './navigation';
import { SignInPage } from './pages/sign-in-page';
import { forgetKey, storedKey, storeKey } from './session-store';
import { Shell } from './shell';

type State =
  | { phase: 'checking' }
  | { phase: 'signed-out'; signIn?: string; message?: string }
  | { phase: 'ready'; session: Session; caller: Caller; connectors: ConnectorInfo[] };

/** Who the API takes this session for, and the connectors; the sign-in page when nobody. */
async function open(session: Session): Promise<State> {
  try {
    // Both at once: the first page waits for neither more than it must.
    const [caller, { connectors }] = await Promise.all([
      probeSession(session) as Promise<Caller>,
      createApi(session, () => undefined).get<{ connectors: ConnectorInfo[] }>('connectors'),
    ]);
    return { phase: 'ready', session, caller, connectors };
  } catch (error) {
    if (session.mode === 'key') {
      forgetKey();
      return {
        phase: 'signed-out',
        message:
          error instanceof ApiError && error.status === 401
            ? 'The service did not accept this key.'
            : `The service could not be reached: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    const signIn = error instanceof ApiError ? error.body.signIn : undefined;
    return { phase: 'signed-out', ...(typeof signIn === 'string' ? { signIn } : {}) };
  }
}

function Root() {
  const [state, setState] = useState<State>({ phase: 'checking' });
  useEffect(() => {
    const key = storedKey();
    void open(key === undefined ? { mode: 'signed-in' } : { mode: 'key', key }).then(setState);
  }, []);
  const ready = state.phase === 'ready' ? state : undefined;
  const app = useMemo(
    () =>
      ready === undefined
        ? undefined
        : {
            api: createApi(ready.session, () => {
              forgetKey();
              setState({
                phase: 'signed-out',
                message: 'The service no longer accepts this session: sign in again.',
              });
            }),
            caller: ready.caller,
            connectors: ready.connectors,
          },
    [ready],
  );
  if (state.phase === 'checking') return <p class="loading">Opening the console…</p>;
  if (state.phase === 'signed-out' || app === undefined || ready === undefined) {
    return (
      <SignInPage
        signIn={state.phase === 'signed-out' ? state.signIn : undefined}
        message={state.phase === 'signed-out' ? state.message : undefined}
        onKey={(key) => {
          storeKey(key);
          setState({ phase: 'checking' });
          void open({ mode: 'key', key }).then(setState);
        }}
      />
    );
  }
  return (
    <App.Provider value={app}>
      <Shell
        onSignOut={() => {
          if (ready.session.mode === 'key') {
            forgetKey();
            setState({ phase: 'signed-out' });
          } else {
            location.assign(
              `/.auth/logout?post_logout_redirect_uri=${encodeURIComponent(location.pathname)}`,
            );
          }
        }}
      />
    </App.Provider>
  );
}

interceptLinks(document);
render(<Root />, document.getElementById('app') as HTMLElement);
