// Tokens, pasted once and kept in this browser's localStorage. The operator token makes the UI an
// operator console; without it the UI is a read-only viewer. A viewer token is needed only when
// the server is configured to require one (its WebSockets then close with 4401 without it).

const KEY = 'sportz.operatorToken';
const VIEWER_KEY = 'sportz.viewerToken';
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

export function getViewerToken(): string | null {
  try {
    return localStorage.getItem(VIEWER_KEY);
  } catch {
    return null;
  }
}

export function setViewerToken(token: string | null): void {
  if (token) localStorage.setItem(VIEWER_KEY, token.trim());
  else localStorage.removeItem(VIEWER_KEY);
}
