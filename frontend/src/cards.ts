// Drawing 字牌: long cards with the Chinese numeral; the server says which are red.

import type { CardInfo } from "./api";

let glossary = new Map<string, CardInfo>();

export async function loadCards(): Promise<void> {
  const reply = await fetch("/api/cards");
  const cards: CardInfo[] = await reply.json();
  glossary = new Map(cards.map((c) => [c.text, c]));
}

export function info(text: string): CardInfo | undefined {
  return glossary.get(text);
}

/** Split card text ("一二三") into single cards. */
export function split(text: string | null | undefined): string[] {
  return text ? Array.from(text).filter((ch) => glossary.has(ch)) : [];
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

export function card(text: string, extra = ""): HTMLElement {
  const c = glossary.get(text);
  const classes = ["card", c?.red ? "red" : "black", c?.big ? "big" : "small", extra]
    .filter(Boolean)
    .join(" ");
  return el("span", { class: classes, "data-card": text, title: c ? c.ascii : text }, text);
}

export function hiddenCard(): HTMLElement {
  return el("span", { class: "card mini back", role: "img", "aria-label": "face down" }, "");
}

/** A table group: its cards in a column, its 胡息 under it; a face-down 偎 as three
 * backs. ``faceUp``: every card shown (the settlement, the replay). ``mark``: a card to
 * mark (the winning card). */
export function group(
  meld: { kind: string; cards?: string; hidden?: number; huxi?: number },
  faceUp = false,
  mark: string | null = null,
): HTMLElement {
  const box = el("span", { class: `group kind-${meld.kind}`, "data-kind": meld.kind });
  if (meld.cards) {
    const cards = split(meld.cards);
    let marked = false;
    cards.forEach((text, i) => {
      // 提 and 臭偎 show one card up, the others down, to everyone
      const down = !faceUp && (meld.kind === "ti" || meld.kind === "chouwei") && i > 0;
      const winning = !marked && mark === text;
      if (winning) marked = true;
      box.append(down ? hiddenCard() : card(text, `mini${winning ? " winning" : ""}`));
    });
    if (meld.huxi !== undefined) box.append(el("small", { class: "group-huxi" }, String(meld.huxi)));
  } else {
    for (let i = 0; i < (meld.hidden ?? 3); i++) box.append(hiddenCard());
    box.append(el("small", { class: "group-huxi" }, "?"));
  }
  return box;
}
