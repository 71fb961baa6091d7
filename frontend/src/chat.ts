// The table's hall side (issue 16): quick chat (fixed phrases and emotes, by id), the
// phrases beside the seats, each seat's presence (connected / away / 托管) and 准备,
// and a mute switch per player (remembered in this browser). The table page calls
// `onMessage` first for every message and `decorate` after every render; nothing else.

import "./hall.css";
import { type Json } from "./api";
import { el } from "./cards";
import { currentLang } from "./i18n";

interface Phrase {
  id: string;
  zh: string;
  en: string;
}

const MUTED = "paohuzi.muted";
const BUBBLE_MS = 6000;
const WORDS = {
  chat: { zh: "快捷语", en: "Quick chat" },
  mute: { zh: "屏蔽", en: "Mute" },
  unmute: { zh: "取消屏蔽", en: "Unmute" },
  ready: { zh: "准备", en: "Ready" },
  connected: { zh: "在线", en: "Online" },
  away: { zh: "离开", en: "Away" },
  tuoguan: { zh: "托管", en: "Auto" },
  computer: { zh: "电脑", en: "Computer" },
  empty: { zh: "空位", en: "Empty" },
};
const say = (w: { zh: string; en: string }): string => w[currentLang()];

let catalog: Promise<Map<string, Phrase>> | null = null;

/** The phrases and emotes by id, from GET /api/hall (once per page load). */
function phrases(): Promise<Map<string, Phrase>> {
  catalog ??= fetch("/api/hall")
    .then((r) => r.json())
    .then((hall: Json) => {
      const all = new Map<string, Phrase>();
      for (const p of hall.chat.phrases) all.set(p.id, p);
      for (const e of hall.chat.emotes) all.set(e.id, { id: e.id, zh: e.symbol, en: e.symbol });
      return all;
    })
    .catch(() => new Map<string, Phrase>());
  return catalog;
}

function mutedNames(): Set<string> {
  try {
    return new Set(JSON.parse(localStorage.getItem(MUTED) || "[]") as string[]);
  } catch {
    return new Set();
  }
}

export interface TableChat {
  /** Handles `chat` and `presence` messages (true: handled, nothing else to do). */
  onMessage(msg: Json): boolean;
  /** Adds the chat bar, bubbles, presence and mute switches to the rendered table. */
  decorate(root: HTMLElement, state: Json | null): void;
  close(): void;
}

export function mountChat(send: (body: object) => void): TableChat {
  const bubbles = new Map<number, { id: string; until: number }>();
  let presence: Json[] = [];
  let open = false;
  let decided = false; // whether the last state shown asked this page for a decision
  let lastRoot: HTMLElement | null = null;
  let lastState: Json | null = null;
  let known = new Map<string, Phrase>();
  const timer = window.setInterval(() => {
    const now = Date.now();
    let gone = false;
    for (const [seat, b] of bubbles) if (b.until <= now) gone = bubbles.delete(seat) || gone;
    if (gone) redraw();
  }, 500);
  const onResize = () => open && redraw(); // a turned phone: the bar's height changed
  window.addEventListener("resize", onResize);
  void phrases().then((all) => {
    known = all;
    redraw();
  });

  function nameOf(seat: number): string {
    return lastState?.table?.seats?.[seat]?.nickname ?? "";
  }

  function redraw(): void {
    if (lastRoot) decorate(lastRoot, lastState);
  }

  function text(id: string): string {
    const p = known.get(id);
    return p ? p[currentLang()] : id;
  }

  function toggleMute(seat: number): void {
    const muted = mutedNames();
    const name = nameOf(seat);
    if (muted.has(name)) muted.delete(name);
    else muted.add(name);
    localStorage.setItem(MUTED, JSON.stringify([...muted]));
    bubbles.delete(seat);
    redraw();
  }

  function bar(): HTMLElement {
    const box = el("div", { class: "quickchat" });
    const toggle = el("button", { class: "btn btn-chat", "data-name": "chat" }, say(WORDS.chat));
    toggle.addEventListener("click", () => {
      open = !open;
      redraw();
    });
    box.append(toggle);
    if (open) {
      const list = el("div", { class: "quickchat-list" });
      for (const p of known.values()) {
        const b = el("button", { class: "btn btn-phrase", "data-chat": p.id }, p[currentLang()]);
        b.addEventListener("click", () => {
          send({ type: "chat", id: p.id });
          open = false;
          redraw();
        });
        list.append(b);
      }
      box.append(list);
    }
    return box;
  }

  function decorate(root: HTMLElement, state: Json | null): void {
    lastRoot = root;
    lastState = state;
    // a decision that comes while the phrases are open closes them: on a small phone
    // they would cover its buttons (碰/吃/过). Opened again during it, they stay open.
    const deciding = (state?.view?.legal_actions?.length ?? 0) > 0;
    if (deciding && !decided) open = false;
    decided = deciding;
    root.querySelectorAll(".hall-deco").forEach((n) => n.remove());
    if (!state) return;
    const muted = mutedNames();
    const you = state.you;
    // the seats at the table (not the settlement's rows, which carry data-seat too)
    root.querySelectorAll<HTMLElement>(".board .seat[data-seat]").forEach((box) => {
      const seat = Number(box.dataset.seat);
      const header = box.querySelector("header") ?? box;
      const p = presence[seat];
      if (p) {
        header.append(el("span", { class: `hall-deco presence ${p.status}`, "data-presence": p.status }, say(WORDS[p.status as keyof typeof WORDS] ?? WORDS.away)));
        if (p.ready) header.append(el("span", { class: "hall-deco badge ready" }, say(WORDS.ready)));
      }
      const human = state.table?.seats?.[seat]?.kind === "human";
      if (human && seat !== you) {
        const isMuted = muted.has(nameOf(seat));
        const m = el("button", { class: `hall-deco btn-mute${isMuted ? " muted" : ""}`, "data-name": `mute-${seat}`, title: nameOf(seat) }, say(isMuted ? WORDS.unmute : WORDS.mute));
        m.addEventListener("click", () => toggleMute(seat));
        header.append(m);
      }
      const b = bubbles.get(seat);
      if (b) box.append(el("div", { class: "hall-deco chat-bubble", "data-chat": b.id }, text(b.id)));
    });
    if (you !== null && you !== undefined) {
      const chatBar = bar();
      chatBar.classList.add("hall-deco");
      // in the table's top bar, never over the hand (phones held sideways)
      const top = root.querySelector(".topbar");
      if (top) {
        chatBar.classList.add("in-topbar");
        top.insertBefore(chatBar, top.querySelector(".spacer")?.nextSibling ?? null);
        // the phrases open under the whole bar: a bar wrapped onto several lines (phones
        // held upright) keeps its buttons, this one's too, in reach while they are open
        const list = chatBar.querySelector<HTMLElement>(".quickchat-list");
        if (list) list.style.top = `${Math.round(top.getBoundingClientRect().bottom) + 4}px`;
      } else root.append(chatBar);
    }
  }

  return {
    onMessage(msg: Json): boolean {
      if (msg.type === "presence") {
        // the table reads `connected` from the same message: not consumed here
        if (msg.seats) presence = msg.seats;
        return false;
      }
      if (msg.type === "chat") {
        if (!mutedNames().has(nameOf(msg.seat))) {
          bubbles.set(msg.seat, { id: msg.id, until: Date.now() + BUBBLE_MS });
          redraw();
        }
        return true;
      }
      return false;
    },
    decorate,
    close(): void {
      clearInterval(timer);
      window.removeEventListener("resize", onResize);
    },
  };
}
