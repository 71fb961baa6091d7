// Words, not codes, wherever a player reads: preset names, rule options and their values
// (the option catalog's labels, GET /api/presets, from paohuzi.core.options) and how a
// hand ended. Nothing about the rules is written here: every label is the server's.

import type { Json } from "./api";
import { currentLang, t, tf, type Key } from "./i18n";

type Label = { zh: string; en: string };

let presetLabels = new Map<string, Label>();
let optionSpecs = new Map<string, Json>();
let diWords = new Map<string, string>();

/** Fetches the catalog's labels once per page load (the lobby reads the rest itself). */
export async function loadLabels(): Promise<void> {
  try {
    const cat: Json = await (await fetch("/api/presets")).json();
    presetLabels = new Map(cat.presets.map((p: Json) => [p.name, p.label]));
    optionSpecs = new Map(cat.options.map((o: Json) => [o.key, o]));
    diWords = new Map(Object.entries(cat.di_words ?? {}));
  } catch {
    // the codes show until the next load: never a reason to keep the page from working
  }
}

const say = (label: Label): string => label[currentLang()];

/** A preset's name in words ("qq" → "QQ 跑胡子"). */
export function presetName(name: string): string {
  const label = presetLabels.get(name);
  return label ? say(label) : name;
}

/** A rule option's name and value in words: true/false → 是/否, a scheme's name → its
 * label (null where the catalog does not know the option: not one a player sets). */
export function optionWords(key: string, value: Json): [string, string] | null {
  const spec = optionSpecs.get(key);
  if (!spec) return null;
  if (typeof value === "boolean") return [say(spec.label), t(value ? "yes" : "no")];
  const choice = (spec.choices ?? []).find((c: Json) => c.value === value);
  return [say(spec.label), choice ? say(choice.label) : String(value)];
}

/** A scoring scheme's word for 底 (qq 底, changde and luzhou 等, hunan 囤). */
export function diWord(settlement: string): string {
  return diWords.get(settlement) ?? t("di");
}

const REASONS: Record<string, Key> = {
  hu: "reasonHu",
  tianhu: "tianhu",
  huangzhuang: "huangzhuang",
  escape: "escape",
};

/** How a hand ended, in words ("hu" → 胡牌, "huangzhuang" → 荒庄, "escape" → 逃跑). */
export function reasonWords(reason: string): string {
  return REASONS[reason] ? t(REASONS[reason]) : reason;
}

/** The name of the seat that sits the hand out under these rules: the 醒家 (paid) or
 * 泸州's 坐底 (neither pays nor is paid; rulesdoc's ``seat_out`` says the same). */
export function seatOutWord(rules: Json): string {
  return t(rules.xingjia_paid === false ? "zuodi" : "xingjia");
}

/** The escape penalty's formula (§7.4) for a table of ``players``: H is the other
 * player's 胡息 at two seats, the other two's at three. */
export function escapeFormula(players: number, bonus: number, base: number): string {
  return tf(players === 2 ? "leaveFormulaOne" : "leaveFormula", { bonus, base });
}
