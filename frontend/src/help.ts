// The help page: how to play, and the rules of a preset (as a room plays them when the
// page is opened from a table) — its options, 胡息 table and 名堂 list, all from the
// server's rules core (GET /api/rules/{preset}, /api/rooms/{code}/rules).

import { roomRules, rulesOf, type Json } from "./api";
import { card, el, split } from "./cards";
import { currentLang, t, tf } from "./i18n";
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
  page.append(el("section", {}, el("h2", {}, currentLang() === "zh" ? "结算" : "Scoring"), scoringTable(doc.scoring)));
  page.append(el("section", {}, el("h2", {}, currentLang() === "zh" ? "坐庄、天胡与逃跑" : "Dealer, wins at the deal, escapes"), dealList(doc.deal)));
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

const COLOURS: Record<string, [string, string]> = { black: ["黑", "black"], red: ["红", "red"] };

/** A row's group name: the table's own (泸州: 垅, 招, 列), and its colour where the table
 * scores black and red cards differently. */
function kindName(r: Json): string {
  const standard = KIND_NAMES[r.kind];
  const zh = currentLang() === "zh";
  let name = zh ? (r.label ?? word(standard, r.kind)) : word(standard, r.kind);
  if (!zh && standard && r.label && r.label !== standard[0]) name = `${r.label} (${name})`;
  return r.colour ? `${name} · ${word(COLOURS[r.colour], r.colour)}` : name;
}

function huxiTable(rows: Json[]): HTMLElement {
  const table = el("table", { class: "huxi-table" }, el("tr", {}, el("th", {}, ""), el("th", {}, t("small")), el("th", {}, t("huxi")), el("th", {}, t("big")), el("th", {}, t("huxi"))));
  for (const r of rows) {
    table.append(
      el(
        "tr",
        r.colour ? { "data-kind": r.kind, "data-colour": r.colour } : { "data-kind": r.kind },
        el("th", {}, kindName(r)),
        el("td", {}, ...split(r.small).map((c) => card(c, "mini"))),
        el("td", { class: "huxi-small" }, String(r.small_huxi)),
        el("td", {}, ...split(r.big).map((c) => card(c, "mini"))),
        el("td", { class: "huxi-big" }, String(r.big_huxi)),
      ),
    );
  }
  return table;
}

const COUNTS: Record<string, [string, string]> = { red: ["红字", "red cards"], big: ["大字", "big cards"], small: ["小字", "small cards"] };

/** A 名堂's condition, as the server's rules core states it (rulesdoc.condition_json), in
 * words: nothing is decided here. */
function when(c: Json): string {
  const zh = currentLang() === "zh";
  if (c.all) return (c.all as Json[]).map(when).join(zh ? "，且" : ", and ");
  if (c.all_identical) return zh ? "门子全是同样的牌（坎、碰、偎、臭偎、跑、提、将）" : "every group of identical cards (坎, 碰, 偎, 臭偎, 跑, 提, the pair)";
  const count = word(COUNTS[c.count], c.count);
  if (c.at_least !== undefined) return zh ? `${count} ≥ ${c.at_least} 张` : `${count} ≥ ${c.at_least}`;
  const values = (c.is as number[]).map(String);
  const last = values.pop();
  const list = values.length ? `${values.join(zh ? "、" : ", ")}${zh ? " 或 " : " or "}${last}` : String(last);
  return zh ? `${count} ${list} 张` : `${count}: ${list}`;
}

function mingtangTable(doc: Json): HTMLElement {
  const zh = currentLang() === "zh";
  const table = el("table", { class: "mingtang-table" }, el("tr", {}, el("th", {}, t("mingtangList")), el("th", {}, zh ? "条件" : "when"), el("th", {}, t("fan"))));
  for (const m of doc.mingtang as Json[]) {
    const grows = m.grows ? (zh ? ` 起，${m.grows.above} 张以上每多 1 张加 1` : ` and 1 more per ${m.grows.count} card above ${m.grows.above}`) : "";
    table.append(el("tr", { "data-id": m.id }, el("th", {}, m.name), el("td", { class: "mingtang-when" }, when(m.when)), el("td", {}, `${m.fan}${grows}`)));
  }
  const notes = el("ul", { class: "mingtang-notes" });
  if (doc.mingtang.length) {
    const best = doc.combine === "best";
    notes.append(el("li", { "data-note": "combine" }, zh ? (best ? "几个名堂同时成立时只算番数最大的一个；没有名堂为平胡（1 番）。" : "几个名堂同时成立时番数相加；没有名堂为平胡（1 番）。") : best ? "When several 名堂 hold, only the one of most 番 counts; a win without one is a 平胡 (1 番)." : "When several 名堂 hold, their 番 add up; a win without one is a 平胡 (1 番)."));
  }
  if (doc.haidi) notes.append(el("li", { "data-note": "haidi" }, zh ? "海底胡（胡的是墙上最后一张牌）：平胡加 1 番，名堂胡加 2 番。" : "海底胡 (winning on the wall's last card): 1 番 more on a 平胡, 2 more on a 名堂 win."));
  return el("div", {}, table, notes);
}

/** How a win is paid: the scheme's base count over ranges of 胡息 (computed by the
 * server's settlement code), and what each loser pays. */
function scoringTable(scoring: Json): HTMLElement {
  const zh = currentLang() === "zh";
  const name = scoring.di_name as string;
  const table = el("table", { class: "scoring-table" }, el("tr", {}, el("th", {}, t("huxi")), el("th", {}, name), el("th", {}, zh ? `自摸 ${name}` : `${name} on 自摸`)));
  for (const r of scoring.di as Json[]) {
    const range = r.from === r.to ? String(r.from) : `${r.from}–${r.to}`;
    table.append(el("tr", { "data-from": String(r.from) }, el("th", {}, range), el("td", { class: "di" }, String(r.di)), el("td", { class: "di-zimo" }, String(r.di_zimo))));
  }
  const pays = zh
    ? `每个输家付 ${name} × 番 × 底分 ${scoring.base}，胡家得 ${scoring.losers} 家所付之和；欢乐豆 = 积分 × ${scoring.multiplier}。`
    : `Each loser pays ${name} × 番 × base ${scoring.base}; the winner gets what the ${scoring.losers} losers pay; beans = points × ${scoring.multiplier}.`;
  return el("div", {}, table, el("p", { class: "scoring-pays" }, pays));
}

/** Who deals, the wins at the deal and the escape penalty, as the server's rules core
 * states them (rulesdoc.deal_json): nothing is decided here. */
function dealList(deal: Json): HTMLElement {
  const zh = currentLang() === "zh";
  const lines: [string, string][] = [];
  const passes = deal.draws_to_pass as number | null;
  lines.push([
    "dealer",
    zh
      ? `第一局随机定庄，之后胡牌的人坐庄。${passes === null ? "荒庄时庄家连庄。" : passes === 1 ? "荒庄时由庄家的下家坐庄。" : `荒庄时庄家连庄；连续 ${passes} 局荒庄，由下家坐庄。`}有人离开则本场结束，下一局重新随机定庄。`
      : `The first dealer is drawn at random; then the last winner deals. ${passes === null ? "After a drawn hand (荒庄) the dealer keeps the deal." : passes === 1 ? "After a drawn hand (荒庄) the dealer's 下家 deals." : `After a drawn hand (荒庄) the dealer keeps the deal; after ${passes} in a row it passes to his 下家.`} A player leaving ends the match; the next hand draws a new dealer.`,
  ]);
  const { ti, kan } = deal.tianhu;
  lines.push([
    "tianhu",
    zh
      ? `天胡：发牌后手中有 ${ti} 提，或 提和坎共 ${kan} 个，立即胡牌（不必成牌）${deal.liangzhang_win ? "；庄家 21 张（含亮张）成胡，或闲家手牌加亮张成胡，也可胡" : "；庄家 21 张在打第一张牌前成胡，也是天胡"}。`
      : `天胡: after the deal, ${ti} 提, or ${kan} 提 and 坎 together, win at once (the hand need not be complete)${deal.liangzhang_win ? "; a dealer whose 21 cards (the 亮张 included) are complete, or another player whose hand and the 亮张 are, may also win" : "; so does a dealer whose 21 cards are complete before his first discard"}.`,
  ]);
  const effects: string[] = [];
  if (deal.tianhu_huxi_doubled) effects.push(zh ? "天胡胡息加倍计底" : "a 天胡 counts its 胡息 twice for the base count");
  if (deal.tianhu_fan > 1) effects.push(zh ? `天胡番数 ×${deal.tianhu_fan}` : `a 天胡 multiplies the 番 by ${deal.tianhu_fan}`);
  if (deal.dihu) effects.push(zh ? `地胡（下家胡庄家打出的第一张牌）番数 ×${deal.dihu_fan}` : `地胡 (the dealer's 下家 winning on the dealer's first discard) multiplies the 番 by ${deal.dihu_fan}`);
  if (effects.length) lines.push(["tianhu-pays", (zh ? effects.join("；") + "。" : effects.join("; ") + ".").replace(/^./, (c) => c.toUpperCase())]);
  lines.push([
    "discard",
    deal.win_on_discard
      ? zh ? "可以胡别人打出的牌。" : "A card another player discards may be won."
      : zh ? "只能胡摸出、亮出的牌或自己偎/提的牌，不能胡别人打出的牌。" : "Only a card drawn or shown, or one's own 偎/提, may be won — never a discard.",
  ]);
  const { bonus, base } = deal.escape;
  lines.push(["escape", `${t("leaveMidHand")} ${tf("leaveFormula", { bonus, base })}`]);
  return el("ul", { class: "deal-rules" }, ...lines.map(([key, text]) => el("li", { "data-rule": key }, text)));
}
