// Interface text in Chinese (default) and English. Game terms keep their Chinese names.

export type Lang = "zh" | "en";

const TEXT = {
  title: { zh: "跑胡子", en: "Paohuzi" },
  nickname: { zh: "昵称", en: "Nickname" },
  start: { zh: "进入", en: "Enter" },
  playComputer: { zh: "人机对战", en: "Play the computer" },
  level: { zh: "难度", en: "Level" },
  easy: { zh: "简单", en: "Easy" },
  normal: { zh: "普通", en: "Normal" },
  hard: { zh: "困难", en: "Hard" },
  createRoom: { zh: "创建房间", en: "Create a room" },
  joinRoom: { zh: "加入房间", en: "Join a room" },
  roomCode: { zh: "房间号", en: "Room code" },
  join: { zh: "加入", en: "Join" },
  create: { zh: "创建", en: "Create" },
  preset: { zh: "玩法", en: "Rules" },
  base: { zh: "底分", en: "Base score" },
  multiplier: { zh: "倍数", en: "Bean multiplier" },
  timer: { zh: "思考时间(秒)", en: "Timer (s)" },
  seat: { zh: "座位", en: "Seat" },
  human: { zh: "玩家", en: "Person" },
  computer: { zh: "电脑", en: "Computer" },
  points: { zh: "积分", en: "Points" },
  beans: { zh: "欢乐豆", en: "Beans" },
  rating: { zh: "等级分", en: "Rating" },
  pastGames: { zh: "历史牌局", en: "Past games" },
  replay: { zh: "回放", en: "Replay" },
  noGames: { zh: "还没有牌局", en: "No games yet" },
  wall: { zh: "墩", en: "Wall" },
  liangzhang: { zh: "亮张", en: "Shown card" },
  dealer: { zh: "庄", en: "Dealer" },
  you: { zh: "你", en: "You" },
  hu: { zh: "胡", en: "Win (胡)" },
  peng: { zh: "碰", en: "Pong (碰)" },
  chi: { zh: "吃", en: "Eat (吃)" },
  pass: { zh: "过", en: "Pass (过)" },
  discard: { zh: "打出", en: "Discard" },
  chooseBi: { zh: "选择吃法 (比)", en: "Choose how to eat (比)" },
  cancel: { zh: "取消", en: "Cancel" },
  tingHint: { zh: "听牌提示", en: "Waits hint" },
  waitsOn: { zh: "听", en: "Waits on" },
  noWaits: { zh: "未听牌", en: "Not waiting" },
  tuoguan: { zh: "托管中", en: "Auto-play (托管)" },
  takeBack: { zh: "取消托管", en: "Take back control" },
  reconnecting: { zh: "正在重新连接…", en: "Reconnecting…" },
  yourTurn: { zh: "轮到你了", en: "Your move" },
  waiting: { zh: "等待其他玩家", en: "Waiting for others" },
  settlement: { zh: "结算", en: "Settlement" },
  huangzhuang: { zh: "荒庄", en: "Drawn hand (荒庄)" },
  winner: { zh: "胡牌", en: "Winner" },
  huxi: { zh: "胡息", en: "胡息 (huxi)" },
  di: { zh: "底", en: "底 (di)" },
  fan: { zh: "番", en: "番 (fan)" },
  pinghu: { zh: "平胡", en: "Plain win (平胡)" },
  zimo: { zh: "自摸", en: "Self-drawn (自摸)" },
  haidi: { zh: "海底", en: "Last card (海底)" },
  tianhu: { zh: "天胡", en: "Heavenly (天胡)" },
  nextHand: { zh: "下一局", en: "Next hand" },
  escape: { zh: "逃跑", en: "Left mid-hand" },
  leave: { zh: "离开", en: "Leave" },
  lobby: { zh: "大厅", en: "Lobby" },
  step: { zh: "步", en: "Step" },
  prev: { zh: "上一步", en: "Back" },
  next: { zh: "下一步", en: "Forward" },
  shuffleCheck: { zh: "洗牌校验", en: "Shuffle check" },
  commitment: { zh: "承诺值", en: "Commitment" },
  secret: { zh: "服务器密钥", en: "Server secret" },
  salt: { zh: "盐", en: "Salt" },
  values: { zh: "各座随机值", en: "Seats' random values" },
  digest: { zh: "摘要", en: "Digest" },
  seed: { zh: "种子", en: "Seed" },
  firstDealer: { zh: "首庄", en: "First dealer" },
  formula: { zh: "公式", en: "Formula" },
  browserCheck: { zh: "本浏览器计算", en: "Computed in this browser" },
  serverCheck: { zh: "服务器重新发牌", en: "Re-dealt by the server" },
  none: { zh: "（无）", en: "(none)" },
  verified: { zh: "已验证 ✓", en: "verified ✓" },
  failed: { zh: "校验失败 ✗", en: "check failed ✗" },
  rules: { zh: "规则", en: "Rules" },
  shareLink: { zh: "分享链接", en: "Share link" },
  ti: { zh: "提", en: "提 (ti)" },
  wei: { zh: "偎", en: "偎 (wei)" },
  chouwei: { zh: "臭偎", en: "臭偎 (chou-wei)" },
  pao: { zh: "跑", en: "跑 (pao)" },
  noDiscard: { zh: "八块 不打牌", en: "八块: no discard" },
  xianggong: { zh: "相公", en: "相公: cannot win" },
  hand: { zh: "手牌", en: "Hand" },
  pile: { zh: "弃牌", en: "Discards" },
  language: { zh: "English", en: "中文" },
  seatsTaken: { zh: "等待玩家入座", en: "Waiting for players" },
  sit: { zh: "入座", en: "Sit" },
  evDeal: { zh: "起牌", en: "dealt" },
  evDraw: { zh: "摸牌", en: "draws" },
  evShow: { zh: "翻出", en: "shows" },
  evDiscard: { zh: "打出", en: "discards" },
  evPile: { zh: "弃", en: "to the pile:" },
  // hall
  hallRelief: { zh: "领取救济豆", en: "Daily relief" },
  hallChangci: { zh: "场次", en: "Stake room" },
  hallHands: { zh: "局数", en: "Hands per match" },
  hallLeaderboard: { zh: "排行榜", en: "Leaderboard" },
} as const;

export type Key = keyof typeof TEXT;

let lang: Lang = (localStorage.getItem("paohuzi.lang") as Lang) || "zh";

export function t(key: Key): string {
  return TEXT[key][lang];
}

export function currentLang(): Lang {
  return lang;
}

export function toggleLang(): void {
  lang = lang === "zh" ? "en" : "zh";
  localStorage.setItem("paohuzi.lang", lang);
  document.documentElement.lang = lang;
}
