// The table page: seats, groups, piles, the hand, legal actions, settlement.
// Everything shown comes from the server's state message for this seat; no rule is
// worked out here (the server sends legal actions, views, waits and settlements).

import { forgetToken, randomValue, TableSocket, type Json } from "./api";
import { card, el, group, info, split } from "./cards";
import { mountChat } from "./chat";
import { inMyLanguage, t, tf, toggleLang, type Key } from "./i18n";
import { levelBadge, settlementPanel } from "./settle";
import { muted, play, toggleMute } from "./sound";
import { escapeFormula, presetName, seatOutWord } from "./words";

const FORCED: Record<string, Key> = {
  ti: "ti",
  wei: "wei",
  chouwei: "chouwei",
  pao: "pao",
  no_discard: "noDiscard",
  xianggong: "xianggong",
};

export const EVENT_TEXT: Record<string, Key> = {
  deal: "evDeal",
  liangzhang: "liangzhang",
  draw: "evDraw",
  show: "evShow",
  discard: "evDiscard",
  to_pile: "evPile",
  ti: "ti",
  wei: "wei",
  chouwei: "chouwei",
  pao: "pao",
  peng: "peng",
  chi: "chi",
  hu: "hu",
  no_discard: "noDiscard",
  xianggong: "xianggong",
  huangzhuang: "huangzhuang",
  escape: "escape",
  dipai: "dipai",
};

interface Ui {
  state: Json | null;
  events: Json[];
  selected: string | null;
  order: number[]; // column order of hand values 1..10
  showWaits: boolean;
  connected: boolean;
  picker: boolean;
  leaving: boolean;
  left: boolean;
  fatal: string | null;
  flash: string;
  answered: string | null; // the state hash on which this page last answered a decision
  dismissed: number; // the hand number whose settlement the player closed
  peeking: number; // the hand number whose settlement is put aside to look at the table
  lastInPlay: string | null;
  online: number[] | null; // the match seats with a connection (the server's presence)
  moves: Json[]; // this state's fresh events, for render's card animations (once)
  refusal: string; // the server's last refusal, shown for a few seconds over redraws
}

/** The most cards a hand column stands high (columnParts splits a taller one). */
const MAX_COLUMN = 4;
/** Phones held sideways at most 340 px tall (568x320, 640x300; style.css's block of the
 * same query): a column stands at most three high, so each card can show a finger's
 * height of itself above the next (a four-high column at 32 px a card took the other
 * seats' room)... */
const SHORT_SCREEN = "(max-height: 340px) and (orientation: landscape)";
const SHORT_COLUMN = 3;
/** Events whose card leaves the centre for the taker's groups. */
const TAKES = new Set(["chi", "peng", "pao", "ti", "wei", "chouwei"]);

function reducedMotion(): boolean {
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}

/** Shows ``node`` travelling from the rectangle ``from`` to its place: a copy above the
 * whole page (a seat box clips what leaves it) slides there with a CSS transition, the
 * card itself appearing when it lands. Nothing moves for a reader who asked for reduced
 * motion. */
export function travel(node: HTMLElement, from: DOMRect | null): void {
  if (!from || reducedMotion()) return;
  const to = node.getBoundingClientRect();
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  if (Math.abs(dx) < 2 && Math.abs(dy) < 2) return;
  const ghost = node.cloneNode(true) as HTMLElement;
  ghost.classList.add("ghost");
  ghost.setAttribute("aria-hidden", "true");
  Object.assign(ghost.style, {
    left: `${to.left}px`,
    top: `${to.top}px`,
    width: `${to.width}px`,
    height: `${to.height}px`,
    transform: `translate(${dx}px, ${dy}px) scale(0.7)`,
  });
  document.body.append(ghost);
  node.style.visibility = "hidden";
  void ghost.getBoundingClientRect(); // the start is laid out before the transition
  ghost.classList.add("moving");
  ghost.style.transform = "";
  let landed = false;
  const land = () => {
    if (landed) return;
    landed = true;
    ghost.remove();
    node.style.visibility = "";
  };
  ghost.addEventListener("transitionend", land, { once: true });
  window.setTimeout(land, 600);
}

/** The chi actions that give distinct results, once each. A result is the groups laid
 * on the table (the eaten one and its 比 groups, as a set): "吃 一二三 比二三四" and
 * "吃 二三四 比一二三" lay the same two groups and are one choice. */
export function distinctChis(legal: string[]): { action: string; eat: string; bi: string[] }[] {
  const seen = new Map<string, { action: string; eat: string; bi: string[] }>();
  for (const a of legal.filter((x) => x.startsWith("chi "))) {
    // shown as the server writes each group (in the order of its cards); sorted only
    // to tell two plans of the same groups apart (a review saw "一三二" for 一二三)
    const [eat, ...bi] = a.slice(4).split(/\s*比\s*/).map((g) => g.trim());
    const key = [eat, ...bi].map((g) => Array.from(g).sort().join("")).sort().join(",");
    if (!seen.has(key)) seen.set(key, { action: a, eat, bi });
  }
  return [...seen.values()];
}

/** Copy a room's link: the clipboard API where the page may use it (https, localhost);
 * else (plain http on a LAN address, as a phone reaches `serve --host 0.0.0.0`) the
 * link is selected and copied the old way, or left selected for the player to copy. */
async function copyLink(link: string, shown: HTMLElement, share: HTMLElement): Promise<void> {
  try {
    if (!navigator.clipboard) throw new Error("no clipboard here");
    await navigator.clipboard.writeText(link);
    share.textContent = t("copied");
    return;
  } catch {
    // the selection below
  }
  const range = document.createRange();
  range.selectNodeContents(shown);
  const selection = window.getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
  let copied = false;
  try {
    copied = document.execCommand("copy");
  } catch {
    copied = false;
  }
  share.textContent = copied ? t("copied") : t("copyByHand");
}

/** The table page of room ``code``; its language button switches in place (the socket,
 * the seat's answered decision and the settlement it closed are kept). */
export function mountTable(root: HTMLElement, code: string): () => void {
  const ui: Ui = {
    state: null,
    events: [],
    selected: null,
    order: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    showWaits: localStorage.getItem("paohuzi.waits") !== "off",
    connected: false,
    picker: false,
    leaving: false,
    left: false,
    fatal: null,
    flash: "",
    answered: null,
    dismissed: -1,
    peeking: -1,
    lastInPlay: null,
    online: null,
    moves: [],
    refusal: "",
  };
  let refusalTimer = 0;
  // the seqs of what the page sends by itself (its shuffle values): a refusal of one (a
  // value that came after the hand was dealt, a second tab's) is nobody's doing to show
  const sentUnasked = new Set<number>();
  let flashTimer = 0;
  let gone = false; // this page was left (the cleanup ran)
  // the hand's columns are drawn anew when the screen turns short or back (SHORT_SCREEN),
  // and when a short screen changes size (a phone turned, a browser bar shown): how many
  // values the hand may split depends on the width beside it (render), once a frame
  const shortScreen = window.matchMedia?.(SHORT_SCREEN);
  const onShortScreen = () => render();
  shortScreen?.addEventListener?.("change", onShortScreen);
  let resizeFrame = 0;
  const onResize = () => {
    if (!shortScreen?.matches || resizeFrame) return;
    resizeFrame = requestAnimationFrame(() => {
      resizeFrame = 0;
      render();
    });
  };
  window.addEventListener("resize", onResize);
  // on a short screen: how many four-high values the hand may split (render lowers it
  // where the wider hand squeezes what is beside it), and how many the last draw split
  let shortSplits = Infinity;
  let splitsDrawn = 0;
  const valueSent = new Set<number>(); // hands this page sent a shuffle value for
  document.body.classList.add("at-table");

  const chat = mountChat((body) => socket.send(body)); // quick chat, presence (chat.ts)
  const socket = new TableSocket(
    code,
    (msg) => {
      if (chat.onMessage(msg)) return;
      if (msg.type === "state") onState(msg);
      else if (msg.type === "presence") {
        ui.online = msg.connected;
        render();
      }
      else if (msg.type === "welcome" && msg.room && msg.room !== code) {
        code = msg.room; // the code as the server writes it (typed with spaces...)
        history.replaceState(null, "", `#/room/${code}`);
      } else if (msg.type === "error" && !sentUnasked.has(msg.seq)) showError(inMyLanguage(msg.words, msg.message));
    },
    (connected) => {
      ui.connected = connected;
      if (connected && socket.hand >= 0) socket.send({ type: "resync", hand: socket.hand, events: socket.events });
      render();
    },
    (reason) => {
      ui.fatal = reason;
      render();
    },
  );

  function onState(msg: Json): void {
    const hand = msg.table.hand_no;
    const snapshot = hand !== socket.hand || msg.events_from === 0;
    if (snapshot) ui.events = [];
    socket.hand = hand;
    const fresh: Json[] = msg.events;
    ui.events = ui.events.slice(0, msg.events_from).concat(fresh);
    socket.events = ui.events.length;
    const forced = fresh.map((e) => FORCED[e.kind]).filter(Boolean);
    if (forced.length && ui.state) {
      ui.flash = forced.map((k) => t(k)).join(" · ");
      clearTimeout(flashTimer);
      flashTimer = window.setTimeout(() => {
        ui.flash = "";
        render();
      }, 3000);
    }
    if (ui.state && fresh.length) play(fresh[fresh.length - 1].kind);
    const wasResult = Boolean(ui.state?.view?.result);
    if (msg.view?.result && !wasResult && ui.state) play("settle");
    if (msg.view?.to_act && !ui.state?.view?.to_act) play("turn");
    if (msg.view && !msg.view.to_act) ui.picker = false;
    const pending = msg.next_shuffle;
    if (pending && !pending.sent && msg.you !== null && !valueSent.has(pending.hand)) {
      // our share of the next hand's randomness, sent after its commitment is out
      valueSent.add(pending.hand);
      sentUnasked.add(socket.send({ type: "entropy", hand: pending.hand, value: randomValue() }));
    }
    ui.state = msg;
    ui.state.receivedAt = performance.now();
    ui.moves = snapshot ? [] : fresh;
    render();
  }

  socket.open();
  const tick = window.setInterval(() => updateClock(), 250);

  /** Show a refusal for four seconds: kept in ``ui`` (every render rebuilds the page, and
   * the next state or presence message wiped it at once). */
  function showError(message: string): void {
    ui.refusal = message;
    clearTimeout(refusalTimer);
    refusalTimer = window.setTimeout(() => {
      ui.refusal = "";
      render();
    }, 4000);
    render();
  }

  // After answering, the decision is over for this page until the server shows the next
  // state (the server keeps an answered claim's view unchanged until the card resolves,
  // so that nothing tells whether another seat is still deciding).
  function legalActions(): string[] {
    const s = ui.state;
    if (!s || !s.view || (ui.answered !== null && ui.answered === s.hash)) return [];
    return s.view.legal_actions ?? [];
  }

  function act(text: string): void {
    socket.send({ type: "act", action: text });
    ui.answered = ui.state?.hash ?? null;
    ui.selected = null;
    ui.picker = false;
    render();
  }

  // Every seat number the server sends is a match seat (the room's): `you`, the view's
  // seats (null for a seat sitting the hand out), turn, dealer, events, the result.
  function mySeat(): number | null {
    const s = ui.state;
    if (!s || s.you === null || !s.view || !s.view.seats[s.you]) return null;
    return s.you;
  }

  /** Whether I hold a seat at this table (in the hand or not: the 醒家, or before the
   * first hand). */
  function seated(): boolean {
    return ui.state?.you !== null && ui.state?.you !== undefined;
  }

  function playingSeats(): number[] {
    const seats: (Json | null)[] = ui.state.view.seats;
    return seats.flatMap((seatInfo, i) => (seatInfo ? [i] : []));
  }

  function secondsLeft(deadline: number | null | undefined): number | null {
    const s = ui.state;
    if (!s || deadline === null || deadline === undefined) return null;
    return Math.max(0, deadline - (performance.now() - s.receivedAt) / 1000);
  }

  function updateClock(): void {
    const s = ui.state;
    if (!s) return;
    // my own clock (my decision, claims too) and the discarding seat's (public to all)
    root.querySelectorAll<HTMLElement>(".clock").forEach((clock) => {
      const left = secondsLeft(clock.dataset.clock === "turn" ? s.turn_deadline : s.deadline);
      clock.textContent = left === null ? "" : `${Math.ceil(left)}s`;
      clock.classList.toggle("urgent", left !== null && left < 5);
    });
    const next = secondsLeft(s.next_deadline);
    const countdown = root.querySelector<HTMLElement>(".next-countdown");
    // no "next hand in N s" for a player who left: he plays no next hand here
    if (countdown) countdown.textContent = next === null || ui.left ? "" : `${Math.ceil(next)} ${t("nextIn")}`;
  }

  function seatName(seat: number): string {
    const s = ui.state;
    const name = s.table.seats[seat]?.nickname || `${t("seat")} ${seat}`;
    return seat === s.you ? `${t("you")} · ${name}` : name;
  }

  /** A seat's name in the finished hand's settlement: whoever sat there when its match
   * ended (the 大结算's names), as the seat may since have been freed or taken by
   * someone else (a player who left: N18) — the server says which (``changed``: a
   * newcomer of the same nickname is not "you" in the rows of a match he never played). */
  function settledName(seat: number): string {
    const s = ui.state;
    const row = (s.table.summary?.seats as Json[] | undefined)?.find((r) => r.seat === seat);
    if (!row?.changed) return seatName(seat);
    return row.nickname || `${t("seat")} ${seat}`;
  }

  /** A person's seat: a dot, green while connected (computers are always there). */
  function presence(seat: number): HTMLElement | null {
    if (ui.online === null || ui.state?.table.seats[seat]?.kind !== "human") return null;
    const on = ui.online.includes(seat);
    const label = on ? t("connected") : t("offline");
    return el("span", { class: `presence ${on ? "on" : "off"}`, title: label, role: "img", "aria-label": label }, on ? "●" : "○");
  }

  function seatHeader(seat: number, mine: boolean): HTMLElement {
    const s = ui.state;
    const view = s.view;
    const seatInfo = view.seats[seat];
    const seatMeta = s.table.seats[seat];
    const turn = view.turn === seat;
    // the seat that must discard: its countdown, public (the server's turn_deadline)
    const othersClock = s.turn_deadline !== null && s.turn_deadline !== undefined;
    return el(
      "header",
      {},
      el("span", { class: "name" }, seatName(seat)),
      levelBadge(s, seat),
      presence(seat),
      view.dealer === seat ? el("span", { class: "badge dealer" }, t("dealer")) : null,
      seatMeta.tuoguan ? el("span", { class: "badge tuoguan" }, t("tuoguan")) : null,
      seatInfo.xianggong ? el("span", { class: "badge" }, t("xianggong")) : null,
      el("span", { class: "huxi" }, `${seatInfo.table_huxi} ${t("huxi")}`),
      el("span", { class: "score" }, `${t("points")} ${seatMeta.points}`),
      mine ? null : el("span", { class: "count" }, `${t("hand")} ${seatInfo.hand_count}`),
      mine && s.deadline !== null && s.deadline !== undefined ? el("span", { class: "clock", role: "timer", "data-clock": "mine" }, "") : null,
      !mine && turn && othersClock ? el("span", { class: "clock turn-clock", role: "timer", "data-clock": "turn", "aria-label": `${seatName(seat)} ${t("thinking")}` }, "") : null,
      !mine && turn && !othersClock ? el("span", { class: "badge thinking" }, t("thinking")) : null,
    );
  }

  function seatBox(seat: number, position: string): HTMLElement {
    const seatInfo = ui.state.view.seats[seat];
    return el(
      "section",
      { class: `seat ${position}${ui.state.view.turn === seat ? " turn" : ""}`, "data-seat": String(seat), "aria-label": seatName(seat) },
      seatHeader(seat, false),
      el("div", { class: "melds" }, ...seatInfo.melds.map((m: Json) => group(m))),
      pileRow(seatInfo.pile),
    );
  }

  function pileRow(pile: string): HTMLElement {
    return el("div", { class: "pile" }, el("span", { class: "pile-label" }, t("pile")), ...split(pile).map((c) => card(c, "mini")));
  }

  function handColumns(): HTMLElement {
    const view = ui.state.view;
    const cards = split(view.hand);
    const byValue = new Map<number, string[]>();
    for (const c of cards) {
      const v = info(c)?.point ?? 0;
      byValue.set(v, [...(byValue.get(v) ?? []), c]);
    }
    const values = ui.order.filter((v) => byValue.has(v));
    const parts = values.map((v) => columnParts(byValue.get(v)!.sort(), MAX_COLUMN));
    splitsDrawn = 0;
    if (shortScreen?.matches) {
      // a short screen: split a four-high value too (as many as render lets)
      values.forEach((v, i) => {
        const shorter = columnParts(byValue.get(v)!, SHORT_COLUMN);
        if (shorter.length > parts[i].length && splitsDrawn < shortSplits) {
          splitsDrawn += 1;
          parts[i] = shorter;
        }
      });
    }
    const fourHigh = parts.some((p) => p.some((column) => column.length > SHORT_COLUMN));
    const box = el("div", { class: `hand${fourHigh ? " four-high" : ""}`, "aria-label": t("hand") });
    values.forEach((v, i) => parts[i].forEach((part) => box.append(handColumn(v, part))));
    return box;
  }

  /** One value's cards in one column, or two beside each other where they would stand
   * more than ``most`` high (two 坎 of a number, 九九九玖玖玖; on a short screen 三三三叁):
   * the small cards, then the big. A phone held sideways then gives each card a
   * finger's height under the other seats (a six-high column took their room). */
  function columnParts(column: string[], most: number): string[][] {
    if (column.length <= most) return [column];
    return [column.filter((c) => !info(c)?.big), column.filter((c) => info(c)?.big)].filter((p) => p.length);
  }

  /** A hand column of value ``v``: a tap chooses a card, a second tap discards it; the
   * column is dragged by value (both parts of a split value move together). */
  function handColumn(v: number, cards: string[]): HTMLElement {
    const legal: string[] = legalActions();
    const discarding = legal.some((a) => a.startsWith("discard "));
    const col = el("div", { class: "column", draggable: "true", "data-value": String(v) });
    cards.forEach((c) => {
      // cards the server does not let you discard (a 坎) are shown locked
      const locked = discarding && !legal.includes(`discard ${c}`);
      const node = card(c, `hand-card${locked ? " locked" : ""}${ui.selected === c ? " selected" : ""}`);
      node.setAttribute("role", "button");
      node.setAttribute("tabindex", "0");
      const choose = () => {
        if (ui.selected === c && legal.includes(`discard ${c}`)) {
          act(`discard ${c}`);
          return;
        }
        ui.selected = ui.selected === c ? null : c;
        render();
      };
      node.addEventListener("click", choose);
      node.addEventListener("keydown", (e) => (e.key === "Enter" || e.key === " ") && (e.preventDefault(), choose()));
      col.append(node);
    });
    col.addEventListener("dragstart", (e) => e.dataTransfer?.setData("text/plain", String(v)));
    col.addEventListener("dragover", (e) => e.preventDefault());
    col.addEventListener("drop", (e) => {
      e.preventDefault();
      const from = Number(e.dataTransfer?.getData("text/plain"));
      if (!from || from === v) return;
      ui.order = ui.order.filter((x) => x !== from);
      ui.order.splice(ui.order.indexOf(v), 0, from);
      render();
    });
    return col;
  }

  /** The way back to a finished hand's settlement the player put aside (看牌桌). */
  function settleAgain(): HTMLElement | null {
    const s = ui.state;
    if (!s.view.result || ui.peeking !== s.table.hand_no || ui.dismissed === s.table.hand_no) return null;
    return el(
      "div",
      { class: "settle-again" },
      button(t("showSettlement"), () => ((ui.peeking = -1), render()), "settle-show"),
      el("span", { class: "next-countdown", role: "timer" }, ""),
    );
  }

  function actionBar(): HTMLElement {
    const view = ui.state.view;
    const legal: string[] = legalActions();
    const bar = el("div", { class: "actions" });
    if (!legal.length) {
      bar.append(settleAgain() ?? el("span", { class: "hint" }, view.result ? "" : t("waiting")));
      return bar;
    }
    bar.append(el("span", { class: "hint your-turn" }, t("yourTurn")));
    const claimed = view.claim?.card ?? view.in_play ?? "";
    if (legal.includes("hu")) bar.append(button(`${t("hu")} ${claimed}`, () => act("hu"), "hu"));
    if (legal.includes("peng")) bar.append(button(`${t("peng")} ${claimed}`, () => act("peng"), "peng"));
    const chis = distinctChis(legal);
    if (chis.length === 1) {
      const c = chis[0];
      bar.append(button(`${t("chi")} ${c.eat}${c.bi.map((g) => ` ${t("bi")} ${g}`).join("")}`, () => act(c.action), "chi"));
    }
    if (chis.length > 1) bar.append(button(`${t("chi")} ${claimed} ▾ ${chis.length}`, () => ((ui.picker = true), render()), "chi"));
    if (legal.includes("pass")) bar.append(button(t("pass"), () => act("pass"), "pass"));
    if (legal.some((a) => a.startsWith("discard "))) {
      const ok = ui.selected !== null && legal.includes(`discard ${ui.selected}`);
      const b = button(`${t("discard")} ${ui.selected ?? ""}`, () => ui.selected && act(`discard ${ui.selected}`), "discard");
      if (!ok) b.setAttribute("disabled", "");
      bar.append(b);
    }
    return bar;
  }

  function picker(): HTMLElement | null {
    if (!ui.picker) return null;
    const list = el("div", { class: "picker-list" });
    for (const c of distinctChis(legalActions())) {
      const row = el("button", { class: "pick", "data-action": c.action });
      // the table's card size, not the mini one: 二 and 贰 must be told apart at a glance
      row.append(el("span", { class: "pick-label" }, t("eat")), el("span", { class: "group eat" }, ...split(c.eat).map((x) => card(x))));
      for (const g of c.bi) row.append(el("span", { class: "pick-label" }, t("bi")), el("span", { class: "group bi" }, ...split(g).map((x) => card(x))));
      row.addEventListener("click", () => act(c.action));
      list.append(row);
    }
    const cancel = () => ((ui.picker = false), render());
    // the dialog covers the seat's clock: it shows its own (ticked with the others)
    const s = ui.state;
    const clock = s && s.deadline !== null && s.deadline !== undefined
      ? el("span", { class: "clock picker-clock", role: "timer", "data-clock": "mine" }, "") : null;
    return modal("picker", t("chooseBi"), clock, list, button(t("cancel"), cancel, "cancel"), cancel);
  }

  // a dialog; with ``close`` (its way out: cancel, stay) a tap beside its panel or Escape
  // takes it too
  function modal(name: string, title: string, ...parts: (Node | null | (() => void))[]): HTMLElement {
    const close = parts.find((p): p is () => void => typeof p === "function");
    const children = parts.filter((p): p is Node | null => typeof p !== "function");
    const box = el(
      "div",
      { class: `modal ${name}`, role: "dialog", "aria-modal": "true", "aria-label": title },
      el("div", { class: "panel" }, el("h2", {}, title), ...children),
    );
    if (close) {
      box.addEventListener("click", (e) => e.target === box && close());
      box.tabIndex = -1;
      box.addEventListener("keydown", (e) => e.key === "Escape" && close());
      queueMicrotask(() => box.isConnected && !box.contains(document.activeElement) && box.focus());
    }
    return box;
  }

  function leaveDialog(): HTMLElement | null {
    if (!ui.leaving) return null;
    const s = ui.state;
    const rules = s?.table.rules ?? {};
    const inHand = Boolean(s?.view && !s.view.result && mySeat() !== null);
    const body = el("div", { class: "leave-text" });
    if (inHand) {
      const points = rules.escape_bonus * rules.base;
      body.append(
        el("p", {}, t("leaveMidHand")),
        el("p", { class: "formula" }, escapeFormula(rules.players, rules.escape_bonus, rules.base)),
        el("p", { class: "penalty" }, tf("leaveAtLeast", { points, beans: points * rules.multiplier })),
      );
    } else body.append(el("p", {}, t("leaveBetween")));
    return modal(
      "leave-dialog",
      t("leaveTitle"),
      body,
      el(
        "div",
        { class: "row" },
        button(t("stay"), () => ((ui.leaving = false), render()), "stay"),
        button(t("leaveConfirm"), () => leave(inHand), "leave-confirm"),
      ),
      () => ((ui.leaving = false), render()),
    );
  }

  function leave(inHand: boolean): void {
    ui.leaving = false;
    // between hands: "after" the hand whose end I saw (a hand dealt meanwhile is played
    // out by my computer, never an escape I did not choose); before the first hand too:
    // the seat is freed either way, nobody is dealt in at a table he left
    // (seated: the 醒家 sitting a hand out and a seat before the first hand too — they
    // have no seat in the hand's view, and their seat must be freed all the same)
    if (seated()) socket.send(inHand ? { type: "leave" } : { type: "leave", after: ui.state?.table.hand_no ?? 0 });
    if (inHand) {
      ui.left = true; // the settlement of the escape shows; its button goes to the lobby
      render();
    } else location.hash = "#/";
  }

  function waitsBox(): HTMLElement {
    const waits: Json[] = ui.state.waits ?? [];
    const toggle = el("label", { class: "toggle" }, el("input", { type: "checkbox", class: "waits-toggle" }), t("tingHint"));
    const input = toggle.querySelector("input") as HTMLInputElement;
    input.checked = ui.showWaits;
    input.addEventListener("change", () => {
      ui.showWaits = input.checked;
      localStorage.setItem("paohuzi.waits", ui.showWaits ? "on" : "off");
      render();
    });
    const list = el("div", { class: "waits" });
    if (ui.showWaits) {
      if (!waits.length) list.append(t("noWaits"));
      else {
        list.append(`${t("waitsOn")}: `);
        for (const w of waits) {
          // 泸州: a card that wins on a draw but never on a discard says so
          const drawOnly = "discard" in w && w.discard === null;
          list.append(el("span", { class: "wait", title: drawOnly ? t("drawOnly") : "" },
            card(w.card, "mini"), ` ${w.other ?? w.self}${drawOnly ? t("drawOnlyMark") : ""}`));
        }
      }
    }
    return el("div", { class: "waits-box" }, toggle, list);
  }

  function button(label: string, onClick: () => void, name: string): HTMLElement {
    const b = el("button", { class: `btn btn-${name}`, "data-name": name, type: "button" }, label);
    b.addEventListener("click", onClick);
    return b;
  }

  function presetLine(rules: Json): string {
    return `${presetName(rules.name)} · ${t("base")} ${rules.base} · ${t("multiplier")} ${rules.multiplier}`;
  }

  function topBar(): HTMLElement {
    const s = ui.state;
    const view = s?.view;
    // the room's own rules (a 泸州 table's 帮助 once opened the QQ rules; a custom rules
    // name may hold any text)
    const rulesHref = s ? `#/help/${encodeURIComponent(s.table.rules.name)}?room=${code}` : "#/help";
    return el(
      "nav",
      { class: "topbar" },
      button(t("leave"), () => (s ? ((ui.leaving = true), render()) : (location.hash = "#/")), "leave"),
      el("span", { class: "room" }, `${t("roomCode")} `, el("code", { class: "room-code" }, code)),
      view ? el("span", { class: "wall" }, `${t("wall")} `, el("b", { class: "wall-count" }, String(view.wall)), ` ${t("wallUnit")}`) : null,
      s ? el("a", { class: "rules-link", href: rulesHref }, presetLine(s.table.rules)) : null,
      ui.connected || ui.fatal ? null : el("span", { class: "banner reconnecting", role: "status" }, t("reconnecting")),
      el("span", { class: "spacer" }),
      button(muted() ? t("unmute") : t("mute"), () => (toggleMute(), render()), "mute"),
      el("a", { class: "link help-link", href: rulesHref }, t("help")),
      button(t("language"), () => (toggleLang(), render()), "lang"),
    );
  }

  function waitingRoom(): HTMLElement {
    const s = ui.state;
    const box = el("section", { class: "card-panel waiting-room" }, el("h2", {}, t("seatsTaken")));
    const link = `${location.origin}/#/room/${code}`;
    const shown = el("code", { class: "share-link" }, link);
    const share = button(t("share"), () => void copyLink(link, shown, share), "share");
    box.append(el("p", {}, `${t("shareLink")}: `, shown, " ", share));
    const list = el("ul", { class: "seat-list", "aria-label": t("whoSits") });
    s?.table.seats.forEach((seat: Json, i: number) => {
      const who = seat.kind === "human" ? seat.nickname || t("empty") : seat.nickname;
      const item = el("li", {}, `${t("seat")} ${i}: ${who} `, presence(i));
      if (s.you === null && seat.kind === "human" && !seat.nickname) {
        item.append(" ", button(`${t("sit")} ${i}`, () => socket.send({ type: "sit", seat: i }), `sit-${i}`));
      }
      list.append(item);
    });
    box.append(list);
    return box;
  }

  function notFound(): HTMLElement {
    if (ui.fatal === "token") {
      // the server knows no account by this browser's token: a nickname, then this room
      const again = el("button", { class: "btn btn-enter", "data-name": "pick-nickname" }, t("pickNickname"));
      again.addEventListener("click", () => {
        forgetToken();
        location.reload();
      });
      return el("section", { class: "card-panel not-found", role: "alert" }, el("h2", {}, t("signedOut")), again, el("a", { class: "btn btn-back", href: "#/", "data-name": "back" }, t("backLobby")));
    }
    return el(
      "section",
      { class: "card-panel not-found", role: "alert" },
      el("h2", {}, ui.fatal === "notFound" ? t("notFound") : t("reconnecting")),
      el("p", {}, `${t("roomCode")}: ${code}. ${t("notFoundHint")}`),
      el("a", { class: "btn btn-back", href: "#/", "data-name": "back" }, t("backLobby")),
    );
  }

  function center(): HTMLElement {
    const s = ui.state;
    const view = s.view;
    const shown = [...ui.events].reverse().find((e) => ["discard", "show", "liangzhang"].includes(e.kind) && e.cards === view.in_play);
    const entering = view.in_play && view.in_play !== ui.lastInPlay && !ui.moves.length;
    ui.lastInPlay = view.in_play ?? null;
    const ticker = el("ol", { class: "ticker", tabindex: "0", "aria-label": t("moves") });
    ui.events.forEach((e) => ticker.append(el("li", {}, describe(e))));
    return el(
      "section",
      { class: "center" },
      el(
        "div",
        { class: "in-play-box" },
        view.in_play ? card(view.in_play, `shown${entering ? " enter" : ""}`) : null,
        shown ? ((text: string) => el("span", { class: "shown-by", title: text }, text))(`${shown.seat === undefined ? "" : seatName(shown.seat)} ${t(EVENT_TEXT[shown.kind])}`) : null,
      ),
      view.liangzhang ? el("div", { class: "liangzhang" }, el("span", { class: "label", title: t("liangzhang") }, t("liangzhang")), card(view.liangzhang, "mini")) : null,
      view.dipai ? el("div", { class: "liangzhang dipai", "data-name": "dipai" }, el("span", { class: "label", title: t("dipai") }, t("dipai")), card(view.dipai, "mini")) : null,
      // who sits this hand out (醒家 / 坐底): his seat box is not on the board
      s.table.xingjia !== null && s.table.xingjia !== undefined && !view.result
        ? el("div", { class: "seat-out", "data-name": "seat-out", title: `${seatOutWord(s.table.rules)} ${seatName(s.table.xingjia)}` }, el("span", { class: "label" }, `${seatOutWord(s.table.rules)} `), el("b", {}, seatName(s.table.xingjia)))
        : null,
      ui.flash ? el("div", { class: "flash", role: "status" }, ui.flash) : null,
      // a spectator's way back to a settlement put aside takes the moves' place (a seat's
      // is in its action bar)
      (mySeat() === null ? settleAgain() : null) ?? ticker,
    );
  }

  /** A selector that finds the focused control again after a render (every render
   * rebuilds the page: without this, keyboard focus would fall back to the body). */
  function focusKey(node: Element | null): string | null {
    if (!(node instanceof HTMLElement) || !root.contains(node)) return null;
    if (node.dataset.action) return `[data-action="${CSS.escape(node.dataset.action)}"]`;
    if (node.dataset.name) return `[data-name="${CSS.escape(node.dataset.name)}"]`;
    if (node.classList.contains("hand-card")) return `.mine .hand [data-card="${CSS.escape(node.dataset.card ?? "")}"]`;
    if (node.classList.contains("ticker")) return ".ticker";
    if (node.classList.contains("waits-toggle")) return ".waits-toggle";
    return null;
  }

  function restoreFocus(key: string | null, hadModal: boolean): void {
    const modal = root.querySelector<HTMLElement>(".modal");
    const again = key ? root.querySelector<HTMLElement>(key) : null;
    if (modal && !hadModal && !(again && modal.contains(again))) {
      // a dialog opened: focus its first control (Tab stays in reach of its buttons)
      modal.querySelector<HTMLElement>(".pick, button, [href]")?.focus();
      return;
    }
    if (again) again.focus();
    else if (key && hadModal && !modal) root.querySelector<HTMLElement>(".actions .btn, [data-name=settle-show], .mine .hand-card")?.focus();
  }

  /** Cards on the move: a shown card from the seat that showed it (a draw: from the
   * wall) to the centre, a taken card from the centre to the taker's new group. */
  function animate(before: DOMRect | null): void {
    const moves = ui.moves;
    ui.moves = [];
    const shown = root.querySelector<HTMLElement>(".in-play-box .card.shown");
    for (const e of moves) {
      if (shown && ["discard", "show", "liangzhang"].includes(e.kind) && e.cards === ui.state.view.in_play) {
        const from = e.kind === "discard" ? root.querySelector(`.seat[data-seat="${e.seat}"] header`) : root.querySelector(".topbar .wall");
        travel(shown, from?.getBoundingClientRect() ?? null);
      }
      if (TAKES.has(e.kind) && e.seat !== undefined) {
        const taken = root.querySelector<HTMLElement>(`.seat[data-seat="${e.seat}"] .melds .group:last-child`);
        if (taken) travel(taken, before);
      }
    }
  }

  function render(): void {
    // the page left (another route): the socket's last close reports in after that,
    // and must not draw this table over the next page
    if (gone) return;
    const focused = focusKey(document.activeElement);
    const hadModal = root.querySelector(".modal") !== null;
    const before = root.querySelector(".in-play-box .card.shown")?.getBoundingClientRect() ?? null;
    shortSplits = Infinity;
    draw();
    // a short screen: where the hand, wider by its split values, squeezes the play button
    // and the waits beside it into more lines than the hand is high (a long language, my
    // groups on the table), try one value fewer split (it stands four high: style.css),
    // and keep the lowest play row (of equal ones, the most split)
    let best = { splits: splitsDrawn, height: playRowHeight() };
    while (splitsDrawn > 0 && playRowHeight() > handHeight() + 1) {
      shortSplits = splitsDrawn - 1;
      draw();
      if (playRowHeight() < best.height) best = { splits: splitsDrawn, height: playRowHeight() };
    }
    if (splitsDrawn !== best.splits) {
      shortSplits = best.splits;
      draw();
    }
    animate(before);
    restoreFocus(focused, hadModal);
  }

  /** How high my play row (my hand, my groups, the play buttons and the waits) and my
   * hand stand as drawn. */
  function playRowHeight(): number {
    return root.querySelector<HTMLElement>(".mine .play-row")?.offsetHeight ?? 0;
  }
  function handHeight(): number {
    return root.querySelector<HTMLElement>(".mine .play-row .hand")?.offsetHeight ?? 0;
  }

  function draw(): void {
    root.replaceChildren();
    const s = ui.state;
    const page = el("div", { class: "table-page" });
    root.append(page);
    page.append(topBar(), el("div", { class: "errors", role: "alert" }, ui.refusal));
    if (ui.fatal) {
      page.append(notFound());
      return;
    }
    // a hand is over and a person's seat is empty (its player left: the room waits for
    // someone to sit): the waiting room, with its seats to take and the link to share —
    // for a seated player once he has closed the settlement
    const seatFree = s?.view?.result && s.table.seats.some((seat: Json) => seat.kind === "human" && !seat.nickname);
    if (!s || !s.view || (seatFree && (s.you === null || ui.dismissed === s.table.hand_no))) {
      page.append(waitingRoom());
      const d = leaveDialog();
      if (d) page.append(d);
      chat.decorate(root, s);
      return;
    }
    const view = s.view;
    const me = mySeat();
    const playing = playingSeats();
    // the seats in playing order, from mine (a spectator or the 醒家: from the next one)
    const from = playing.findIndex((seat) => seat >= (s.you ?? 0));
    const order = from < 0 ? playing : [...playing.slice(from), ...playing.slice(0, from)];
    const positions = order.length === 2 ? ["bottom", "top"] : ["bottom", "right", "left"];
    const board = el("main", { class: `board players-${order.length}` });
    order.forEach((seat, i) => {
      // a seat sitting the hand out (the 醒家) or a spectator: the first seat takes the
      // bottom row (the board's grid has no "top" area for three seats)
      if (seat !== me) board.append(seatBox(seat, positions[i]));
    });
    board.append(center());
    if (me !== null) {
      const myInfo = view.seats[me];
      const mine = el(
        "section",
        { class: `seat bottom mine${view.turn === me ? " turn" : ""}`, "data-seat": String(me), "aria-label": seatName(me) },
        seatHeader(me, true),
        // my groups and pile: above the hand, or beside it where the screen is short
        // (phones held sideways: style.css)
        el(
          "div",
          { class: "play-row" },
          handColumns(),
          el("div", { class: "my-table" }, el("div", { class: "melds" }, ...myInfo.melds.map((m: Json) => group(m))), pileRow(myInfo.pile)),
          el("div", { class: "side" }, actionBar(), waitsBox()),
        ),
      );
      if (s.you !== null && s.table.seats[s.you].tuoguan) {
        // everyone in 托管: the table waits for a person (the server's flag says so)
        const said = s.table.paused ? t("pausedTuoguan") : t("tuoguan");
        mine.append(el("div", { class: "tuoguan-bar", "data-paused": String(Boolean(s.table.paused)) }, said, button(t("takeBack"), () => socket.send({ type: "takeover" }), "takeover")));
      }
      board.append(mine);
    }
    page.append(board);
    for (const extra of [picker(), settlement(), leaveDialog()]) if (extra) page.append(extra);
    const ticker = root.querySelector(".ticker");
    if (ticker) ticker.scrollTop = ticker.scrollHeight;
    updateClock();
    chat.decorate(root, s);
  }

  function settlement(): HTMLElement | null {
    const s = ui.state;
    if (!s.view.result || ui.dismissed === s.table.hand_no || ui.peeking === s.table.hand_no) return null;
    const next = () => {
      if (ui.left) {
        location.hash = "#/";
        return;
      }
      ui.dismissed = s.table.hand_no;
      socket.send({ type: "next" });
      render();
    };
    // between hands a seat may leave without the escape penalty (the match ends): the
    // window covers the top bar's 离开, so it offers its own
    const away = ui.left || !seated() ? null : button(t("backLobby"), () => leave(false), "settle-leave");
    // the window covers the table and its top bar (帮助, the rules): put aside, the
    // finished hand's table shows, and settleAgain's button brings the window back
    const peek = button(t("viewTable"), () => ((ui.peeking = s.table.hand_no), render()), "settle-peek");
    return settlementPanel(s, settledName, button(ui.left ? t("backLobby") : t("nextHand"), next, "next-hand"), away, peek);
  }

  function describe(e: Json): string {
    const who = e.seat === undefined ? "" : ui.state.table.seats[e.seat]?.nickname ?? "";
    const cards = e.cards ?? (e.hidden ? "▮".repeat(e.hidden) : "");
    // a region's own group names (luzhou: 提 is 垅, 跑 is 招) where the view gives them
    const word = ui.state.view.labels?.[e.kind] ?? (EVENT_TEXT[e.kind] ? t(EVENT_TEXT[e.kind]) : e.kind);
    return `${who} ${word} ${e.kind === "deal" ? "" : cards}`.trim();
  }

  render();
  return () => {
    gone = true;
    shortScreen?.removeEventListener?.("change", onShortScreen);
    window.removeEventListener("resize", onResize);
    cancelAnimationFrame(resizeFrame);
    clearInterval(tick);
    clearTimeout(flashTimer);
    clearTimeout(refusalTimer);
    document.body.classList.remove("at-table");
    chat.close();
    socket.close();
  };
}
