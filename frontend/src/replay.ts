// A finished game, step by step, every hand visible, with its shuffle check.

import { gameRecord, replaySteps, sha256, type Json } from "./api";
import { card, el, group, split } from "./cards";
import { t, type Key } from "./i18n";
import { presetName, reasonWords } from "./words";

const ACTION_WORDS: Record<string, Key> = { discard: "evDiscard", chi: "chi", peng: "peng", hu: "hu", pass: "pass" };

/** How a replay names a seat: its player's name as the record keeps it (你 for the
 * viewer's own), else its number. */
type SeatName = (seat: number) => string;
const bySeatNumber: SeatName = (seat) => `${t("seat")} ${seat}`;

/** An action record in words: "小明 打出 一", "Seat 1 Eat (吃) 一二三 比 ...". */
export function actionWords(action: { seat: number; action: string }, name: SeatName = bySeatNumber): string {
  const [verb, ...rest] = action.action.split(" ");
  const w = ACTION_WORDS[verb] ? t(ACTION_WORDS[verb]) : verb;
  return `${name(action.seat)} ${w} ${rest.join(" ").replace(/比/g, ` ${t("bi")} `)}`.trim();
}

function resultWords(result: Json | null, name: SeatName): string {
  if (!result) return "";
  const reason = result.reason === "huangzhuang" ? reasonWords("huangzhuang") : result.reason === "escape" ? `${name(result.leaver)} ${reasonWords("escape")}` : `${reasonWords(result.reason)} · ${t("winner")}: ${name(result.winner)}`;
  const names = (result.mingtang ?? []).map((m: Json) => `${m.name} ${m.fan}${t("fan")}`).join(" ");
  const numbers = result.huxi !== undefined ? ` · ${t("huxi")} ${result.huxi} · ${t("di")} ${result.di} · ${t("fan")} ${result.fan} ${names}` : "";
  return `${reason}${numbers} · ${t("points")} ${(result.points ?? []).join(" / ")}`;
}

let mounts = 0; // each replay page shown; an older one's autoplay stops (it shares the root)

export async function mountReplay(root: HTMLElement, id: string, rerenderAll: () => void): Promise<void> {
  const generation = ++mounts;
  let data: Json;
  try {
    data = await replaySteps(id);
  } catch (err) {
    // the server's reason (no such game, not yet readable, a record that no longer replays)
    root.replaceChildren(
      el("nav", { class: "topbar" }, el("a", { href: "#/", class: "link" }, t("lobby")), el("span", {}, `${t("replay")} #${id.slice(0, 6)}`)),
      el("p", { class: "replay-error", role: "alert" }, `${t("replayFailed")}: ${(err as Error).message}`),
    );
    return;
  }
  // the viewer's own seat (the record as served to him); no seat if it cannot be read
  const you: number | null = await gameRecord(id).then((r) => (typeof r.you === "number" ? r.you : null), () => null);
  const names: string[] = Array.isArray(data.names) ? data.names : [];
  const name: SeatName = (seat) =>
    seat === you ? `${t("you")}${names[seat] ? ` · ${names[seat]}` : ""}` : names[seat] || bySeatNumber(seat);
  let step = Number(new URLSearchParams(location.hash.split("?")[1] ?? "").get("step") ?? 0);
  let playing: number | undefined; // the autoplay's timer
  const stop = () => {
    window.clearInterval(playing);
    playing = undefined;
  };
  // this page is still the one shown: not left (the hash moved on), not shown again
  const shown = () => generation === mounts && location.hash.startsWith(`#/replay/${id}`);
  const render = () => {
    if (!shown()) return stop(); // the page was left: its autoplay must not draw over another
    root.replaceChildren();
    const lang = el("button", { class: "btn btn-lang", "data-name": "lang", type: "button" }, t("language"));
    lang.addEventListener("click", rerenderAll);
    root.append(el("nav", { class: "topbar replay-top" }, el("a", { href: "#/", class: "link" }, t("lobby")), el("span", {}, `${t("replay")} #${id.slice(0, 6)}`), lang));
    const steps: Json[] = data.steps;
    step = Math.max(0, Math.min(step, steps.length - 1));
    const current = steps[step];
    const prev = el("button", { class: "btn btn-prev", "data-name": "prev" }, t("prev"));
    const next = el("button", { class: "btn btn-next", "data-name": "next" }, t("next"));
    prev.addEventListener("click", () => (stop(), (step -= 1), render()));
    next.addEventListener("click", () => (stop(), (step += 1), render()));
    // any step at once (a hand is ~100 steps), and the steps played one after another
    const slider = el("input", { type: "range", class: "step-slider", "data-name": "step-slider", min: "0", max: String(steps.length - 1), value: String(step), "aria-label": t("step") });
    slider.addEventListener("change", () => (stop(), (step = Number(slider.value)), render()));
    const play = el("button", { class: "btn btn-play", "data-name": "play" }, playing === undefined ? `▶ ${t("autoplay")}` : `⏸ ${t("pause")}`);
    play.addEventListener("click", () => {
      if (playing !== undefined) stop();
      else {
        if (step >= steps.length - 1) step = 0;
        playing = window.setInterval(() => {
          step += 1;
          if (step >= steps.length - 1) stop();
          render();
        }, 900);
      }
      render();
    });
    root.append(
      el(
        "div",
        { class: "replay-controls" },
        prev,
        el("span", { class: "step" }, `${t("step")} ${step} / ${steps.length - 1}`),
        next,
        play,
        slider,
        current.action ? el("span", { class: "last-action" }, actionWords(current.action, name)) : null,
      ),
      // its whole text on hover: held sideways the line is cut short (style.css)
      el("p", { class: "replay-result", title: resultWords(data.result, name) }, `${t("result")}: ${resultWords(data.result, name)}`),
    );
    const board = el("main", { class: "replay-board" });
    current.seats.forEach((view: Json, seat: number) => {
      const info = view.seats[seat];
      board.append(
        el(
          "section",
          { class: "seat replay-seat", "data-seat": String(seat) },
          el("header", {}, `${name(seat)}${view.dealer === seat ? ` · ${t("dealer")}` : ""} · ${info.table_huxi} ${t("huxi")}`),
          el("div", { class: "hand" }, ...split(view.hand).map((c) => card(c))),
          el("div", { class: "melds" }, ...info.melds.map((m: Json) => group(m, true))),
          el("div", { class: "pile" }, ...split(info.pile).map((c) => card(c, "mini"))),
        ),
      );
    });
    root.append(board);
    root.append(
      el(
        "section",
        { class: "card-panel shuffle" },
        el("h3", {}, t("shuffleCheck")),
        shufflePanel(data.shuffle, name),
        el("p", {}, el("a", { class: "rules-link", "data-name": "rules", href: `#/help/${encodeURIComponent(data.rules.name)}` }, `${t("rules")}: ${presetName(data.rules.name)} · ${t("base")} ${data.rules.base}`)),
        el("p", {}, `${t("shareLink")}: `, el("code", { class: "share" }, `${location.origin}/#/replay/${id}`)),
      ),
    );
  };
  render();
}

function verdict(ok: boolean | null): HTMLElement {
  if (ok === null) return el("b", {}, "…");
  return el("b", { class: ok ? "ok" : "bad" }, ok ? t("verified") : t("failed"));
}

/** The shuffle's proof: what was published, what was revealed, the formula, and checks
 * computed here with WebCrypto (commitment, digest, seed, first dealer) beside the
 * server's re-deal. */
function shufflePanel(shuffle: Json, name: SeatName): HTMLElement {
  if (!shuffle.available) return el("p", {}, "—");
  const box = el("div", { class: "shuffle-proof" });
  const serverOk = shuffle.commitment_ok && shuffle.deal_ok && shuffle.seed_ok !== false && shuffle.dealer_ok !== false;
  const row = (label: string, value: string) => el("p", {}, `${label}: `, el("code", {}, value));
  box.append(row(t("commitment"), shuffle.commitment));
  if (shuffle.secret === undefined) {
    // an older record: the server alone drew the seed
    box.append(row(t("seed"), String(shuffle.seed)), row(t("salt"), shuffle.salt), el("p", {}, `${t("serverCheck")}: `, verdict(serverOk)));
    return box;
  }
  const values: string[] = shuffle.values;
  box.append(
    row(t("secret"), shuffle.secret),
    row(t("salt"), shuffle.salt),
    row(t("values"), values.map((v) => v || t("none")).join(" · ")),
    row(t("digest"), shuffle.digest),
    row(t("seed"), `0x${shuffle.digest.slice(0, 15)}`),
    el("p", {}, `${t("formula")}: `, el("code", { class: "formula" }, shuffle.formula)),
  );
  if (shuffle.first_dealer !== undefined) box.append(row(t("firstDealer"), `${name(shuffle.first_dealer)} (${bySeatNumber(shuffle.first_dealer)})`));
  const mine = el("p", { class: "browser-check" }, `${t("browserCheck")}: `, verdict(null));
  box.append(mine, el("p", {}, `${t("serverCheck")}: `, verdict(serverOk)));
  void (async () => {
    const commitment = await sha256(`${shuffle.secret}:${shuffle.salt}`);
    const digest = await sha256(["paohuzi-shuffle-v1", shuffle.secret, ...values].join(":"));
    if (commitment === null || digest === null) {
      mine.replaceChildren(`${t("browserCheck")}: —`);
      return;
    }
    const seats = values.length;
    let ok = commitment === shuffle.commitment && digest === shuffle.digest;
    if (shuffle.first_dealer !== undefined) ok = ok && Number(BigInt(`0x${digest.slice(-8)}`) % BigInt(seats)) === shuffle.first_dealer;
    mine.replaceChildren(`${t("browserCheck")}: `, verdict(ok));
  })();
  return box;
}
