// The reconnect policy of both WebSockets (issue 10; seed "Client resilience"): wait 2 s·2^n,
// capped at 30 s, with jitter; give up after 10 failed attempts; never retry on its own after a
// close that says retrying cannot help (unauthorized, forbidden origin, unknown match).

export const BASE_DELAY_MS = 2000;
export const MAX_DELAY_MS = 30_000;
export const MAX_ATTEMPTS = 10;
/**
 * How long a connection must stay open before it counts as healthy: only then is the attempt count
 * reset (and, after a drop, the badge back to connected). An open alone proves little: with the bus
 * down `/ws/matches/{id}` accepts, sends an `error` and closes 1011 at once (issue 18).
 */
export const STABLE_MS = 10_000;
/** ± fraction of the delay added as jitter, so that many clients do not reconnect in step. */
export const JITTER = 0.2;

/** Close codes after which the client does not reconnect by itself. */
export const FATAL_CLOSE_CODES: ReadonlyMap<number, string> = new Map([
  [4401, 'unauthorized: a viewer token is needed'],
  [4403, 'forbidden: this origin is not allowed'],
  [4404, 'unknown match'],
]);

/**
 * The delay before reconnect attempt `attempt` (1-based: the first retry waits about 2 s).
 * `random` is a number in [0, 1) (Math.random by default), mapped to ±JITTER.
 */
export function backoffDelayMs(attempt: number, random: number = Math.random()): number {
  const n = Math.max(0, attempt - 1);
  const base = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** n);
  const jittered = base * (1 + JITTER * (2 * random - 1));
  return Math.round(Math.min(MAX_DELAY_MS, Math.max(0, jittered)));
}

export type CloseDecision =
  | { kind: 'retry'; attempt: number; delayMs: number }
  | { kind: 'give_up'; reason: string };

/**
 * What to do after a close. `failedAttempts` counts the reconnect attempts already made since the
 * connection was last healthy (open for STABLE_MS; 0 right after losing a healthy connection).
 */
export function decideAfterClose(
  code: number,
  failedAttempts: number,
  random: number = Math.random(),
): CloseDecision {
  const fatal = FATAL_CLOSE_CODES.get(code);
  if (fatal !== undefined) return { kind: 'give_up', reason: `${fatal} (close ${code})` };
  if (failedAttempts >= MAX_ATTEMPTS) {
    return { kind: 'give_up', reason: `no connection after ${MAX_ATTEMPTS} attempts` };
  }
  const attempt = failedAttempts + 1;
  return { kind: 'retry', attempt, delayMs: backoffDelayMs(attempt, random) };
}
