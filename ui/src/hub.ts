// The one `/ws` connection of the page: global messages for the grid, room subscriptions for the
// match page. Subscriptions are re-sent after every reconnect, and listeners are told to re-sync.

import { wsUrl } from './api';
import { parseServerMessage } from './messages';
import {
  ReconnectingSocket,
  type ConnectionState,
  type ReconnectingSocketOptions,
  type StateDetail,
} from './socket';
import type { ServerMessage } from './types';

type MessageListener = (msg: ServerMessage) => void;
type StateListener = (state: ConnectionState, detail: StateDetail) => void;
type ResyncListener = () => void;

export class Hub {
  private readonly socket: ReconnectingSocket;
  private readonly rooms = new Set<string>();
  private readonly onMsg = new Set<MessageListener>();
  private readonly onStateL = new Set<StateListener>();
  private readonly onResync = new Set<ResyncListener>();
  state: ConnectionState = 'connecting';
  detail: StateDetail = { attempt: 0 };

  /** `overrides` lets tests supply a fake socket factory, clock and randomness. */
  constructor(overrides: Partial<Pick<ReconnectingSocketOptions, 'url' | 'create' | 'clock' | 'random'>> = {}) {
    this.socket = new ReconnectingSocket({
      url: () => wsUrl('/ws'),
      ...overrides,
      onOpen: (reconnected) => {
        for (const matchId of this.rooms) this.socket.send({ type: 'subscribe', matchId });
        if (reconnected) for (const l of this.onResync) l();
      },
      onMessage: (text) => {
        const msg = parseServerMessage(text);
        if (!msg) return;
        for (const l of this.onMsg) l(msg);
      },
      onState: (state, detail) => {
        this.state = state;
        this.detail = detail;
        for (const l of this.onStateL) l(state, detail);
      },
    });
  }

  connect(): void {
    this.socket.connect();
  }

  subscribe(matchId: string): void {
    this.rooms.add(matchId);
    this.socket.send({ type: 'subscribe', matchId });
  }

  unsubscribe(matchId: string): void {
    if (this.rooms.delete(matchId)) this.socket.send({ type: 'unsubscribe', matchId });
  }

  on(fn: MessageListener): () => void {
    this.onMsg.add(fn);
    return () => this.onMsg.delete(fn);
  }

  onState(fn: StateListener): () => void {
    this.onStateL.add(fn);
    return () => this.onStateL.delete(fn);
  }

  /** Called after a reconnect: refetch what may have been missed while away. */
  onReconnect(fn: ResyncListener): () => void {
    this.onResync.add(fn);
    return () => this.onResync.delete(fn);
  }
}

let instance: Hub | null = null;
/** The page's hub, made on first use (so importing this module opens nothing). */
export function getHub(): Hub {
  instance ??= new Hub();
  return instance;
}
