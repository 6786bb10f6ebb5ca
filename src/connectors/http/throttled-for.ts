/**
 * " (throttled: waited 125 s over 14 answers 429; ...)": how long a call bore the target's
 * throttling before its 429 became the answer, for TARGET_THROTTLED messages.
 *
 * @example
 * throttledFor({ throttledWaitMs: 125_000, throttledAnswers: 14 });
 */
export function throttledFor(answer: {
  throttledWaitMs?: number;
  throttledAnswers?: number;
}): string {
  const seconds = Math.round((answer.throttledWaitMs ?? 0) / 1000);
  const answers = answer.throttledAnswers ?? 1;
  return (
    ` (throttled: waited ${seconds} s over ${answers} answer${answers === 1 ? '' : 's'} 429;` +
    ' the setting maxThrottleWaitSeconds bounds the wait)'
  );
}
