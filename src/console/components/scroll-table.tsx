import type { ComponentChildren } from 'preact';

/**
 * A table that scrolls sideways on its own on a narrow screen (the page never does), as a
 * named region the keyboard can reach to scroll it.
 */
export function ScrollTable({
  label,
  caption,
  hiddenCaption = false,
  className,
  children,
}: {
  label: string;
  caption?: string;
  /** The caption for screen readers only (the page's heading says it already). */
  hiddenCaption?: boolean;
  className?: string;
  children: ComponentChildren;
}) {
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label={label}>
      <table class={className}>
        {caption === undefined ? null : (
          <caption class={hiddenCaption ? 'visually-hidden' : undefined}>{caption}</caption>
        )}
        {children}
      </table>
    </div>
  );
}
