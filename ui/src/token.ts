// The operator token: pasted once, kept in this browser's localStorage. Without it the UI is a
// read-only viewer.

const KEY = 'sportz.operatorToken';
const listeners = new Set<() => void>();

export function getOperatorToken(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function setOperatorToken(token: string | null): void {
  if (token) localStorage.setItem(KEY, token.trim());
  else localStorage.removeItem(KEY);
  for (const l of listeners) l();
}

export function isOperator(): boolean {
  return !!getOperatorToken();
}

export function onTokenChange(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
