import { describe, expect, it } from 'vitest';
import { fromLocalInput, toLocalInput } from '../src/views/matchForm';

describe('match form times', () => {
  it('datetime-local ↔ RFC 3339 round-trips', () => {
    const iso = '2026-11-30T15:00:00Z';
    const local = toLocalInput(iso);
    expect(local).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d$/);
    expect(fromLocalInput(local)).toBe(iso);
  });
  it('empty and bad values become null / empty', () => {
    expect(fromLocalInput('')).toBeNull();
    expect(fromLocalInput('nonsense')).toBeNull();
    expect(toLocalInput(null)).toBe('');
    expect(toLocalInput('not a time')).toBe('');
  });
});
