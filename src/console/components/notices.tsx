/** Notices: what the service wants the reader to know, that is not a failure. */
export function Notices({
  notices,
  label = 'Notices',
}: {
  notices: readonly (string | { message: string; kind?: string })[] | undefined;
  label?: string;
}) {
  if (notices === undefined || notices.length === 0) return null;
  return (
    <ul class="notices" aria-label={label}>
      {notices.map((notice, index) => {
        const text = typeof notice === 'string' ? notice : notice.message;
        const kind = typeof notice === 'string' ? undefined : notice.kind;
        return (
          <li key={index} class="notice">
            {kind === undefined ? null : <span class="notice-kind">{kind}: </span>}
            {text}
          </li>
        );
      })}
    </ul>
  );
}
