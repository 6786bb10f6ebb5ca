import { useState } from 'preact/hooks';

/**
 * Before anything else: the API key printed by `npm start` (or a function key), kept for
 * this tab only; or, where App Service Authentication runs, a sign-in with Entra ID.
 */
export function SignInPage({
  signIn,
  message,
  onKey,
}: {
  signIn: string | undefined;
  message: string | undefined;
  onKey: (key: string) => void;
}) {
  const [key, setKey] = useState('');
  const back = encodeURIComponent(location.pathname + location.search);
  return (
    <main id="main" class="sign-in">
      <h1>Provisioning console</h1>
      <p class="muted">Sign in to see and change what the service provisions.</p>
      {message === undefined ? null : (
        <p class="error-panel" role="alert">
          {message}
        </p>
      )}
      {signIn === undefined ? null : (
        <p>
          <a class="button primary" href={`${signIn}?post_login_redirect_uri=${back}`}>
            Sign in with your organisation account
          </a>
        </p>
      )}
      <form
        method="post"
        aria-label="Sign in with an API key"
        onSubmit={(event) => {
          event.preventDefault();
          if (key.trim() !== '') onKey(key.trim());
        }}
      >
        <div class="field">
          <label for="api-key">API key</label>
          <input
            id="api-key"
            type="password"
            autocomplete="off"
            required
            value={key}
            onInput={(event) => setKey((event.target as HTMLInputElement).value)}
            aria-describedby="api-key-help"
          />
          <p id="api-key-help" class="muted">
            {signIn === undefined
              ? 'The key npm start printed (or a function key). It is kept for this tab only.'
              : 'Or a function key, kept for this tab only.'}
          </p>
        </div>
        <button type="submit" class={signIn === undefined ? 'primary' : ''}>
          Use this key
        </button>
      </form>
    </main>
  );
}
