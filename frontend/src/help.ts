// The help page: how to play, and the rules of a preset (as a room plays them when the
// page is opened from a table) — its options, 胡息 table and 名堂 list, all from the
// server's rules core (GET /api/rules/{preset}, /api/rooms/{code}/rules).

import { roomRules, rulesOf, type Json } from "./api";
import { card, el, split } from "./cards";
import { currentLang, t } from "./i18n";
import { optionWords, presetName } from "./words";

const KIND_NAMES: Record<string, [string, string]> = {
  sentence: ["一句话", "sentence"],
  jiao: ["绞", "jiao (2+1 of one value)"],
  peng: ["碰", "peng"],
  wei: ["偎", "wei"],
  kan: ["坎", "kan (3 dealt)"],
  pao: ["跑", "pao"],
  ti: ["提", "ti"],
};

const HOW_TO: Record<"zh" | "en", string[]> = {
  zh: [
    "80 张字牌：小字 一…十、大字 壹…拾，各 4 张；贰柒拾 与 二七十 为红字。",
    "庄家 21 张，其余 20 张；轮流摸牌、打牌，可以 吃、碰；跑、提、偎 自动完成。",
    "组成的牌组各有胡息；胡息够了（一般 15）且手牌全部成组即可胡牌。",
    "吃牌时若手里还有同样的牌，必须一起“比”出去。点一张牌选中，再点一次或按“打出”出牌。",
    "胡牌后按 胡息 → 底 → 名堂（番） → 积分 → 欢乐豆 结算。中途离开算逃跑，要赔付。",
  ],
  en: [
    "80 cards: small 一…十 and big 壹…拾, 4 of each; 二七十 and 贰柒拾 are red.",
    "The dealer holds 21 cards, the others 20; draw and discard in turn, eat (吃) or pong (碰); 跑, 提 and 偎 happen by themselves.",
    "Every group scores 胡息; with enough 胡息 (usually 15) and the whole hand in groups you win (胡).",
    "When you eat a card and still hold another of it, you must also lay it out (比). Tap a card to select it; tap again or press Discard.",
    "A win is scored 胡息 → 底 → 名堂 (番) → points → beans. Leaving mid-hand is an escape and costs a penalty.",
  ],
};

function word(pair: [string, string] | undefined, fallback: string): string {
  return pair ? pair[currentLang() === "zh" ? 0 : 1] : fallback;
}

export async function mountHelp(root: HTMLElement, preset: string, room: string | null, rerenderAll: () => void): Promise<void> {
  const doc: Json = room ? await roomRules(room).catch(() => rulesOf(preset)) : await rulesOf(preset);
  root.replaceChildren();
  const lang = el("button", { class: "btn btn-lang", "data-name": "lang", type: "button" }, t("language"));
  lang.addEventListener("click", rerenderAll);
  const back = room ? `#/room/${room}` : "#/";
  root.append(el("nav", { class: "topbar" }, el("a", { href: back, class: "link" }, room ? t("roomCode") + " " + room : t("lobby")), el("h1", {}, t("helpTitle")), lang));
  const page = el("main", { class: "help-page" });
  page.append(el("section", {}, el("h2", {}, t("howTo")), el("ul", {}, ...HOW_TO[currentLang()].map((line) => el("li", {}, line)))));
  const presets = el("nav", { class: "presets", "aria-label": t("preset") });
  for (const name of doc.presets as string[]) presets.append(el("a", { class: "btn", href: `#/help/${name}`, "data-preset": name }, presetName(name)));
  page.append(el("section", {}, el("h2", {}, `${t("options")}: ${presetName(doc.name)}`), presets, optionsTable(doc.options)));
  page.append(el("section", {}, el("h2", {}, t("huxiTable")), huxiTable(doc.huxi)));
  page.append(el("section", {}, el("h2", {}, t("mingtangList")), mingtangTable(doc)));
  root.append(page);
}

function optionsTable(options: Json): HTMLElement {
  const table = el("table", { class: "options" });
  for (const [key, value] of Object.entries(options)) {
    const words = optionWords(key, value); // the catalog's labels: none for the name
    if (words) table.append(el("tr", { "data-option": key }, el("th", {}, words[0]), el("td", {}, words[1])));
  }
  return table;
}

function huxiTable(rows: Json[]): HTMLElement {
  const table = el("table", { class: "huxi-table" }, el("tr", {}, el("th", {}, ""), el("th", {}, t("small")), el("th", {}, t("huxi")), el("th", {}, t("big")), el("th", {}, t("huxi"))));
  for (const r of rows) {
    table.append(
      el(
        "tr",
        { "data-kind": r.kind },
        el("th", {}, word(KIND_NAMES[r.kind], r.kind)),
        el("td", {}, ...split(r.small).map((c) => card(c, "mini"))),
        el("td", { class: "huxi-small" }, String(r.small_huxi)),
        el("td", {}, ...split(r.big).map((c) => card(c, "mini"))),
        el("td", { class: "huxi-big" }, String(r.big_huxi)),
      ),
    );
  }
  return table;
}

function mingtangTable(doc: Json): HTMLElement {
  const table = el("table", { class: "mingtang-table" }, el("tr", {}, el("th", {}, t("mingtangList")), el("th", {}, t("fan"))));
  for (const m of doc.mingtang as Json[]) {
    const grows = m.grows ? (currentLang() === "zh" ? ` 起，${m.grows.above} 张以上每多 1 张加 1` : ` and 1 more per ${m.grows.count} card above ${m.grows.above}`) : "";
    table.append(el("tr", { "data-id": m.id }, el("th", {}, m.name), el("td", {}, `${m.fan}${grows}`)));
  }
  return table;
}
