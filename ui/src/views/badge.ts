// A connection badge: connecting / connected / reconnecting / disconnected, announced politely.

import { h } from '../dom';
import type { ConnectionState, StateDetail } from '../socket';

export function badge(label: string): { el: HTMLElement; set: (s: ConnectionState, d: StateDetail) => void } {
  const text = h('span', { class: 'conn-text' }, 'connecting');
  const el = h(
    'span',
    { class: 'conn conn-connecting', role: 'status', 'aria-live': 'polite', 'data-state': 'connecting', title: label },
    h('span', { class: 'visually-hidden' }, `${label}: `),
    h('span', { class: 'conn-dot', 'aria-hidden': 'true' }),
    text,
  );
  return {
    el,
    set(state, detail) {
      el.className = `conn conn-${state}`;
      el.dataset.state = state;
      let t: string = state;
      if (state === 'reconnecting' && detail.attempt > 0) {
        t = `reconnecting (${detail.attempt}/10)`;
      }
      text.textContent = t;
      el.title = `${label}: ${state}${detail.reason ? ` — ${detail.reason}` : ''}`;
    },
  };
}
