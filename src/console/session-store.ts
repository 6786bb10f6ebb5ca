/**
 * The key the user typed, kept for this browser tab only (sessionStorage): gone when the tab
 * closes, never in a URL, never in localStorage.
 */
const KEY = 'provisioning-console.api-key';

export function storedKey(): string | undefined {
  try {
    return sessionStorage.getItem(KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function storeKey(key: string): void {
  sessionStorage.setItem(KEY, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(KEY);
}
