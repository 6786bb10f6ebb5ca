/**
 * Paging by continuation token: back to the first page, on to the next one. `link` makes a
 * page's URL from its token (undefined: the first page), so every page can be bookmarked.
 */
export function Pager({
  page,
  next,
  link,
}: {
  /** The token of the page shown; undefined on the first. */
  page: string | undefined;
  /** The token of the next page, when there is one. */
  next: string | undefined;
  link: (page: string | undefined) => string;
}) {
  if (page === undefined && next === undefined) return null;
  return (
    <nav class="pager" aria-label="Pages">
      {page === undefined ? null : <a href={link(undefined)}>First page</a>}
      {next === undefined ? null : <a href={link(next)}>Next page</a>}
    </nav>
  );
}
