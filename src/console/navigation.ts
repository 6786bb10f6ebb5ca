import { useEffect, useState } from 'preact/hooks';
import { BASE, parseRoute, type Route } from './routes';

const listeners = new Set<() => void>();
let moved = false;

/**
 * Whether the user moved within the console since it loaded: then a new page takes the
 * focus, as a page load would; on the first page, focus starts at the top (the skip link).
 */
export function movedWithin(): boolean {
  return moved;
}

/**
 * Moves to a page of the console without reloading it (the History API): the URL in the
 * address bar is always the page's own, so it can be bookmarked, shared and reloaded.
 */
export function navigate(url: string, options: { replace?: boolean } = {}): void {
  if (options.replace === true) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  moved = true;
  for (const listener of listeners) listener();
}

/** The current route, following links, form navigations and the Back button. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.pathname, location.search));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.pathname, location.search));
    const back = () => {
      moved = true;
      update();
    };
    listeners.add(update);
    addEventListener('popstate', back);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', back);
    };
  }, []);
  return route;
}

/**
 * Plain links to console pages navigate in place; a click with a modifier key, another
 * button or a target still does what the browser does (a new tab, a download).
 */
export function interceptLinks(root: Document): void {
  root.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as Element | null)?.closest('a');
    if (
      anchor === null ||
      anchor === undefined ||
      anchor.target !== '' ||
      anchor.hasAttribute('download')
    ) {
      return;
    }
    const url = new URL(anchor.href, location.href);
    if (url.origin !== location.origin || !url.pathname.startsWith(BASE)) return;
    // A link within the page (the skip link): the browser moves there itself.
    if (url.hash !== '' && url.pathname === location.pathname && url.search === location.search) {
      return;
    }
    event.preventDefault();
    navigate(url.pathname + url.search);
  });
}
