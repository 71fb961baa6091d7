// The settlement window: every seat's groups and hand face up, the winning card marked,
// 胡息 → 底 (自摸) → each 名堂 with its 番 (海底/天胡) → points → beans, the 醒家's row.
// Every number is the server's (the result it sends); nothing is computed here.

import type { Json } from "./api";
import { card, el, group, split } from "./cards";
import { currentLang, t, type Key } from "./i18n";
import { diWord, seatOutWord } from "./words";

export function settlementPanel(s: Json, seatName: (seat: number) => string, next: HTMLElement, ...more: (HTMLElement | null)[]): HTMLElement {
  const view = s.view;
  const result = view.result;
  const rules = s.table.rules;
  const body = el("div", { class: "panel settlement" }, el("h2", {}, t("settlement")));
  body.append(el("p", { class: "reason" }, reasonText(result, seatName)));
  // the match's end (大结算) first: below this hand's rows it opened out of sight on a
  // phone held sideways, and the window still said 下一局
  if (s.table.summary) body.append(matchSummary(s.table.summary, s, seatName));
  if (result.card) {
    body.append(el("p", { class: "win-card-line" }, `${t("winCard")} `, card(result.card, "mini winning win-card")));
  }
  // the score (胡息 → 底 → 番 → points) before the rows: on a phone held sideways it is
  // in view at once
  if (result.winner !== undefined && result.huxi !== undefined) body.append(breakdown(result, rules));
  body.append(seatsTable(s, seatName));
  // kept in view at the panel's foot while its rows scroll (phones held sideways)
  body.append(el("div", { class: "settle-foot" }, next, ...more, el("p", { class: "next-countdown", role: "timer" }, "")));
  return el("div", { class: "modal settlement-modal", role: "dialog", "aria-modal": "true", "aria-label": t("settlement") }, body);
}

function reasonText(result: Json, seatName: (seat: number) => string): string {
  if (result.reason === "huangzhuang") return t("huangzhuang");
  if (result.reason === "escape") return `${seatName(result.leaver)} ${t("escape")} · ${t("penalty")} ${-result.points[result.leaver]}`;
  const flags = (["zimo", "haidi", "tianhu", "dihu"] as Key[]).filter((k) => result[k]).map((k) => t(k));
  return [`${t("winner")}: ${seatName(result.winner)}`, ...flags].join(" · ");
}

/** One row per seat: name, groups (the winner's as he won, the others' as they lie, all
 * face up) and hand, points, beans. */
function seatsTable(s: Json, seatName: (seat: number) => string): HTMLElement {
  const view = s.view;
  const result = view.result;
  const settled = Boolean(s.table.settlement?.settled);
  const table = el(
    "table",
    // data-settled: the beans shown are those that moved (tests wait for it)
    settled ? { class: "points", "data-settled": "1" } : { class: "points" },
    el("tr", {}, el("th", {}, t("seat")), el("th", {}, t("groupsAndHand")), el("th", {}, t("points")), el("th", {}, t("beans"))),
  );
  // the finished hand as the server settled it (its settlement view): table.xingjia is
  // already the next hand's once the deal has moved
  const finished: Json | null = s.table.settlement ?? null;
  // the beans a match seat's account actually paid or gained, once the hand is settled
  // (rows are match seats, as `moved` is):
  // "—" where none moved (a computer, practice against a weaker computer, a room of its
  // own stakes); the rules' figure only until then
  const beansOf = (matchSeat: number | null | undefined, rulesBeans: number): string => {
    if (!finished?.settled || matchSeat === null || matchSeat === undefined) return String(rulesBeans);
    const moved = finished.moved?.[matchSeat];
    return moved === null || moved === undefined ? "—" : String(moved);
  };
  view.seats.forEach((seatInfo: Json | null, i: number) => {
    if (!seatInfo) return;
    const cards = el("td", { class: "cards" });
    const winner = i === result.winner && result.groups;
    const groups: Json[] = winner ? result.groups : seatInfo.melds;
    cards.append(...groups.map((g) => group(g, true, winner ? result.card ?? null : null)));
    const hand = winner ? result.leftover ?? "" : view.revealed_hands?.[i] ?? "";
    if (hand) cards.append(el("span", { class: "revealed" }, ...split(hand).map((c) => card(c, "mini"))));
    table.append(
      el(
        "tr",
        { class: i === result.winner ? "winner" : "", "data-seat": String(i) },
        el("td", { class: "who" }, seatName(i), levelBadge(s, i)),
        cards,
        el("td", { class: "pts" }, String(result.points[i])),
        el("td", { class: "beans" }, beansOf(i, result.beans[i])),
      ),
    );
  });
  const x: number | null | undefined = finished ? finished.xingjia : s.table.xingjia;
  if (x !== null && x !== undefined) {
    const points = result.xingjia_points ?? 0;
    table.append(
      el(
        "tr",
        { class: "xingjia", "data-seat": String(x) },
        el("td", { class: "who" }, `${seatName(x)} · ${seatOutWord(s.table.rules)}`, levelBadge(s, x)),
        el("td", {}, ""),
        el("td", { class: "pts" }, String(points)),
        el("td", { class: "beans" }, beansOf(x, finished?.beans?.[x] ?? points * (s.table.rules.multiplier ?? 1))),
      ),
    );
  }
  return table;
}

/** 胡息 → 底 → 名堂 (番) → points → beans, as the server computed them. */
function breakdown(result: Json, rules: Json): HTMLElement {
  const di = diWord(rules.settlement);
  const mingtang: Json[] = result.mingtang ?? [];
  const list = el("ul", { class: "mingtang" });
  if (!mingtang.length) list.append(el("li", {}, `${t("pinghu")} 1${t("fan")}`));
  for (const m of mingtang) list.append(el("li", { class: "mingtang-row" }, el("b", {}, m.name), ` ${m.fan}${t("fan")}`));
  if (result.haidi) list.append(el("li", {}, t("haidi")));
  // 泸州's 天胡/地胡 double the 番 (the server's fan_times)
  if (result.fan_times > 1) list.append(el("li", { class: "fan-times" }, `${(["tianhu", "dihu"] as Key[]).filter((k) => result[k]).map((k) => t(k)).join(" ")} ×${result.fan_times}`));
  const winnerPoints = result.points[result.winner];
  return el(
    "div",
    { class: "breakdown" },
    el(
      "p",
      { class: "totals" },
      el("span", { class: "total-huxi" }, `${t("huxi")} ${result.huxi}`),
      " → ",
      el("span", { class: "total-di" }, `${di} ${result.di}${result.zimo ? ` (${t("zimo")})` : ""}`),
      " → ",
      el("span", { class: "total-fan" }, `${t("fan")} ${result.fan}`),
      " → ",
      el("span", { class: "total-points" }, `${t("points")} ${winnerPoints > 0 ? "+" : ""}${winnerPoints}`),
      " → ",
      el("span", { class: "total-beans" }, `${t("beans")} ${result.beans[result.winner]}`),
    ),
    list,
  );
}

/** A person's level title (the server's `table.levels`, per match seat; none for a computer). */
export function levelBadge(s: Json, seat: number): HTMLElement | null {
  const level: Json | null | undefined = s.table.levels?.[seat];
  if (!level) return null;
  return el("span", { class: "badge level-title", "data-level": String(level.number) }, currentLang() === "zh" ? level.title : level.english);
}

/** The 大结算 when a match of a set number of hands ends: each seat's total points, beans
 * actually moved (none for a computer), wins and best hand, as the server sent them. */
function matchSummary(summary: Json, s: Json, seatName: (seat: number) => string): HTMLElement {
  const table = el(
    "table",
    { class: "summary-table" },
    el("tr", {}, el("th", {}, t("seat")), el("th", {}, t("points")), el("th", {}, t("beans")), el("th", {}, t("wins")), el("th", {}, t("bestHand"))),
  );
  for (const row of summary.seats as Json[]) {
    const best: Json | null = row.best;
    const bestText = best ? `#${best.hand} ${best.points > 0 ? "+" : ""}${best.points}${best.huxi !== null && best.huxi !== undefined ? ` (${best.huxi}${t("huxi")})` : ""}` : "—";
    table.append(
      el(
        "tr",
        { class: "summary-row", "data-seat": String(row.seat) },
        el("td", { class: "who" }, seatName(row.seat), levelBadge(s, row.seat)),
        el("td", { class: "pts" }, String(row.points)),
        el("td", { class: "beans" }, row.beans === null || row.beans === undefined ? "—" : String(row.beans)),
        el("td", { class: "wins" }, String(row.wins)),
        el("td", { class: "best" }, bestText),
      ),
    );
  }
  return el(
    "section",
    { class: "match-summary", "data-name": "match-summary" },
    el("h3", {}, `${t("matchSummary")} · ${summary.hands} ${t("matchHands")}`),
    table,
  );
}
