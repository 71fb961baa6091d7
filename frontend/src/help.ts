// The help page: how to play, and the rules of a preset (as a room plays them when the
// page is opened from a table) — its options, 胡息 table and 名堂 list, all from the
// server's rules core (GET /api/rules/{preset}, /api/rooms/{code}/rules).

import { roomRules, rulesOf, type Json } from "./api";
import { card, el, split } from "./cards";
import { currentLang, t } from "./i18n";
import { escapeFormula, optionWords, presetName } from "./words";

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

/** The help page: ``room``'s rules (opened from its table), else ``preset``'s; ``from``:
 * the room whose table the reader came from (the way back leads there). */
export async function mountHelp(root: HTMLElement, preset: string, room: string | null, rerenderAll: () => void, from: string | null = null): Promise<void> {
  const doc: Json = room ? await roomRules(room).catch(() => rulesOf(preset)) : await rulesOf(preset);
  root.replaceChildren();
  const lang = el("button", { class: "btn btn-lang", "data-name": "lang", type: "button" }, t("language"));
  lang.addEventListener("click", rerenderAll);
  const table = room ?? from;
  const back = table ? `#/room/${table}` : "#/";
  root.append(el("nav", { class: "topbar" }, el("a", { href: back, class: "link", "data-name": "back" }, table ? t("roomCode") + " " + table : t("lobby")), el("h1", {}, t("helpTitle")), lang));
  const page = el("main", { class: "help-page" });
  page.append(el("section", {}, el("h2", {}, t("howTo")), el("ul", {}, ...HOW_TO[currentLang()].map((line) => el("li", {}, line)))));
  const presets = el("nav", { class: "presets", "aria-label": t("preset") });
  for (const name of doc.presets as string[]) {
    // the room's own preset leads back to the room's rules; the others keep the way back
    const href = table ? (room && name === doc.name ? `#/help/${name}?room=${room}` : `#/help/${name}?from=${table}`) : `#/help/${name}`;
    const attrs: Record<string, string> = { class: "btn", href, "data-preset": name };
    if (name === doc.name) attrs["aria-current"] = "page";
    presets.append(el("a", attrs, presetName(name)));
  }
  page.append(el("section", {}, el("h2", {}, `${t("options")}: ${presetName(doc.name)}`), presets, optionsTable(doc.options, doc.applying)));
  page.append(el("section", {}, el("h2", {}, currentLang() === "zh" ? "基本规则" : "How a hand is played"), playList(doc.deal)));
  page.append(el("section", {}, el("h2", {}, t("huxiTable")), huxiTable(doc.huxi)));
  page.append(el("section", {}, el("h2", {}, t("mingtangList")), mingtangTable(doc)));
  page.append(el("section", {}, el("h2", {}, currentLang() === "zh" ? "结算" : "Scoring"), scoringTable(doc.scoring)));
  page.append(el("section", {}, el("h2", {}, currentLang() === "zh" ? "坐庄、天胡与逃跑" : "Dealer, wins at the deal, escapes"), dealList(doc.deal)));
  root.append(page);
}

/** The options that do something in these rules (the server's `applying`; every one where
 * an older server sends none). */
function optionsTable(options: Json, applying: string[] | undefined): HTMLElement {
  const table = el("table", { class: "options" });
  for (const [key, value] of Object.entries(options)) {
    if (applying && !applying.includes(key)) continue;
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
  if (!doc.mingtang.length) {
    table.hidden = true;
    notes.append(el("li", { "data-note": "none" }, zh ? "本玩法不算名堂：番数为 1（天胡、地胡见下）。" : "These rules score no 名堂: the 番 is 1 (天胡 and 地胡: below)."));
  } else {
    const best = doc.combine === "best";
    notes.append(el("li", { "data-note": "combine" }, zh ? (best ? "几个名堂同时成立时只算番数最大的一个；没有名堂为平胡（1 番）。" : "几个名堂同时成立时番数相加；没有名堂为平胡（1 番）。") : best ? "When several 名堂 hold, only the one of most 番 counts; a win without one is a 平胡 (1 番)." : "When several 名堂 hold, their 番 add up; a win without one is a 平胡 (1 番)."));
  }
  if (doc.mingtang.length) notes.append(el("li", { "data-note": "counts" }, zh ? "红字、大字、小字的张数按胡家所有的牌算（含胡的那张）。" : "Red, big and small counts are over every card the winner owns, the winning card included."));
  if ((doc.mingtang as Json[]).some((m) => m.when.all_identical)) notes.append(el("li", { "data-note": "tianhu-duidui" }, zh ? "发牌后的强制天胡，牌全在提、坎里（最多再加一对将）时算对对胡。" : "A 天胡 at the deal is a 对对胡 when all its cards lie in 提 and 坎, with at most one pair besides."));
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
    : `Each loser pays ${name} × 番 × base ${scoring.base}; the winner gets what ${scoring.losers === 1 ? "the loser pays" : `the ${scoring.losers} losers pay`}; beans = points × ${scoring.multiplier}.`;
  return el("div", {}, table, el("p", { class: "scoring-pays" }, pays));
}

/** How a hand is played (docs/rules.md §2–§4, §6), the lines that depend on the rules
 * read from the server's rules core (rulesdoc.deal_json). */
function playList(deal: Json): HTMLElement {
  const zh = currentLang() === "zh";
  const tiWei = deal.win_on_ti_wei !== false;
  const lines: [string, string][] = [
    ["menzi", zh
      ? "胡牌时手里和桌上的牌正好组成 7 个门子（一句话、绞、碰、偎、坎、跑、提各算一个）；有跑或提时，其中必须有且只有一对将。坎不能拆。"
      : "A winning hand and table make exactly 7 门子 (each sentence, 绞, 碰, 偎, 坎, 跑 and 提 is one); with a 跑 or 提 one of them must be a pair (将), else none. A 坎 is never broken."],
    ["auto", zh
      ? "偎、提、跑 是强制的，自动完成：自己摸到手里坎或桌上偎的第四张就提，摸到手里对子的第三张就偎；别人打出或摸出你手里坎、桌上偎的第四张就跑，任何人（包括自己）从墙上摸出你桌上碰的第四张也跑（打出的牌不会让碰变成跑）。自己摸到要提、偎的牌，别人不能吃、碰、跑，也不能胡；提不拆开去胡别的组法（破跑不破提），能胡时可以不跑而把这张牌组进别的门子（破跑胡）。"
      : "偎, 提 and 跑 are forced and happen by themselves: drawing the 4th card of your hand 坎 or table 偎 is a 提, drawing the 3rd of a hand pair a 偎; another player's discard or draw of the 4th of your hand 坎 or table 偎 is a 跑, and so is anyone's draw (yours too) of the 4th of your table 碰 (a discard never turns a 碰 into a 跑). A drawn card you 提 or 偎 is yours alone: nobody else may take or win it; a 提 is never broken to win another way (破跑不破提), while a 跑 may be, to win (破跑胡)."],
    ["priority", zh
      ? `一张牌亮出后：胡 先于 跑，跑 先于 碰，碰 先于 吃；几家都能胡时摸牌者先，然后是他的下家、上家；吃 只能吃上家打出的牌，或自己、上家摸出的牌。${deal.win_on_discard ? "几家都能胡别人打出的牌时，从打牌者的下家起依次轮流。" : ""}`
      : `When a card is shown: 胡 comes before 跑, 跑 before 碰, 碰 before 吃; of several who may win, the drawer first, then his 下家, then his 上家; you may eat (吃) only your 上家's discard, or a card you or your 上家 drew.${deal.win_on_discard ? " Of several who may win on a discard, the discarder's 下家 first, then on round the table in turn." : ""}`],
    ["bi", zh
      ? "比牌：吃了一张牌后手里还有这张牌（坎里的除外），每一张都要一起比出去，各自和手里别的牌组成一句话或绞（一个绞可以带两张，如 小2 小2 大2）；比不出去就不能吃。"
      : "比: after eating a card, every copy of it left in your hand (outside a 坎) must be laid down too, each in a further sentence or 绞 with other hand cards (one 绞 may carry two: 小2 小2 大2); if they cannot all be, you may not eat it."],
    ["chou", zh
      ? `臭牌：自己打出过的牌，或能吃、能碰却没有要的牌，之后不能再吃${deal.chou_blocks_peng ? "或碰" : "（还可以碰）"}；偎、提照样要做（过碰后自己摸到第三张照样要偎，叫臭偎），也照样能胡。想吃的牌被别人碰或跑走，不算臭牌。`
      : `臭 cards: a card you discarded, or could eat or pong and passed, may not be eaten${deal.chou_blocks_peng ? " or ponged" : " (it may still be ponged)"} by you again; you still must 偎/提 it (drawing the 3rd of a pair you declined to pong is a 偎 all the same: 臭偎), and may still win on it. A card you wanted to eat that another player's 碰 or 跑 took first is not 臭.`],
    ["win-group", zh
      ? `胡的那张牌补成的门子按补成后的算：别人的牌补手里对子算碰（碰胡）${tiWei ? "，自己摸的算偎（偎胡）" : ""}；别人的牌补手里坎或桌上偎算跑（跑胡）${tiWei ? "，自己摸的算提（提胡）" : ""}；摸出的牌补桌上碰算跑。${tiWei ? "" : "（自己要偎、提的牌不能胡。）"}所有组法中取胡息最高的一种。`
      : `The group the winning card completes is scored as what it becomes: another player's card on a hand pair is a 碰 (碰胡)${tiWei ? ", a self-drawn one a 偎 (偎胡)" : ""}; another player's card on a hand 坎 or table 偎 is a 跑 (跑胡)${tiWei ? ", a self-drawn one a 提 (提胡)" : ""}; any drawn card on a table 碰 is a 跑.${tiWei ? "" : " (A card you would 偎 or 提 cannot be won.)"} Of all the ways to arrange the hand, the one of most 胡息 counts.`],
    ["chouhu", zh
      ? "臭胡：能胡某张牌而选择过，在自己桌面胡息变化之前不能再胡这张牌。"
      : "臭胡: pass a win on a card, and you may not win on that card again until your table 胡息 changes."],
    ["discard-after", zh
      ? "吃、碰、偎、跑、提之后，手里和桌上的牌多于 20 张（第一个以外的每个跑/提再加 1 张）时要打出一张：通常吃、碰、偎和第一个跑/提之后要打，第二个及以后的跑/提之后不打，由下家摸牌（发牌时已有两个提的闲家，第一次进牌后也不打；那次进牌若是跑/提，下一次进牌后也不打）。"
      : "After a 吃, 碰, 偎, 跑 or 提 you discard one card when you own more than 20 cards (plus one for each 跑/提 beyond your first): usually after a 吃, 碰, 偎 or your first 跑/提, not after a second or later 跑/提 (your 下家 draws), nor after the first intake of a non-dealer dealt two 提 (nor, if that intake was a 跑/提, after the next one)."],
    ["xianggong", zh
      ? "相公：该打牌时手里只剩坎牌打不出，就跳过出牌，本局不能再胡。"
      : "相公: a player who must discard but holds only 坎 cards skips the discard and can no longer win this hand."],
  ];
  return el("ul", { class: "play-rules" }, ...lines.map(([key, text]) => el("li", { "data-rule": key }, text)));
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
      ? `天胡：发牌后手中有 ${ti} 提，或 提和坎共 ${kan} 个，立即胡牌（不必成牌）${deal.liangzhang_win ? "；庄家 21 张（含亮张）成胡，或闲家手牌加亮张成胡，也可胡" : "；庄家 21 张在打第一张牌前成胡，也是天胡"}。几家同时可以天胡时，庄家先，然后庄家的下家、上家${deal.liangzhang_win ? "；强制天胡先于亮张胡" : ""}。庄家的天胡和发牌后的强制天胡都算自摸${deal.liangzhang_win ? "（闲家胡亮张不算）" : ""}。`
      : `天胡: after the deal, ${ti} 提, or ${kan} 提 and 坎 together, win at once (the hand need not be complete)${deal.liangzhang_win ? "; a dealer whose 21 cards (the 亮张 included) are complete, or another player whose hand and the 亮张 are, may also win" : "; so does a dealer whose 21 cards are complete before his first discard"}. Several at once: the dealer first, then his 下家, then his 上家${deal.liangzhang_win ? "; a 天胡 at the deal outranks a 亮张 win" : ""}. A dealer's 天胡, and every 天胡 at the deal, counts as 自摸${deal.liangzhang_win ? " (a non-dealer winning on the 亮张 does not)" : ""}.`,
  ]);
  const effects: string[] = [];
  if (deal.tianhu_huxi_doubled) effects.push(zh ? "天胡胡息加倍计底" : "a 天胡 counts its 胡息 twice for the base count");
  if (deal.tianhu_fan > 1) effects.push(zh ? `天胡番数 ×${deal.tianhu_fan}` : `a 天胡 multiplies the 番 by ${deal.tianhu_fan}`);
  if (deal.dihu) effects.push(zh ? `地胡（下家胡庄家打出的第一张牌）番数 ×${deal.dihu_fan}` : `地胡 (the dealer's 下家 winning on the dealer's first discard) multiplies the 番 by ${deal.dihu_fan}`);
  if (effects.length) lines.push(["tianhu-pays", (zh ? effects.join("；") + "。" : effects.join("; ") + ".").replace(/^./, (c) => c.toUpperCase())]);
  const tiWei = deal.win_on_ti_wei !== false;
  const drawn = zh
    ? `摸出、${deal.liangzhang_win ? "亮出的牌" : "翻出的牌"}${tiWei ? "或自己偎/提的牌" : "（自己要偎/提的牌不能胡）"}`
    : `a card drawn or shown${tiWei ? ", or one's own 偎/提," : " (never a card one would 偎 or 提)"}`;
  lines.push([
    "discard",
    deal.win_on_discard
      ? zh ? `可以胡${drawn}，也可以胡别人打出的牌。` : `You may win on ${drawn} and on a card another player discards.`
      : zh ? `只能胡${drawn}，不能胡别人打出的牌。` : `Only ${drawn} may be won — never a discard.`,
  ]);
  if (deal.dipai_shown) {
    lines.push([
      "dipai",
      zh
        ? "墙上最后一张牌（底牌）亮给所有人，谁也不能胡；亮出的若是红字，放到墙顶，再亮下一张，直到亮出黑字。"
        : "The wall's last card (底牌) is shown to everyone and can never be won; a red one goes to the top of the wall and the next is shown, until a black card shows.",
    ]);
  }
  const out = deal.seat_out as { name: string; paid: number } | null | undefined;
  if (out) {
    lines.push([
      "seat-out",
      zh
        ? `四人一桌，庄家对面的一家（${out.name}）不打这一局，随坐庄轮换；${out.paid ? `每个输家付他 ${out.paid} 分，荒庄时由庄家付他 ${out.paid} 分。` : "他不收也不付。"}`
        : `Four at the table: the seat opposite the dealer (${out.name}) sits the hand out, turning with the deal; ${out.paid ? `each loser pays him ${out.paid}, and after a drawn hand the dealer pays him ${out.paid}.` : "he neither pays nor is paid."}`,
    ]);
  }
  const { bonus, base } = deal.escape;
  lines.push(["escape", `${t("leaveMidHand")} ${escapeFormula(deal.players ?? 3, bonus, base)}`]);
  return el("ul", { class: "deal-rules" }, ...lines.map(([key, text]) => el("li", { "data-rule": key }, text)));
}
