// HTTP API and the WebSocket protocol (docs/protocol.md). No game rule lives here:
// the server sends legal actions, views, waits and settlements.

import { inMyLanguage } from "./i18n";

export interface CardInfo {
  text: string;
  ascii: string;
  red: boolean;
  big: boolean;
  point: number;
}

export interface Player {
  id: number;
  nickname: string;
  points: number;
  beans: number;
  hands: number;
  wins: number;
  rating: { mu: number; sigma: number; ordinal: number };
  level: { number: number; title: string; english: string };
}

export interface GameSummary {
  id: string; // 22 URL-safe characters (docs/protocol.md)
  room: string;
  finished: number;
  reason: string;
  points: number[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

const TOKEN = "paohuzi.token";

export function token(): string | null {
  return localStorage.getItem(TOKEN);
}

/** Forget a token the server no longer knows (its account is gone: a new nickname). */
export function forgetToken(): void {
  localStorage.removeItem(TOKEN);
}

/** A request to the server's API as this browser's player; a refusal is thrown as an
 * Error in the page's language (the server's words for it, else its English text). */
export async function call(path: string, body?: object, method?: string): Promise<Json> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const tok = token();
  if (tok) headers.authorization = `Bearer ${tok}`;
  const reply = await fetch(path, {
    method: method ?? (body ? "POST" : "GET"),
    headers,
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await reply.json();
  if (!reply.ok) throw new Error(inMyLanguage(data.words, data.error) || reply.statusText);
  return data;
}

export async function register(nickname: string): Promise<Player> {
  const data = await call("/api/players", { nickname });
  localStorage.setItem(TOKEN, data.token);
  return data.player;
}

export async function me(): Promise<{ player: Player; games: GameSummary[] } | null> {
  if (!token()) return null;
  try {
    return await call("/api/me");
  } catch {
    return null;
  }
}

/** Seconds the settlement stays up waiting for 下一局 before the next hand starts anyway
 * (the room's `next_delay`; the settlement shows the countdown). */
export const SETTLEMENT_WAIT = 60;

export async function quickRoom(level: string): Promise<string> {
  return (await call("/api/rooms/quick", { level, next_delay: SETTLEMENT_WAIT })).code;
}

/** A room for friends, its creator seated at its first human seat. */
export async function createRoom(options: object): Promise<string> {
  return (await call("/api/rooms", { sit: true, next_delay: SETTLEMENT_WAIT, ...options })).code;
}

export async function rulesOf(preset: string): Promise<Json> {
  return call(`/api/rules/${encodeURIComponent(preset)}`);
}

export async function roomRules(code: string): Promise<Json> {
  return call(`/api/rooms/${encodeURIComponent(code)}/rules`);
}

export async function roomInfo(code: string): Promise<Json> {
  return call(`/api/rooms/${encodeURIComponent(code)}`);
}

/** A fresh random value for the next hand's shuffle (128 bits, lowercase hex). */
export function randomValue(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** SHA-256 of a text, lowercase hex (null where WebCrypto is unavailable: plain http). */
export async function sha256(text: string): Promise<string | null> {
  if (!globalThis.crypto?.subtle) return null;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function replaySteps(id: string): Promise<Json> {
  return call(`/api/games/${encodeURIComponent(id)}/steps`);
}

/** A finished game's record as served to this player (`you`: his seat in it, if any). */
export async function gameRecord(id: string): Promise<Json> {
  return call(`/api/games/${encodeURIComponent(id)}`);
}

/** A `delta` message applied to the last `state` (docs/protocol.md): the state it makes
 * (a new object; `last` is not changed), or null when it is not based on `last`. */
export function applyDelta(last: Json | null, delta: Json): Json | null {
  if (!last || delta.base !== last.n) return null;
  const out: Json = { ...last };
  const copied = new Set<object>([out]);
  const parent = (path: string): [Json, string | number] => {
    const steps = path.split(".");
    const key = steps.pop() as string;
    let node: Json = out;
    for (const step of steps) {
      const at = Array.isArray(node) ? Number(step) : step;
      let child: Json = node[at];
      if (!copied.has(child)) {
        child = Array.isArray(child) ? [...child] : { ...child };
        copied.add(child);
        node[at] = child;
      }
      node = child;
    }
    return [node, Array.isArray(node) ? Number(key) : key];
  };
  for (const [path, value] of Object.entries(delta.set as Record<string, Json>)) {
    const [node, key] = parent(path);
    node[key] = value;
  }
  for (const path of delta.unset as string[]) {
    const [node, key] = parent(path);
    delete node[key];
  }
  const { n, events_from, events, hash, deadline, next_deadline, turn_deadline } = delta;
  return { ...out, type: "state", n, events_from, events, hash, deadline, next_deadline, turn_deadline };
}

/** Silence from the server after which a `ping` asks for an answer, and how long an
 * unanswered ping takes the connection for dead (TableSocket.watch). A table in play
 * hears something every turn; a quiet one (waiting for people) only the pings' acks. */
const SILENCE_PINGS_MS = 8000;
const UNANSWERED_PING_MS = 12000;

/** One table connection: numbered messages, resync after reconnecting. It asks for
 * `delta` messages and hands every one on as the full `state` it makes. */
export class TableSocket {
  private ws: WebSocket | null = null;
  private seq = 0;
  private closed = false;
  private retry = 0;
  private state: Json | null = null; // the last state, what the next delta applies to
  // the room's spectator places were full: the next try comes to take a free seat
  // (`sit=1`), which no stranger holding those places can keep from a friend
  private sitting = false;
  private welcomed = false; // any connection of this socket was welcomed to the room
  private lastHeard = 0; // when the server last sent anything (ms, performance.now())
  private pingSent: number | null = null; // a ping not answered yet: when it was sent
  private retryTimer: number | undefined;
  private heartbeat: number | undefined;
  hand = -1;
  events = 0;

  constructor(
    private code: string,
    private onMessage: (msg: Json) => void,
    private onStatus: (connected: boolean) => void,
    private onFatal: (reason: string) => void = () => {},
  ) {}

  /** A phone's socket can die unseen (no close event: a half-open connection after the
   * network went away), and a table that froze then said nothing. Every few seconds of
   * silence a `ping` asks the server for an answer (its ack); none for 12 s gives the
   * socket up, and the usual reconnecting shows its banner and brings the table back.
   * When the browser says the network is back, the next try comes at once. */
  private watch(): void {
    if (this.heartbeat !== undefined) return;
    this.heartbeat = window.setInterval(() => {
      const ws = this.ws;
      if (this.closed || !ws || ws.readyState !== WebSocket.OPEN) return;
      const now = performance.now();
      // given up only on a ping left unanswered (a background tab's timers may run once a
      // minute: silence alone says nothing there)
      if (this.pingSent !== null && now - this.pingSent > UNANSWERED_PING_MS) this.abandon();
      else if (this.pingSent === null && now - this.lastHeard > SILENCE_PINGS_MS) {
        this.pingSent = now;
        this.send({ type: "ping" });
      }
    }, 1000);
    window.addEventListener("online", this.onOnline);
    window.addEventListener("offline", this.onOffline);
  }

  private onOnline = (): void => this.reconnectNow();
  private onOffline = (): void => {
    if (this.ws) this.abandon();
  };

  /** Give the socket up without waiting for its close (a dead network may never finish
   * the closing handshake): shown as reconnecting, and the next try scheduled. */
  private abandon(): void {
    const ws = this.ws;
    this.ws = null;
    ws?.close();
    this.onStatus(false);
    if (!this.closed) this.scheduleRetry();
  }

  private scheduleRetry(): void {
    window.clearTimeout(this.retryTimer);
    this.retry = Math.min(this.retry + 1, 6);
    // jittered (±25%): the clients of a process that died do not all come back at once
    // (no try while the browser knows it is offline: its `online` brings the next one)
    this.retryTimer = window.setTimeout(() => navigator.onLine === false || this.open(),
      200 * 2 ** this.retry * (0.75 + Math.random() / 2));
  }

  private reconnectNow(): void {
    if (this.closed) return;
    const ws = this.ws;
    if (ws && (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING)) {
      if (ws.readyState === WebSocket.OPEN) this.send({ type: "ping" });
      return;
    }
    window.clearTimeout(this.retryTimer);
    this.retry = 0;
    this.open();
  }

  open(): void {
    this.watch();
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const url = `${proto}://${location.host}/ws/${encodeURIComponent(this.code)}?token=${encodeURIComponent(token() || "")}&presence=1&delta=1${this.sitting ? "&sit=1" : ""}`;
    this.sitting = false; // (one try: set again only by another "places are full")
    const ws = new WebSocket(url);
    this.ws = ws;
    this.state = null; // a new connection starts with a full state
    // Connected means the room's owner answered (its welcome), not that the socket
    // opened: behind a load balancer or a forwarding process, a socket can open and be
    // closed at once (1012) while the room changes owner, and the banner stays up until
    // a table is really there. A socket that opened shows a server is up: the next try
    // comes soon (the room's new owner is being found) rather than after a long backoff.
    ws.onopen = () => {
      this.retry = Math.min(this.retry, 1);
      this.lastHeard = performance.now();
      this.pingSent = null;
    };
    ws.onmessage = (event) => {
      if (ws !== this.ws) return; // a socket given up on (closed for its silence)
      this.lastHeard = performance.now();
      this.pingSent = null;
      let msg = JSON.parse(event.data);
      // (only on the way in: a connection welcomed before — a player who left his seat —
      // is never seated again by a retry; a review saw an escaper dealt back in)
      if (msg.type === "error" && msg.code === "spectators_full" && !this.welcomed) this.sitting = true;
      if (msg.type === "welcome") {
        this.welcomed = true;
        this.seq = Math.max(this.seq, msg.last_seq || 0);
        this.retry = 0;
        this.onStatus(true);
      }
      if (msg.type === "delta") {
        msg = applyDelta(this.state, msg);
        if (!msg) {
          this.send({ type: "resync", hand: -1 }); // not on our state: a fresh snapshot
          return;
        }
      }
      if (msg.type === "state") this.state = msg;
      this.onMessage(msg);
    };
    ws.onclose = (event) => {
      if (ws !== this.ws) return; // an older socket; a newer one is already trying
      if (event.code === 4004 || event.code === 4001) {
        // no such room, or an unknown token: reconnecting cannot help
        this.closed = true;
        this.onFatal(event.code === 4004 ? "notFound" : "token");
        return;
      }
      this.onStatus(false);
      if (this.closed) return;
      this.scheduleRetry();
    };
  }

  send(body: object): number {
    this.seq += 1;
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify({ seq: this.seq, ...body }));
    }
    return this.seq;
  }

  close(): void {
    this.closed = true;
    this.ws?.close();
    window.clearInterval(this.heartbeat);
    window.clearTimeout(this.retryTimer);
    window.removeEventListener("online", this.onOnline);
    window.removeEventListener("offline", this.onOffline);
  }
}
