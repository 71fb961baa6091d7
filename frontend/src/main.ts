// The browser game: lobby (#/), table (#/room/CODE), replay (#/replay/ID).

import "./style.css";
import { loadCards } from "./cards";
import { toggleLang } from "./i18n";
import { mountLobby } from "./lobby";
import { mountReplay } from "./replay";
import { mountTable } from "./table";

const root = document.getElementById("app") as HTMLElement;
let cleanup: (() => void) | null = null;

async function route(): Promise<void> {
  cleanup?.();
  cleanup = null;
  const hash = location.hash.replace(/^#/, "") || "/";
  const [path] = hash.split("?");
  const parts = path.split("/").filter(Boolean);
  const relang = () => {
    toggleLang();
    void route();
  };
  if (parts[0] === "room" && parts[1]) {
    cleanup = mountTable(root, decodeURIComponent(parts[1]), relang);
  } else if (parts[0] === "replay" && parts[1]) {
    await mountReplay(root, parts[1], relang);
  } else {
    await mountLobby(root, relang);
  }
}

window.addEventListener("hashchange", () => void route());
void loadCards().then(route);
