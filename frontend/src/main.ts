// The browser game: lobby (#/), table (#/room/CODE), replay (#/replay/ID), help and
// rules (#/help/PRESET?room=CODE: the room's rules; #/help/PRESET?from=CODE: a preset's,
// the way back leading to the room).

import "./style.css";
import { token } from "./api";
import { loadCards } from "./cards";
import { mountHelp } from "./help";
import { toggleLang } from "./i18n";
import { mountLobby } from "./lobby";
import { mountReplay } from "./replay";
import { mountTable } from "./table";
import { loadLabels } from "./words";

const root = document.getElementById("app") as HTMLElement;
let cleanup: (() => void) | null = null;

async function route(): Promise<void> {
  cleanup?.();
  cleanup = null;
  window.scrollTo(0, 0); // a new page opens at its top (a replay opened scrolled to its end)
  const hash = location.hash.replace(/^#/, "") || "/";
  const [path] = hash.split("?");
  const parts = path.split("/").filter(Boolean);
  const relang = () => {
    toggleLang();
    void route();
  };
  if (parts[0] === "room" && parts[1]) {
    let code = parts[1];
    try {
      code = decodeURIComponent(parts[1]);
    } catch {
      // a malformed address (a lone %): the code as typed (the server says it is unknown)
    }
    if (!token()) {
      // a room's link opened by someone new: a nickname first, then the room itself
      await mountLobby(root, relang, { room: code, then: () => void route() });
      return;
    }
    cleanup = mountTable(root, code);
  } else if (parts[0] === "help") {
    const query = new URLSearchParams(hash.split("?")[1] ?? "");
    let preset = "qq";
    try {
      preset = decodeURIComponent(parts[1] ?? "qq");
    } catch {
      // a malformed address (a lone %): the default rules
    }
    await mountHelp(root, preset, query.get("room"), relang, query.get("from"));
  } else if (parts[0] === "replay" && parts[1]) {
    await mountReplay(root, parts[1], relang);
  } else {
    await mountLobby(root, relang);
  }
}

window.addEventListener("hashchange", () => void route());
document.documentElement.lang = localStorage.getItem("paohuzi.lang") === "en" ? "en" : "zh";
void Promise.all([loadCards(), loadLabels()]).then(route);
