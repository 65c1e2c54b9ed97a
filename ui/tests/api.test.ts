import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, ApiError } from '../src/api';

function reply(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('REST client', () => {
  it('turns a 400 into an ApiError that names the fields', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => reply(400, {
      error: { code: 'validation', message: 'invalid fields: homeTeam', fields: { homeTeam: 'must not be empty' } },
    })));
    const err = await api.createMatch({ homeTeam: '', awayTeam: 'B' }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(400);
    expect(err.code).toBe('validation');
    expect(err.fields).toEqual({ homeTeam: 'must not be empty' });
  });

  it('sends JSON bodies and unwraps {data}', async () => {
    const fetch = vi.fn(async (_url: string, _init: RequestInit) => reply(200, { data: { id: 'match_1', homeScore: 2, awayScore: 1 } }));
    vi.stubGlobal('fetch', fetch);
    const m = await api.updateScore('match_1', 2, 1);
    expect(m.homeScore).toBe(2);
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe('/matches/match_1/score');
    expect(init.method).toBe('PATCH');
    expect(JSON.parse(String(init.body))).toEqual({ homeScore: 2, awayScore: 1 });
  });

  it('waits out a 429 and tries again', async () => {
    vi.useFakeTimers();
    let calls = 0;
    vi.stubGlobal('fetch', vi.fn(async () => (++calls === 1
      ? reply(429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'Retry-After': '2' })
      : reply(200, { data: [], nextCursor: null }))));
    const p = api.listMatches(12);
    await vi.advanceTimersByTimeAsync(1999);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(p).resolves.toEqual({ data: [], nextCursor: null });
    expect(calls).toBe(2);
  });

  it('a 204 resolves to nothing; a network failure is an ApiError with status 0', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response(null, { status: 204 })));
    await expect(api.deleteMatch('match_1')).resolves.toBeUndefined();
    vi.stubGlobal('fetch', vi.fn(async () => { throw new TypeError('failed to fetch'); }));
    const err = await api.getMatch('match_1').catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(0);
  });
});
