// The lobby: nickname, play the computer, create or join a room, your record, past games
// and the leaderboard. Every preset, rule option, room option, 场次 and computer player
// comes from GET /api/presets (docs/protocol.md): nothing about the rules is written here.

import "./hall.css";
import { call, createRoom, me, register, SETTLEMENT_WAIT, type Json } from "./api";
import { el } from "./cards";
import { currentLang, inMyLanguage, t, tf } from "./i18n";
import { reasonWords } from "./words";

type Label = { zh: string; en: string };
type Choice = { value: string | number; label: Label };
interface OptionSpec {
  key: string;
  kind: string; // int, bool, choice, text (rule options); number, choice (room options)
  label: Label;
  doc?: string;
  default: Json; // per preset for rule options, one value for room options
  applies_to?: string[];
  low?: number;
  high?: number;
  choices?: Choice[];
  seats?: "count" | "adds";
  needs?: Record<string, Json>; // other options' values this one applies with (the core's NEEDS)
}
interface Catalog {
  presets: { name: string; label: Label; rules: Record<string, Json> }[];
  options: OptionSpec[];
  room_options: OptionSpec[];
  changci: { key: string; title: string; english: string; multiplier: number; entry: number }[];
  levels: { number: number; title: string; english: string; min_points: number }[];
  computers: (Choice & { practice?: boolean })[]; // practice: its hands count toward nothing lifetime
  economy: { starting_beans: number; relief: number; relief_below: number };
}

const say = (label: Label): string => label[currentLang()];

/** One input for an option: a number field, a checkbox or a choice list. */
function inputFor(spec: OptionSpec, name: string): HTMLInputElement | HTMLSelectElement {
  if (spec.kind === "bool") return el("input", { name, type: "checkbox" }) as HTMLInputElement;
  if (spec.choices) {
    const select = el("select", { name }) as HTMLSelectElement;
    for (const c of spec.choices) select.append(el("option", { value: String(c.value) }, say(c.label)));
    return select;
  }
  const attrs: Record<string, string> = { name, type: "number" };
  if (spec.low !== undefined) attrs.min = String(spec.low);
  if (spec.high !== undefined) attrs.max = String(spec.high);
  if (spec.kind === "number") attrs.step = "any";
  return el("input", attrs) as HTMLInputElement;
}

function setValue(input: HTMLInputElement | HTMLSelectElement, value: Json): void {
  if (input instanceof HTMLInputElement && input.type === "checkbox") input.checked = Boolean(value);
  else input.value = String(value);
}

function valueOf(spec: OptionSpec, input: HTMLInputElement | HTMLSelectElement): Json {
  if (input instanceof HTMLInputElement && input.type === "checkbox") return input.checked;
  if (spec.kind === "int" || spec.kind === "number") return Number(input.value);
  const choice = spec.choices?.find((c) => String(c.value) === input.value);
  return choice ? choice.value : input.value;
}

function presetSelect(cat: Catalog, name: string): HTMLSelectElement {
  const select = el("select", { name }) as HTMLSelectElement;
  for (const p of cat.presets) select.append(el("option", { value: p.name }, say(p.label)));
  return select;
}

function changciLabel(c: Catalog["changci"][number]): string {
  const title = currentLang() === "zh" ? c.title : c.english;
  return `${title} ×${c.multiplier}` + (c.entry ? ` (≥${c.entry})` : "");
}

function roomOption(cat: Catalog, key: string, name: string): [OptionSpec, HTMLInputElement | HTMLSelectElement] {
  const spec = cat.room_options.find((o) => o.key === key) as OptionSpec;
  const input = inputFor(spec, name);
  if (key === "changci") {
    input.replaceChildren(...cat.changci.map((c) => el("option", { value: c.key }, changciLabel(c))));
  }
  setValue(input, spec.default);
  return [spec, input];
}

/** The lobby; ``joining``: a room's link opened by someone with no nickname yet — he
 * picks one, then ``then()`` takes him to that room (not the lobby). */
export async function mountLobby(root: HTMLElement, rerenderAll: () => void, joining?: { room: string; then: () => void }): Promise<void> {
  const [data, cat] = await Promise.all([me(), call("/api/presets") as Promise<Catalog>]);
  root.replaceChildren();
  const top = el("nav", { class: "topbar" }, el("h1", {}, t("title")));
  const lang = el("button", { class: "btn btn-lang", "data-name": "lang" }, t("language"));
  lang.addEventListener("click", rerenderAll);
  // the rules (every preset's page) from the lobby too, not only from a table
  top.append(el("a", { class: "link help-link", href: "#/help", "data-name": "help" }, t("help")), lang);
  root.append(top, el("div", { class: "errors", role: "alert" }));
  const fail = (e: unknown) => {
    const box = root.querySelector(".errors");
    if (!box) return;
    box.textContent = e instanceof Error ? e.message : String(e);
    // it sits at the lobby's top: a refusal of a form far below was never seen on a phone
    box.scrollIntoView({ block: "nearest" });
  };
  if (!data) {
    const input = el("input", { name: "nickname", placeholder: t("nickname"), maxlength: "24" }) as HTMLInputElement;
    const go = el("button", { class: "btn btn-enter", "data-name": "enter" }, t("start"));
    go.addEventListener("click", async () => {
      try {
        await register(input.value || "玩家");
        if (joining) joining.then();
        else await mountLobby(root, rerenderAll);
      } catch (e) {
        fail(e);
      }
    });
    input.addEventListener("keydown", (e) => e.key === "Enter" && go.click());
    const why = joining ? el("p", { class: "joining", "data-name": "joining" }, tf("nicknameFirst", { code: joining.room })) : null;
    root.append(el("section", { class: "card-panel" }, why, el("label", {}, t("nickname"), input), go));
    return;
  }
  const p = data.player;
  const profile = el(
    "section",
    { class: "card-panel profile" },
    el("h2", { class: "nickname" }, p.nickname),
    el("p", {}, `${say({ zh: p.level.title, en: p.level.english })} · ${t("points")} `, el("b", { class: "my-points" }, String(p.points)), ` · ${t("beans")} `, el("b", { class: "my-beans" }, String(p.beans)), ` · ${t("rating")} ${p.rating.ordinal.toFixed(1)}`),
  );
  if (p.beans < cat.economy.relief_below) {
    const relief = el("button", { class: "btn btn-relief", "data-name": "relief" }, `${t("hallRelief")} +${cat.economy.relief}`);
    relief.addEventListener("click", async () => {
      try {
        await call("/api/relief", {});
        await mountLobby(root, rerenderAll);
      } catch (e) {
        fail(e);
      }
    });
    profile.append(relief);
  }
  root.append(profile);
  mountHall(root, cat, fail);

  // ---- play the computer: any preset (the 醒家 where it applies), any 场次 and 局数
  const quickPreset = presetSelect(cat, "quick-preset");
  const xingjiaSpec = cat.options.find((o) => o.key === "xingjia");
  const quickXingjia = el("input", { name: "quick-xingjia", type: "checkbox" }) as HTMLInputElement;
  const quickXingjiaLabel = el("label", {}, xingjiaSpec ? say(xingjiaSpec.label) : "醒家", quickXingjia);
  const showXingjia = () => {
    quickXingjiaLabel.hidden = !xingjiaSpec?.applies_to?.includes(quickPreset.value);
    // ticked as the preset has it (泸州's 坐底 is on unless unticked)
    quickXingjia.checked = cat.presets.find((x) => x.name === quickPreset.value)?.rules.xingjia === true;
  };
  quickPreset.addEventListener("change", showXingjia);
  showXingjia();
  const level = el("select", { name: "level" }) as HTMLSelectElement;
  for (const c of cat.computers) level.append(el("option", { value: String(c.value) }, say(c.label)));
  level.value = "normal";
  // a level weaker than the hall's computer is practice (its hands count for no level):
  // said under the form when chosen (in the options it would widen the select, and push
  // 人机对战 off a phone's first screen)
  const practiceNote = el("p", { class: "hint practice-note", "data-name": "practice-note" }, t("practice"));
  const showPractice = () => {
    practiceNote.hidden = !cat.computers.find((c) => String(c.value) === level.value)?.practice;
  };
  level.addEventListener("change", showPractice);
  showPractice();
  const [, quickChangci] = roomOption(cat, "changci", "quick-changci");
  const [, quickHands] = roomOption(cat, "hands", "quick-hands");
  const quick = el("button", { class: "btn btn-quick", "data-name": "quick" }, t("playComputer"));
  quick.addEventListener("click", async () => {
    try {
      const options: Record<string, Json> = { rules: quickPreset.value, changci: quickChangci.value, hands: Number(quickHands.value) };
      if (!quickXingjiaLabel.hidden) options.xingjia = quickXingjia.checked;
      location.hash = `#/room/${(await call("/api/rooms/quick", { level: level.value, next_delay: SETTLEMENT_WAIT, ...options })).code}`;
    } catch (e) {
      fail(e);
    }
  });
  root.append(
    el(
      "section",
      { class: "card-panel quick-panel" },
      el("h3", {}, t("playComputer")),
      el("label", {}, t("preset"), quickPreset),
      quickXingjiaLabel,
      el("label", {}, t("level"), level),
      el("label", {}, t("hallChangci"), quickChangci),
      el("label", {}, t("hallHands"), quickHands),
      quick,
      practiceNote,
    ),
  );

  // ---- create a room: every option of the chosen preset, the others hidden
  const preset = presetSelect(cat, "preset");
  const ruleInputs = cat.options.map((spec) => {
    const input = inputFor(spec, spec.key);
    const label = el("label", { title: spec.doc ?? "" }, say(spec.label), input);
    return { spec, input, label };
  });
  const roomInputs = cat.room_options.map((spec) => {
    const [, input] = roomOption(cat, spec.key, spec.key);
    return { spec, input, label: el("label", {}, say(spec.label), input) };
  });
  const seatBox = el("div", { class: "seats" });
  let seatSelects: HTMLSelectElement[] = [];
  const seatCount = (): number => {
    let seats = 0;
    for (const { spec, input, label } of ruleInputs) {
      if (label.hidden) continue;
      const value = valueOf(spec, input);
      if (spec.seats === "count") seats += Number(value);
      if (spec.seats === "adds" && value === true) seats += 1;
    }
    return seats;
  };
  const drawSeats = () => {
    const kept = seatSelects.map((s) => s.value);
    seatSelects = Array.from({ length: seatCount() }, (_, i) => {
      const s = el("select", { name: `seat${i}` }) as HTMLSelectElement;
      s.append(el("option", { value: "human" }, t("human")));
      for (const c of cat.computers) s.append(el("option", { value: String(c.value) }, `${t("computer")} · ${say(c.label)}`));
      s.value = kept[i] ?? (i === 0 ? "human" : "normal");
      return s;
    });
    seatBox.replaceChildren(...seatSelects.map((s, i) => el("label", {}, `${t("seat")} ${i}`, s)));
  };
  // an option shows (and is sent) for the presets it applies to, while the options it
  // needs have their values (the catalog's data: luzhou's 坐底 needs three players)
  const needsMet = (spec: OptionSpec): boolean =>
    Object.entries(spec.needs ?? {}).every(([key, value]) => {
      const other = ruleInputs.find((r) => r.spec.key === key);
      return !other || valueOf(other.spec, other.input) === value;
    });
  const showOptions = () => {
    for (const { spec, label } of ruleInputs) label.hidden = !(spec.applies_to ?? []).includes(preset.value) || !needsMet(spec);
    drawSeats();
  };
  const showPreset = () => {
    const rules = cat.presets.find((x) => x.name === preset.value)?.rules ?? {};
    for (const { spec, input } of ruleInputs) setValue(input, rules[spec.key]);
    showOptions();
  };
  preset.addEventListener("change", showPreset);
  for (const { input } of ruleInputs) input.addEventListener("change", showOptions);
  showPreset();
  const create = el("button", { class: "btn btn-create", "data-name": "create" }, t("create"));
  create.addEventListener("click", async () => {
    const defaults = cat.presets.find((x) => x.name === preset.value)?.rules ?? {};
    const rules: Record<string, Json> = { preset: preset.value };
    for (const { spec, input, label } of ruleInputs) {
      const value = valueOf(spec, input);
      if (!label.hidden && value !== defaults[spec.key]) rules[spec.key] = value; // only what changed
    }
    const options: Record<string, Json> = { rules, seats: seatSelects.map((s) => s.value) };
    for (const { spec, input } of roomInputs) options[spec.key] = valueOf(spec, input);
    try {
      location.hash = `#/room/${await createRoom(options)}`;
    } catch (e) {
      fail(e);
    }
  });
  root.append(
    el(
      "section",
      { class: "card-panel" },
      el("h3", {}, t("createRoom")),
      el("label", {}, t("preset"), preset),
      ...ruleInputs.map((r) => r.label),
      ...roomInputs.map((r) => r.label),
      seatBox,
      create,
    ),
  );
  const codeInput = el("input", { name: "code", placeholder: t("roomCode"), inputmode: "numeric", "aria-label": t("roomCode"), maxlength: "12" }) as HTMLInputElement;
  const join = el("button", { class: "btn btn-join", "data-name": "join" }, t("join"));
  join.addEventListener("click", () => codeInput.value.trim() && (location.hash = `#/room/${encodeURIComponent(codeInput.value.trim())}`));
  codeInput.addEventListener("keydown", (e) => e.key === "Enter" && join.click());
  root.append(el("section", { class: "card-panel" }, el("h3", {}, t("joinRoom")), codeInput, join));
  const games = el("ul", { class: "games" });
  if (!data.games.length) games.append(el("li", {}, t("noGames")));
  for (const g of data.games) {
    const line = `#${g.id.slice(0, 6)} · ${reasonWords(g.reason)} · ${t("points")} ${g.points?.join(" / ") ?? ""}`;
    games.append(el("li", {}, el("a", { href: `#/replay/${g.id}`, "data-reason": g.reason }, line)));
  }
  root.append(el("section", { class: "card-panel" }, el("h3", {}, t("pastGames")), games));

  // ---- the leaderboard, by points or beans
  const board = el("ol", { class: "leaderboard" });
  const by = el("select", { name: "leaderboard-by" }) as HTMLSelectElement;
  by.append(el("option", { value: "points" }, t("points")), el("option", { value: "beans" }, t("beans")));
  const showBoard = async () => {
    try {
      const rows = (await call(`/api/leaderboard?by=${by.value}&limit=20`)).players as Json[];
      board.replaceChildren(...rows.map((r) => el("li", {}, `${r.nickname} · ${say({ zh: r.level.title, en: r.level.english })} · ${t("points")} ${r.points} · ${t("beans")} ${r.beans}`)));
      if (!rows.length) board.replaceChildren(el("li", { class: "empty", "data-name": "nobody-ranked" }, t("nobodyRanked")));
    } catch (e) {
      fail(e);
    }
  };
  by.addEventListener("change", showBoard);
  root.append(el("section", { class: "card-panel" }, el("h3", {}, t("hallLeaderboard")), by, board));
  await showBoard();
}

// ---- the hall (issue 16): each 场次 with its stake, entry minimum, people online and
// tables playing, and 快速开始: queue, wait (computers fill after the server's wait),
// then the table. GET /api/hall, POST/GET/DELETE /api/match (docs/protocol.md).

const HALL = {
  hall: { zh: "大厅", en: "Hall" },
  quickMatch: { zh: "快速开始", en: "Quick match" },
  online: { zh: "在线", en: "online" },
  tables: { zh: "桌在玩", en: "tables playing" },
  entry: { zh: "入场", en: "entry" },
  noEntry: { zh: "不限", en: "open to all" },
  waiting: { zh: "正在匹配", en: "Finding players" },
  cancel: { zh: "取消", en: "Cancel" },
  computers: { zh: "秒后电脑补位", en: "s until computers fill" },
};

function mountHall(root: HTMLElement, cat: Catalog, fail: (e: unknown) => void): void {
  const lobbyHash = location.hash;
  const stillHere = () => location.hash === lobbyHash && document.body.contains(section);
  const preset = presetSelect(cat, "match-preset");
  const grid = el("div", { class: "hall" });
  const status = el("div", { class: "match-status", "data-name": "match-status" });
  const section = el("section", { class: "card-panel hall-panel" }, el("h3", {}, say(HALL.hall)), el("label", {}, t("preset"), preset), grid, status);
  root.append(section);
  let polling = 0;

  const draw = async () => {
    const hall = await call("/api/hall");
    grid.replaceChildren(
      ...hall.changci.map((c: Json) => {
        const go = el("button", { class: "btn btn-match", "data-name": `match-${c.key}` }, say(HALL.quickMatch));
        go.addEventListener("click", () => void join(c.key));
        return el(
          "div",
          { class: "changci", "data-changci": c.key },
          el("h4", {}, currentLang() === "zh" ? c.title : c.english),
          el("div", { class: "stake" }, `${t("multiplier")} ×${c.multiplier} · ${say(HALL.entry)} ${c.entry ? `≥${c.entry}` : say(HALL.noEntry)}`),
          el("div", { class: "stats" }, el("b", { class: "online" }, String(c.online)), ` ${say(HALL.online)} · `, el("b", { class: "tables" }, String(c.tables)), ` ${say(HALL.tables)}`),
          go,
        );
      }),
    );
  };

  const poll = async () => {
    if (!stillHere()) return;
    try {
      const s = await call("/api/match");
      if (s.status === "seated") {
        location.hash = `#/room/${s.code}`;
        return;
      }
      if (s.status === "refused") {
        // taken out of the queue unseated: he no longer meets the 场次's entry minimum
        status.replaceChildren(el("span", { class: "refused", "data-name": "match-refused" }, inMyLanguage(s.words, String(s.reason))));
        return;
      }
      if (s.status === "waiting") {
        const left = Math.max(0, Math.ceil(s.wait - s.waited));
        const cancel = el("button", { class: "btn btn-cancel", "data-name": "match-cancel" }, say(HALL.cancel));
        cancel.addEventListener("click", async () => {
          await call("/api/match", undefined, "DELETE").catch(fail);
          clearTimeout(polling);
          status.replaceChildren();
        });
        const first = !status.childElementCount;
        status.replaceChildren(el("span", { class: "waiting" }, `${say(HALL.waiting)}… ${s.waiting} · ${left}${say(HALL.computers)}`), cancel);
        if (first) status.scrollIntoView({ block: "nearest" }); // below the 场次 on a phone
        polling = window.setTimeout(() => void poll(), 700);
      }
    } catch (e) {
      fail(e);
    }
  };

  const join = async (changci: string) => {
    try {
      await call("/api/match", { changci, preset: preset.value });
      clearTimeout(polling);
      await poll();
    } catch (e) {
      fail(e);
    }
  };

  const refresh = async () => {
    if (!stillHere()) return;
    await draw().catch(fail);
    window.setTimeout(() => void refresh(), 5000);
  };
  void refresh();
  void call("/api/match")
    .then(async (s) => {
      if (s.status === "waiting") await poll(); // queued before this page: go on waiting
    })
    .catch(() => undefined);
}
