// The table page: seats, groups, piles, the hand, legal actions, settlement.
// Everything shown comes from the server's state message for this seat.

import { randomValue, TableSocket, type Json } from "./api";
import { card, el, group, info, split } from "./cards";
import { mountChat } from "./chat";
import { t, type Key } from "./i18n";

const EVENT_WORD: Record<string, string> = {
  ti: "ti",
  wei: "wei",
  chouwei: "chouwei",
  pao: "pao",
  no_discard: "noDiscard",
  xianggong: "xianggong",
};

const EVENT_TEXT: Record<string, Key> = {
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
};

interface Ui {
  state: Json | null;
  events: Json[];
  selected: string | null;
  order: number[]; // column order of hand values 1..10
  showWaits: boolean;
  connected: boolean;
  picker: boolean;
  flash: string;
  cards: Json[];
  answered: string | null; // the state hash on which this page last answered a decision
}

export function mountTable(root: HTMLElement, code: string, rerenderAll: () => void): () => void {
  const ui: Ui = {
    state: null,
    events: [],
    selected: null,
    order: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    showWaits: localStorage.getItem("paohuzi.waits") !== "off",
    connected: false,
    picker: false,
    flash: "",
    cards: [],
    answered: null,
  };
  let flashTimer = 0;
  let tick = 0;
  const valueSent = new Set<number>(); // hands this page sent a shuffle value for

  const chat = mountChat((body) => socket.send(body)); // quick chat, presence (chat.ts)
  const socket = new TableSocket(
    code,
    (msg) => {
      if (chat.onMessage(msg)) return;
      if (msg.type === "state") {
        const hand = msg.table.hand_no;
        if (hand !== socket.hand || msg.events_from === 0) ui.events = [];
        socket.hand = hand;
        const fresh: Json[] = msg.events;
        ui.events = ui.events.slice(0, msg.events_from).concat(fresh);
        socket.events = ui.events.length;
        const forced = fresh.map((e) => EVENT_WORD[e.kind]).filter(Boolean);
        if (forced.length && ui.state) {
          ui.flash = forced.map((k) => t(k as never)).join(" · ");
          clearTimeout(flashTimer);
          flashTimer = window.setTimeout(() => {
            ui.flash = "";
            render();
          }, 1600);
        }
        if (msg.view && !msg.view.to_act) ui.picker = false;
        const pending = msg.next_shuffle;
        if (pending && !pending.sent && msg.you !== null && !valueSent.has(pending.hand)) {
          // our share of the next hand's randomness, sent after its commitment is out
          valueSent.add(pending.hand);
          socket.send({ type: "entropy", hand: pending.hand, value: randomValue() });
        }
        ui.state = msg;
        ui.state.receivedAt = performance.now();
        render();
      } else if (msg.type === "error") {
        showError(msg.message);
      }
    },
    (connected) => {
      ui.connected = connected;
      if (connected && socket.hand >= 0) socket.send({ type: "resync", hand: socket.hand, events: socket.events });
      render();
    },
  );
  socket.open();
  tick = window.setInterval(() => updateClock(), 250);

  function showError(message: string): void {
    const box = root.querySelector(".errors");
    if (box) {
      box.textContent = message;
      window.setTimeout(() => (box.textContent = ""), 4000);
    }
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

  function playingSeats(): number[] {
    const seats: (Json | null)[] = ui.state.view.seats;
    return seats.flatMap((info, i) => (info ? [i] : []));
  }

  function updateClock(): void {
    const clock = root.querySelector<HTMLElement>(".clock");
    const s = ui.state;
    if (!clock || !s || s.deadline === null || s.deadline === undefined) return;
    const left = Math.max(0, s.deadline - (performance.now() - s.receivedAt) / 1000);
    clock.textContent = `${Math.ceil(left)}s`;
    clock.classList.toggle("urgent", left < 5);
  }

  function seatBox(seat: number, position: string): HTMLElement {
    const s = ui.state;
    const view = s.view;
    const info = view.seats[seat];
    const seatMeta = s.table.seats[seat];
    const mine = seat === mySeat();
    const name = mine ? `${t("you")} · ${seatMeta.nickname}` : seatMeta.nickname;
    return el(
      "section",
      { class: `seat ${position}${view.turn === seat ? " turn" : ""}`, "data-seat": String(seat) },
      el(
        "header",
        {},
        el("span", { class: "name" }, name),
        view.dealer === seat ? el("span", { class: "badge dealer" }, t("dealer")) : null,
        seatMeta.tuoguan ? el("span", { class: "badge tuoguan" }, t("tuoguan")) : null,
        info.xianggong ? el("span", { class: "badge" }, t("xianggong")) : null,
        el("span", { class: "huxi" }, `${info.table_huxi} ${t("huxi")}`),
        el("span", { class: "score" }, `${t("points")} ${seatMeta.points}`),
        mine ? null : el("span", { class: "count" }, `${t("hand")} ${info.hand_count}`),
      ),
      el("div", { class: "melds" }, ...info.melds.map((m: Json) => group(m))),
      el("div", { class: "pile", title: t("pile") }, ...split(info.pile).map((c) => card(c, "mini"))),
    );
  }

  function handColumns(): HTMLElement {
    const view = ui.state.view;
    const cards = split(view.hand);
    const byValue = new Map<number, string[]>();
    for (const c of cards) {
      const v = info(c)?.point ?? 0;
      byValue.set(v, [...(byValue.get(v) ?? []), c]);
    }
    const legal: string[] = legalActions();
    const discarding = legal.some((a) => a.startsWith("discard "));
    const box = el("div", { class: "hand", "aria-label": t("hand") });
    for (const v of ui.order) {
      const column = byValue.get(v);
      if (!column) continue;
      const col = el("div", { class: "column", draggable: "true", "data-value": String(v) });
      column.sort().forEach((c) => {
        // cards the server does not let you discard (a 坎) are shown locked
        const locked = discarding && !legal.includes(`discard ${c}`);
        const node = card(c, `${locked ? "locked" : ""} ${ui.selected === c ? "selected" : ""}`);
        node.addEventListener("click", () => {
          if (ui.selected === c && legal.includes(`discard ${c}`)) {
            act(`discard ${c}`);
            return;
          }
          ui.selected = ui.selected === c ? null : c;
          render();
        });
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
      box.append(col);
    }
    return box;
  }

  function actionBar(): HTMLElement {
    const view = ui.state.view;
    const legal: string[] = legalActions();
    const bar = el("div", { class: "actions" });
    if (!legal.length) {
      bar.append(el("span", { class: "hint" }, view.result ? "" : t("waiting")));
      return bar;
    }
    bar.append(el("span", { class: "hint your-turn" }, t("yourTurn")));
    const chis = legal.filter((a) => a.startsWith("chi "));
    for (const a of legal) {
      if (a === "hu") bar.append(button(t("hu"), () => act("hu"), "hu"));
      if (a === "peng") bar.append(button(t("peng"), () => act("peng"), "peng"));
    }
    if (chis.length === 1) bar.append(button(t("chi"), () => act(chis[0]), "chi"));
    if (chis.length > 1) bar.append(button(`${t("chi")} ▾`, () => ((ui.picker = true), render()), "chi"));
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
    const legal: string[] = legalActions();
    const list = el("div", { class: "picker-list" });
    for (const a of legal.filter((x) => x.startsWith("chi "))) {
      const groups = a.slice(4).replace(/比/g, " ").split(/\s+/).filter(Boolean);
      const row = el("button", { class: "pick", "data-action": a });
      groups.forEach((g, i) => row.append(el("span", { class: i ? "group bi" : "group eat" }, ...split(g).map((c) => card(c)))));
      row.addEventListener("click", () => act(a));
      list.append(row);
    }
    return el(
      "div",
      { class: "modal picker", role: "dialog" },
      el("div", { class: "panel" }, el("h3", {}, t("chooseBi")), list, button(t("cancel"), () => ((ui.picker = false), render()), "cancel")),
    );
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
          list.append(el("span", { class: "wait" }, card(w.card, "mini"), ` ${w.other ?? w.self} ${t("huxi")}`));
        }
      }
    }
    return el("div", { class: "waits-box" }, toggle, list);
  }

  function settlement(): HTMLElement | null {
    const s = ui.state;
    const result = s.view.result;
    if (!result) return null;
    const names: string[] = s.table.seats.map((seat: Json) => seat.nickname);
    const rows = playingSeats().map((i) =>
      el("tr", { class: i === result.winner ? "winner" : "" }, el("td", {}, names[i]), el("td", { class: "pts" }, String(result.points[i])), el("td", { class: "beans" }, String(result.beans[i]))),
    );
    const body = el("div", { class: "panel settlement" }, el("h3", {}, t("settlement")));
    if (result.reason === "huangzhuang") {
      body.append(el("p", { class: "reason" }, t("huangzhuang")));
      (s.view.revealed_hands ?? []).forEach((h: string | null, i: number) => {
        if (h !== null) body.append(el("div", { class: "revealed" }, el("span", {}, names[i]), ...split(h).map((c) => card(c, "mini"))));
      });
    } else if (result.reason === "escape") {
      body.append(el("p", { class: "reason" }, `${names[result.leaver]} ${t("escape")}`));
    } else {
      const flags = [result.zimo && t("zimo"), result.haidi && t("haidi"), result.tianhu && t("tianhu")].filter(Boolean).join(" · ");
      body.append(
        el("p", { class: "reason" }, `${t("winner")}: ${names[result.winner]}`, flags ? el("span", { class: "flags" }, ` ${flags}`) : null),
        el(
          "div",
          { class: "win-groups" },
          ...(result.groups ?? []).map((g: Json) =>
            el("span", { class: "win-group" }, group({ kind: g.kind, cards: g.cards }), el("small", {}, `${g.huxi}`)),
          ),
        ),
        el(
          "p",
          { class: "totals" },
          el("span", { class: "total-huxi" }, `${t("huxi")} ${result.huxi}`),
          " · ",
          el("span", { class: "total-di" }, `${t("di")} ${result.di}`),
          " · ",
          el("span", { class: "total-fan" }, `${t("fan")} ${result.fan}`),
        ),
        el(
          "ul",
          { class: "mingtang" },
          ...(result.mingtang.length ? result.mingtang : [{ name: t("pinghu"), fan: 1 }]).map((m: Json) => el("li", {}, `${m.name} ${m.fan}${t("fan")}`)),
        ),
      );
    }
    body.append(
      el("table", { class: "points" }, el("tr", {}, el("th", {}, ""), el("th", {}, t("points")), el("th", {}, t("beans"))), ...rows),
      button(t("nextHand"), () => socket.send({ type: "next" }), "next-hand"),
    );
    return el("div", { class: "modal" }, body);
  }

  function rulesLine(rules: Json): HTMLElement {
    const details = el("details", { class: "rules-line" }, el("summary", {}, `${t("rules")}: ${rules.name} · ${t("base")} ${rules.base} · ${t("multiplier")} ${rules.multiplier}`));
    details.append(el("pre", { class: "rules" }, JSON.stringify(rules, null, 1)));
    return details;
  }

  function button(label: string, onClick: () => void, name: string): HTMLElement {
    const b = el("button", { class: `btn btn-${name}`, "data-name": name }, label);
    b.addEventListener("click", onClick);
    return b;
  }

  function render(): void {
    root.replaceChildren();
    const s = ui.state;
    const top = el(
      "nav",
      { class: "topbar" },
      el("a", { href: "#/", class: "link" }, t("lobby")),
      el("span", { class: "room" }, `${t("roomCode")}: `, el("code", { class: "room-code" }, code)),
      s ? rulesLine(s.table.rules) : null,
      ui.connected ? null : el("span", { class: "banner reconnecting" }, t("reconnecting")),
      button(t("language"), () => rerenderAll(), "lang"),
    );
    root.append(top, el("div", { class: "errors", role: "alert" }));
    if (!s || !s.view) {
      root.append(el("p", { class: "hint" }, t("seatsTaken")));
      if (s && s.you === null) {
        s.table.seats.forEach((seat: Json, i: number) => {
          if (seat.kind === "human" && !seat.nickname) root.append(button(`${t("sit")} ${i}`, () => socket.send({ type: "sit", seat: i }), `sit-${i}`));
        });
      }
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
    const board = el("main", { class: "board" });
    order.forEach((seat, i) => {
      if (seat !== me) board.append(seatBox(seat, positions[i]));
    });
    const myTuoguan = s.you !== null && s.table.seats[s.you].tuoguan;
    board.append(
      el(
        "section",
        { class: "center" },
        el("div", { class: "liangzhang" }, `${t("liangzhang")} `, card(view.liangzhang, "mini")),
        el("div", { class: "wall" }, `${t("wall")} `, el("b", { class: "wall-count" }, String(view.wall))),
        view.in_play ? el("div", { class: "in-play" }, card(view.in_play, "shown")) : null,
        el("div", { class: "clock" }, ""),
        ui.flash ? el("div", { class: "flash" }, ui.flash) : null,
      ),
    );
    if (me !== null) {
      const mine = seatBox(me, "bottom");
      mine.append(handColumns(), actionBar(), waitsBox());
      if (myTuoguan) mine.append(el("div", { class: "tuoguan-bar" }, t("tuoguan"), button(t("takeBack"), () => socket.send({ type: "takeover" }), "takeover")));
      board.append(mine);
    }
    root.append(board);
    const ticker = el("ol", { class: "ticker" });
    ui.events.slice(-6).forEach((e) => ticker.append(el("li", {}, describe(e, s))));
    root.append(ticker);
    const p = picker();
    if (p) root.append(p);
    const settle = settlement();
    if (settle) root.append(settle);
    updateClock();
    chat.decorate(root, s);
  }

  function describe(e: Json, s: Json): string {
    const who = e.seat === undefined ? "" : s.table.seats[e.seat]?.nickname ?? "";
    const cards = e.cards ?? (e.hidden ? "▮".repeat(e.hidden) : "");
    const word = EVENT_TEXT[e.kind] ? t(EVENT_TEXT[e.kind]) : e.kind;
    return `${who} ${word} ${e.kind === "deal" ? "" : cards}`.trim();
  }

  render();
  return () => {
    clearInterval(tick);
    chat.close();
    socket.close();
  };
}
