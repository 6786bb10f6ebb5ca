import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { movedWithin } from '../navigation';

/**
 * A page's title: the document's title too, and where keyboard and screen-reader focus goes
 * when the page opens, as it would after a full page load.
 */
export function PageHeading({ title, children }: { title: string; children?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Provisioning console`;
    if (movedWithin()) heading.current?.focus({ preventScroll: false });
  }, [title]);
  return (
    <div class="page-heading">
      <h1 tabIndex={-1} ref={heading}>
        {title}
      </h1>
      {children}
    </div>
  );
}
