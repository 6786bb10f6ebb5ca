import { ApiError } from '../api-client';

/** An error as the API gave it: its code (what to match on), its message and every problem. */
export function ErrorPanel({ error, title }: { error: Error | undefined; title?: string }) {
  if (error === undefined) return null;
  const body = error instanceof ApiError ? error.body : undefined;
  return (
    <div class="error-panel" role="alert">
      <p>
        <strong>{title ?? 'The service answered with an error'}</strong>
        {body === undefined ? null : (
          <>
            {' '}
            <code>{body.code}</code>
          </>
        )}
      </p>
      <p>{error.message}</p>
      {body?.problems === undefined ? null : (
        <ul>
          {body.problems.map((problem) => (
            <li key={`${problem.path}:${problem.message}`}>
              {problem.path === '' ? '' : <code>{problem.path}</code>} {problem.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
