// The lobby: nickname, play the computer, create or join a room, your record and past games.

import { createRoom, me, quickRoom, register } from "./api";
import { el } from "./cards";
import { t } from "./i18n";

export async function mountLobby(root: HTMLElement, rerenderAll: () => void): Promise<void> {
  const data = await me();
  root.replaceChildren();
  const top = el("nav", { class: "topbar" }, el("h1", {}, t("title")));
  const lang = el("button", { class: "btn btn-lang", "data-name": "lang" }, t("language"));
  lang.addEventListener("click", rerenderAll);
  top.append(lang);
  root.append(top, el("div", { class: "errors", role: "alert" }));
  const fail = (e: unknown) => {
    const box = root.querySelector(".errors");
    if (box) box.textContent = e instanceof Error ? e.message : String(e);
  };
  if (!data) {
    const input = el("input", { name: "nickname", placeholder: t("nickname"), maxlength: "24" }) as HTMLInputElement;
    const go = el("button", { class: "btn btn-enter", "data-name": "enter" }, t("start"));
    go.addEventListener("click", async () => {
      try {
        await register(input.value || "玩家");
        await mountLobby(root, rerenderAll);
      } catch (e) {
        fail(e);
      }
    });
    input.addEventListener("keydown", (e) => e.key === "Enter" && go.click());
    root.append(el("section", { class: "card-panel" }, el("label", {}, t("nickname"), input), go));
    return;
  }
  const p = data.player;
  root.append(
    el(
      "section",
      { class: "card-panel profile" },
      el("h2", { class: "nickname" }, p.nickname),
      el("p", {}, `${p.level.title} (${p.level.english}) · ${t("points")} `, el("b", { class: "my-points" }, String(p.points)), ` · ${t("beans")} ${p.beans} · ${t("rating")} ${p.rating.ordinal.toFixed(1)}`),
    ),
  );
  const level = el("select", { name: "level" }) as HTMLSelectElement;
  for (const lv of ["easy", "normal", "hard"] as const) level.append(el("option", { value: lv }, t(lv)));
  level.value = "normal";
  const quick = el("button", { class: "btn btn-quick", "data-name": "quick" }, t("playComputer"));
  quick.addEventListener("click", async () => {
    try {
      location.hash = `#/room/${await quickRoom(level.value)}`;
    } catch (e) {
      fail(e);
    }
  });
  root.append(el("section", { class: "card-panel" }, el("label", {}, t("level"), level), quick));

  const preset = el("select", { name: "preset" }) as HTMLSelectElement;
  for (const name of ["qq", "changde", "hunan", "two-player"]) preset.append(el("option", { value: name }, name));
  const base = el("input", { name: "base", type: "number", value: "3", min: "1", max: "100" }) as HTMLInputElement;
  const mult = el("input", { name: "multiplier", type: "number", value: "1", min: "1", max: "1000" }) as HTMLInputElement;
  const timer = el("input", { name: "timer", type: "number", value: "20", min: "3" }) as HTMLInputElement;
  const seatSelects = [0, 1, 2].map((i) => {
    const s = el("select", { name: `seat${i}` }) as HTMLSelectElement;
    s.append(el("option", { value: "human" }, t("human")));
    for (const lv of ["easy", "normal", "hard"] as const) s.append(el("option", { value: lv }, `${t("computer")} · ${t(lv)}`));
    s.value = i === 0 ? "human" : "normal";
    return s;
  });
  const create = el("button", { class: "btn btn-create", "data-name": "create" }, t("create"));
  create.addEventListener("click", async () => {
    const players = preset.value === "two-player" ? 2 : 3;
    try {
      const code = await createRoom({
        rules: preset.value,
        base: Number(base.value),
        multiplier: Number(mult.value),
        timer: Number(timer.value),
        seats: seatSelects.slice(0, players).map((s) => s.value),
      });
      location.hash = `#/room/${code}`;
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
      el("label", {}, t("base"), base),
      el("label", {}, t("multiplier"), mult),
      el("label", {}, t("timer"), timer),
      ...seatSelects.map((s, i) => el("label", {}, `${t("seat")} ${i}`, s)),
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
    games.append(el("li", {}, el("a", { href: `#/replay/${g.id}` }, `#${g.id.slice(0, 6)} ${g.reason} ${g.points?.join(" / ") ?? ""}`)));
  }
  root.append(el("section", { class: "card-panel" }, el("h3", {}, t("pastGames")), games));
}
