// A finished game, step by step, every hand visible, with its shuffle check.

import { replaySteps, type Json } from "./api";
import { card, el, group, split } from "./cards";
import { t } from "./i18n";

export async function mountReplay(root: HTMLElement, id: string, rerenderAll: () => void): Promise<void> {
  const data = await replaySteps(id);
  let step = Number(new URLSearchParams(location.hash.split("?")[1] ?? "").get("step") ?? 0);
  const render = () => {
    root.replaceChildren();
    const lang = el("button", { class: "btn btn-lang", "data-name": "lang" }, t("language"));
    lang.addEventListener("click", rerenderAll);
    root.append(el("nav", { class: "topbar" }, el("a", { href: "#/", class: "link" }, t("lobby")), el("span", {}, `${t("replay")} #${id.slice(0, 6)}`), lang));
    const steps: Json[] = data.steps;
    step = Math.max(0, Math.min(step, steps.length - 1));
    const current = steps[step];
    const prev = el("button", { class: "btn btn-prev", "data-name": "prev" }, t("prev"));
    const next = el("button", { class: "btn btn-next", "data-name": "next" }, t("next"));
    prev.addEventListener("click", () => ((step -= 1), render()));
    next.addEventListener("click", () => ((step += 1), render()));
    root.append(
      el(
        "div",
        { class: "replay-controls" },
        prev,
        el("span", { class: "step" }, `${t("step")} ${step} / ${steps.length - 1}`),
        next,
        current.action ? el("span", { class: "last-action" }, `seat ${current.action.seat}: ${current.action.action}`) : null,
      ),
    );
    const board = el("main", { class: "replay-board" });
    current.seats.forEach((view: Json, seat: number) => {
      const info = view.seats[seat];
      board.append(
        el(
          "section",
          { class: "seat replay-seat", "data-seat": String(seat) },
          el("header", {}, `${t("seat")} ${seat}${view.dealer === seat ? ` · ${t("dealer")}` : ""} · ${info.table_huxi} ${t("huxi")}`),
          el("div", { class: "hand" }, ...split(view.hand).map((c) => card(c))),
          el("div", { class: "melds" }, ...info.melds.map((m: Json) => group(m))),
          el("div", { class: "pile" }, ...split(info.pile).map((c) => card(c, "mini"))),
        ),
      );
    });
    root.append(board);
    const shuffle = data.shuffle;
    const ok = shuffle.commitment_ok && shuffle.deal_ok;
    root.append(
      el(
        "section",
        { class: "card-panel shuffle" },
        el("h3", {}, t("shuffleCheck")),
        shuffle.available
          ? el("p", {}, `${t("commitment")}: `, el("code", {}, shuffle.commitment), ` seed ${shuffle.seed} salt ${shuffle.salt} — `, el("b", { class: ok ? "ok" : "bad" }, ok ? t("verified") : t("failed")))
          : el("p", {}, "—"),
        el("h3", {}, t("rules")),
        el("pre", { class: "rules" }, JSON.stringify(data.rules, null, 1)),
        el("p", {}, `${t("shareLink")}: `, el("code", { class: "share" }, `${location.origin}/#/replay/${id}`)),
      ),
    );
  };
  render();
}
