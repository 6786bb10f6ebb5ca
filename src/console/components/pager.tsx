/** Paging by continuation token: back to the first page, on to the next one. */
export function Pager({
  isFirst,
  first,
  next,
}: {
  isFirst: boolean;
  first: string;
  next: string | undefined;
}) {
  if (isFirst && next === undefined) return null;
  return (
    <nav class="pager" aria-label="Pages">
      {isFirst ? null : <a href={first}>First page</a>}
      {next === undefined ? null : <a href={next}>Next page</a>}
    </nav>
  );
}
