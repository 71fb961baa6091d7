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

/** One table connection: numbered messages, resync after reconnecting. It asks for
 * `delta` messages and hands every one on as the full `state` it makes. */
export class TableSocket {
  private ws: WebSocket | null = null;
  private seq = 0;
  private closed = false;
  private retry = 0;
  private state: Json | null = null; // the last state, what the next delta applies to
  hand = -1;
  events = 0;

  constructor(
    private code: string,
    private onMessage: (msg: Json) => void,
    private onStatus: (connected: boolean) => void,
    private onFatal: (reason: string) => void = () => {},
  ) {}

  open(): void {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const url = `${proto}://${location.host}/ws/${encodeURIComponent(this.code)}?token=${encodeURIComponent(token() || "")}&presence=1&delta=1`;
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
    };
    ws.onmessage = (event) => {
      let msg = JSON.parse(event.data);
      if (msg.type === "welcome") {
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
      if (event.code === 4004 || event.code === 4001) {
        // no such room, or an unknown token: reconnecting cannot help
        this.closed = true;
        this.onFatal(event.code === 4004 ? "notFound" : "token");
        return;
      }
      this.onStatus(false);
      if (this.closed) return;
      this.retry = Math.min(this.retry + 1, 6);
      // jittered (±25%): the clients of a process that died do not all come back at once
      setTimeout(() => this.open(), 200 * 2 ** this.retry * (0.75 + Math.random() / 2));
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
  }
}
