// Sensor Ghosts in the browser. This script only draws what the server says
// and sends what the player taps: every rule (what is legal, what is
// consistent, the notation, hints) is the library's, behind /api.
"use strict";

const $ = (id) => document.getElementById(id);
const TYPES = ["E", "B", "A", "O"];
const TYPE_NAMES = { E: "Empty", B: "Boost", A: "Asteroid", O: "Obstructed" };
const ARROWS = [null, "U", "R", "D", "L"];
const ARROW_SIGN = { U: "^", R: ">", D: "v", L: "<" };

async function api(method, url, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const res = await fetch(url, opts);
  let data = null;
  try { data = await res.json(); } catch (e) { data = { error: res.statusText }; }
  return { ok: res.ok, status: res.status, data };
}

function el(tag, attrs, ...kids) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "onclick") node.addEventListener("click", v);
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids) if (kid !== null && kid !== undefined) node.append(kid);
  return node;
}

function same(a, b) { return Array.isArray(a) && Array.isArray(b) && a[0] === b[0] && a[1] === b[1]; }
function has(list, pos) { return (list || []).some((p) => same(p, pos)); }

// ---------------------------------------------------------------- the grid
// opts: prefix (ids), onTap(r, c), sel [r, c], faults [{cell, message}],
// overlay {path, peek, flip, rescan} from a hint.
function renderGrid(box, table, opts) {
  const o = opts || {};
  const ov = o.overlay || {};
  const grid = el("div", { class: "grid" });
  for (let r = 7; r >= 1; r--) {
    const ship = table.ship;
    grid.append(r === 1
      ? el("div", { class: "side-cell" + (ship === "dock" ? " here" : ""), text: ship === "dock" ? "ship ▲ dock" : "dock" })
      : el("div", { class: "rowlabel", text: String(r) }));
    for (let c = 1; c <= 5; c++) grid.append(cellButton(table, r, c, o, ov));
    grid.append(r === 7
      ? el("div", { class: "side-cell" + (ship === "earth" ? " here" : ""), text: ship === "earth" ? "ship ▲ Earth" : "Earth" })
      : el("div", {}));
    for (const f of o.faults || []) {
      if (f.cell && f.cell[0] === r) {
        grid.append(el("div", { class: "fault-note", role: "alert",
          text: `Row ${f.cell[0]}, column ${f.cell[1]}: ${f.message}` }));
      }
    }
  }
  box.replaceChildren(grid, el("p", { class: "legend",
    text: "Big letter: the side face up (solid ring: front, dashed: back). Small letter: the down side (? unseen). ● sample, ▲ ship, ◆ escape pod." }));
}

function cellButton(table, r, c, o, ov) {
  const cell = table.cells[r - 1][c - 1];
  const pos = [r, c];
  const cls = ["cell"];
  let label = "";
  const kids = [];
  if (cell.kind === "gap") {
    cls.push("gap");
    label = "gap";
    kids.push(el("span", { class: "down", text: cell.front || "?" }));
  } else if (cell.kind === "start") {
    cls.push("start");
    label = "S";
  } else {
    cls.push("t-" + cell.up);
    if (cell.side === "back") cls.push("back");
    label = cell.up;
    kids.push(el("span", { class: "down", text: (cell.down || "?").toLowerCase() }));
    if (cell.sample) kids.push(el("span", { class: "sample", text: cell.content ? "● " + cell.content : "●" }));
  }
  if (same(table.ship, pos)) kids.push(el("span", { class: "ship", text: "▲" }));
  if (same(table.pod, pos)) kids.push(el("span", { class: "ship pod", text: "◆" }));
  if (same(o.sel, pos)) cls.push("sel");
  if ((o.faults || []).some((f) => same(f.cell, pos))) cls.push("fault");
  const step = (ov.path || []).findIndex((p) => same(p, pos));
  if (step >= 0) { cls.push("path"); kids.push(el("span", { class: "step", text: String(step + 1) })); }
  if (has(ov.peek, pos)) cls.push("peek");
  if (has(ov.flip, pos)) cls.push("flip");
  if (has(ov.rescan, pos)) cls.push("rescan");
  const name = cell.kind === "card"
    ? `${TYPE_NAMES[cell.up]} ${cell.side} up at ${r},${c}` : `${cell.kind} at ${r},${c}`;
  const btn = el("button", { class: cls.join(" "), id: `${o.prefix || "g"}-cell-${r}-${c}`,
    "aria-label": name, type: "button" }, label, ...kids);
  if (o.onTap) btn.addEventListener("click", () => o.onTap(r, c));
  else btn.tabIndex = -1;
  return btn;
}

// ---------------------------------------------------------------- hints
function meaning(win) {
  const pct = Math.round(win * 100);
  const odds = pct >= 80 ? "very likely" : pct > 55 ? "better than even" : pct >= 45 ? "about even" : pct >= 20 ? "an uphill game" : "long odds";
  let share;
  if (pct <= 0) share = "almost no game from here ends";
  else if (pct < 10) share = `about 1 game in ${Math.round(100 / pct)} from here ends`;  // 5 % is 1 in 20, not 1 in 10
  else if (pct >= 95) share = "nearly every game from here ends";
  else {
    const inTen = Math.round(win * 10);
    share = `about ${inTen} game${inTen === 1 ? "" : "s"} in 10 from here end${inTen === 1 ? "s" : ""}`;
  }
  return `${pct}% to win: ${share} at Earth with this turn and good play after it (${odds}).`;
}

function showHint(box, h) {
  const kids = [
    el("div", { class: "best", id: box.id + "-best", text: "Best: " + h.best }),
    el("div", { text: meaning(h.win) }),
    el("div", { class: "meta", text: `95% interval ${Math.round(h.ci95[0] * 100)}–${Math.round(h.ci95[1] * 100)}%, valued in ${h.worlds} sampled world(s).` }),
  ];
  if (h.cards && h.cards.length) kids.push(el("div", { text: "Cards to play: " + h.cards.join(" + ") + (h.bolster ? ` (bolster ${h.bolster} first)` : "") }));
  if (h.path && h.path.length) {
    kids.push(el("div", { text: "Path: " + h.path.map((p) => p.join(",")).join(" → ") +
      (h.path_share < 1 ? ` (in ${Math.round(h.path_share * 100)}% of the sampled worlds)` : "") }));
  }
  if (h.rescans && h.rescans.length) {
    const lines = h.rescans.map((x) => `${x.outcome} (${Math.round(x.probability * 100)}%): ` +
      (x.columns.length ? "flip columns " + x.columns.join(",") : "nothing to flip"));
    kids.push(el("div", { text: "Re-scan: " + lines.join("; ") }));
  }
  kids.push(el("div", { class: "why", text: "Why: " + h.reason }));
  if (h.runner_up) {
    kids.push(el("div", { text: "Runner-up: " + h.runner_up +
      (h.runner_up_win !== null ? ` (${Math.round(h.runner_up_win * 100)}% to win)` : "") }));
  }
  kids.push(el("div", { class: "meta", text: `${h.commands} commands, ${h.candidates} weighed, ${h.seconds.toFixed(2)} s; ${h.method}` }));
  box.replaceChildren(...kids);
}

// Start a hint job and follow it; the bar shows the time used of the budget.
async function runHint(url, body, progress, out, onDone) {
  out.replaceChildren(el("div", { text: "Thinking…" }));
  const res = await api("POST", url, body);
  if (!res.ok) {
    out.replaceChildren(el("div", { class: "msg", role: "alert", text: res.data.error }));
    return;
  }
  const job = res.data.job;
  const budget = res.data.budget;
  let cancelled = false;
  progress.hidden = false;
  const fill = progress.querySelector(".fill");
  const cancel = progress.querySelector(".cancel");
  cancel.onclick = async () => {
    cancelled = true;
    await api("DELETE", `/api/job/${job}`);
    progress.hidden = true;
    out.replaceChildren(el("div", { text: "Hint cancelled." }));
  };
  for (;;) {
    const st = await api("GET", `/api/job/${job}?wait=0.25`);
    if (cancelled) return;
    if (!st.ok) { out.replaceChildren(el("div", { class: "msg", text: st.data.error })); break; }
    fill.style.setProperty("--done", Math.min(100, (100 * st.data.elapsed) / budget) + "%");
    if (st.data.status === "done") { showHint(out, st.data.result); onDone(st.data.result); break; }
    if (st.data.status === "refused" || st.data.status === "failed") {
      out.replaceChildren(el("div", { class: "msg", role: "alert", text: st.data.error }));
      break;
    }
  }
  progress.hidden = true;
}

// ---------------------------------------------------------------- the table
const T = { table: null, sel: null, focus: null, faults: [], overlay: null, cards: [], text: "", timer: null };

function seg(box, values, current, onPick, idPrefix, labels) {
  box.replaceChildren(...values.map((v, i) => el("button", {
    id: `${idPrefix}-${v}`, class: v === current ? "on" : "", type: "button",
    onclick: () => onPick(v), text: labels ? labels[i] : String(v),
  })));
}

function tableChanged(focus) {
  T.focus = focus || null;
  T.overlay = null;
  $("t-hint-out").replaceChildren();
  drawTable();
  clearTimeout(T.timer);
  T.timer = setTimeout(checkTable, 150);
}

async function checkTable() {
  const res = await api("POST", "/api/table/check", { table: T.table, focus: T.focus });
  if (!res.ok) { setStatus($("t-status"), res.data.error, false); return; }
  T.faults = res.data.problems;
  T.text = res.data.text;
  setStatus($("t-status"), res.data.ok ? "A table a game can show." :
    `Impossible table: ${res.data.problems.length} problem(s).`, res.data.ok);
  drawTable();
}

function setStatus(node, text, good) {
  node.textContent = text;
  node.className = "status " + (good ? "good" : "bad");
}

async function loadCards() {
  const t = T.table;
  const res = await api("GET", `/api/cards?players=${t.players}&difficulty=${t.difficulty}`);
  T.cards = res.ok ? res.data.cards : [];
}

async function setTable(data) {
  T.table = data.table;
  T.text = data.text;
  T.faults = data.problems || [];
  T.sel = null;
  T.overlay = null;
  await loadCards();
  setStatus($("t-status"), data.ok ? "A table a game can show." :
    `Impossible table: ${T.faults.length} problem(s).`, data.ok);
  drawTable();
}

function drawTable() {
  const t = T.table;
  if (!t) return;
  renderGrid($("t-grid"), t, { prefix: "t", sel: T.sel, faults: T.faults.filter((f) => f.cell),
    overlay: T.overlay, onTap: (r, c) => { T.sel = [r, c]; drawTable(); } });
  drawEditor();
  const num = (key, max) => seg($("f-" + key), [...Array(max + 1).keys()], t[key],
    (v) => { t[key] = v; tableChanged(); }, "f-" + key);
  num("shields", 2); num("held", 3); num("spent", 3); num("rocks", 2);
  seg($("f-pass"), [1, 2], t.pass, (v) => { t.pass = v; tableChanged(); }, "f-pass");
  $("f-deck").textContent = String(t.deck);
  seg($("f-ship"), ["dock", "earth"], t.ship, (v) => { t.ship = v; tableChanged(); }, "f-ship", ["Dock", "Earth"]);
  $("f-hand").replaceChildren(...T.cards.map((c) => el("button", {
    id: "hand-" + c.id, type: "button", class: "chip" + (t.hand.includes(c.id) ? " on" : ""), text: c.id,
    onclick: () => {
      t.hand = t.hand.includes(c.id) ? t.hand.filter((x) => x !== c.id) : [...t.hand, c.id];
      tableChanged();
    },
  })));
  $("f-discard-add").replaceChildren(...T.cards.map((c) => el("button", {
    id: "disc-add-" + c.id, type: "button", class: "chip", text: "+" + c.id,
    onclick: () => { t.discard.push({ card: c.id, arrow: null }); tableChanged(); },
  })));
  $("f-discard").replaceChildren(...t.discard.map((e, i) => el("span", {},
    el("button", { type: "button", class: "chip", id: `disc-${i}`, title: "tap: turn the arrow",
      text: e.card + (e.arrow ? " " + ARROW_SIGN[e.arrow] : ""),
      onclick: () => { e.arrow = ARROWS[(ARROWS.indexOf(e.arrow) + 1) % ARROWS.length]; tableChanged(); } }),
    el("button", { type: "button", "aria-label": "remove " + e.card, text: "×",
      onclick: () => { t.discard.splice(i, 1); tableChanged(); } }))));
  $("f-problems").replaceChildren(...T.faults.filter((f) => !f.cell).map((f) =>
    el("div", { class: "problem", role: "alert", text: `${f.part}: ${f.message}` })));
}

function drawEditor() {
  const box = $("t-editor");
  if (!T.sel) { box.hidden = true; return; }
  box.hidden = false;
  const [r, c] = T.sel;
  const t = T.table;
  const cell = t.cells[r - 1][c - 1];
  const set = (next) => { t.cells[r - 1][c - 1] = next; tableChanged([r, c]); };
  const row = (title, ...kids) => el("div", { class: "row" }, el("span", { text: title }), ...kids);
  const pick = (id, on, text, fn) => el("button", { id, type: "button", class: on ? "on" : "", text, onclick: fn });
  const rows = [el("strong", { text: `Cell ${r},${c}` }),
    row("Kind",
      pick("ed-kind-card", cell.kind === "card", "Card", () => cell.kind !== "card" &&
        set({ kind: "card", up: "E", side: "front", down: null, sample: false })),
      pick("ed-kind-gap", cell.kind === "gap", "Gap", () => set({ kind: "gap", front: null })),
      pick("ed-kind-start", cell.kind === "start", "Start", () => set({ kind: "start" })))];
  if (cell.kind === "card") {
    rows.push(row("Face up", ...TYPES.map((x) => pick("ed-up-" + x, cell.up === x, x, () => set({ ...cell, up: x })))));
    rows.push(row("Showing", pick("ed-side-front", cell.side === "front", "Front", () => set({ ...cell, side: "front" })),
      pick("ed-side-back", cell.side === "back", "Back", () => set({ ...cell, side: "back" }))));
    rows.push(row("Down side", pick("ed-down-unknown", !cell.down, "?", () => set({ ...cell, down: null })),
      ...TYPES.map((x) => pick("ed-down-" + x, cell.down === x, x, () => set({ ...cell, down: x })))));
    rows.push(row("Sample", pick("ed-sample", cell.sample, cell.sample ? "Sample on it" : "No sample",
      () => set({ ...cell, sample: !cell.sample }))));
  } else if (cell.kind === "gap") {
    rows.push(row("Its front", pick("ed-front-unknown", !cell.front, "?", () => set({ ...cell, front: null })),
      ...TYPES.map((x) => pick("ed-front-" + x, cell.front === x, x, () => set({ ...cell, front: x })))));
  }
  rows.push(row("Ship", pick("ed-ship", same(t.ship, [r, c]), "Ship here", () => { t.ship = [r, c]; tableChanged([r, c]); })));
  box.replaceChildren(...rows);
}

function initTable() {
  $("t-load").onclick = async () => {
    const res = await api("POST", "/api/table/from-id", { game_id: $("t-gameid").value });
    if (!res.ok) { setStatus($("t-status"), res.data.error, false); return; }
    await setTable(res.data);
  };
  $("f-deck-minus").onclick = () => { T.table.deck = Math.max(0, T.table.deck - 1); tableChanged(); };
  $("f-deck-plus").onclick = () => { T.table.deck += 1; tableChanged(); };
  $("t-export").onclick = async () => {
    await checkTable();
    $("t-text").value = T.text;
    $("t-download").href = "data:text/plain;charset=utf-8," + encodeURIComponent(T.text);
    $("t-io-msg").textContent = "The table as text: save it, or paste it into 'sensor-ghosts hint'.";
  };
  $("t-import").onclick = async () => {
    const res = await api("POST", "/api/table/check", { text: $("t-text").value });
    if (!res.ok) {
      const p = (res.data.problems || [])[0];
      $("t-io-msg").textContent = res.data.error + (p && p.cell ? ` (row ${p.cell[0]}, column ${p.cell[1]})` : "");
      $("t-io-msg").className = "status bad";
      return;
    }
    $("t-io-msg").textContent = "Imported.";
    $("t-io-msg").className = "status good";
    await setTable(res.data);
  };
  $("t-hint").onclick = () => runHint("/api/hint",
    { table: T.table, budget: Number($("t-budget").value) }, $("t-progress"), $("t-hint-out"),
    (h) => { T.overlay = h; drawTable(); });
}

// ---------------------------------------------------------------- play
const P = { game: null, cards: new Set(), outcome: null, overlay: null, asked: 0 };

async function newGame() {
  const seed = $("p-seed").value.trim();
  const body = { difficulty: $("p-difficulty").value };
  if ($("p-gameid").value.trim()) body.game_id = $("p-gameid").value.trim();
  if (seed !== "") body.seed = Number(seed);
  const asked = ++P.asked;  // only the latest New game counts (an earlier answer may come late)
  const res = await api("POST", "/api/game", body);
  if (asked !== P.asked) return;
  if (!res.ok) { $("p-msg").textContent = res.data.error; return; }
  P.cards.clear();
  showGame(res.data);
}

function showGame(g) {
  P.game = g;
  P.outcome = null;
  P.overlay = null;
  $("p-hint-out").replaceChildren();
  drawGame();
}

function drawGame() {
  const g = P.game;
  const t = g.table;
  renderGrid($("p-grid"), t, { prefix: "p", overlay: P.overlay });
  const top = t.discard.length ? t.discard[t.discard.length - 1] : null;
  $("p-status").textContent = `Setup ${g.setup_id} · turn ${t.turn} · shields ${t.shields} · ` +
    `virus held ${t.held} · deck ${t.deck} · pass ${t.pass} · discard top ${top ? top.card + (top.arrow ? " " + ARROW_SIGN[top.arrow] : "") : "-"}`;
  $("p-status").className = "status";
  $("p-hand").replaceChildren(el("span", { text: "Hand: " }), ...t.hand.map((id) => el("button", {
    id: "p-card-" + id, type: "button", class: "chip" + (P.cards.has(id) ? " on" : ""), text: id,
    onclick: () => { P.cards.has(id) ? P.cards.delete(id) : P.cards.add(id); drawGame(); },
  })));
  drawCommands();
  const log = g.log.map((x) => el("li", {}, el("span", { text: x.text }), el("small", { text: x.events.join("; ") })));
  $("p-log").replaceChildren(...log);
  const end = $("p-end");
  end.hidden = !g.over;
  if (g.over) {
    end.className = "end " + g.status;
    end.replaceChildren(el("div", { id: "p-outcome", text: g.status === "won" ? `Won! ${g.outcome}` : `Lost: ${g.outcome}` }),
      el("div", { text: "The grid now shows every card's both sides and each sample's content." }),
      el("a", { href: "#puzzles", id: "p-solution-link", text: `See the solution of ${g.setup_id}`,
        onclick: () => { $("z-gameid").value = g.setup_id; setTimeout(showPuzzle, 0); } }));
  }
  $("p-undo").disabled = !g.can_undo;
  $("p-hint").disabled = g.over;
}

function drawCommands() {
  const g = P.game;
  const out = P.outcome;
  if (out) {  // the command is played: its outcome, then the re-scan to choose
    $("p-commands").replaceChildren();
    $("p-rescans").replaceChildren(
      el("div", { id: "p-outcome-text", text: `${out.start}: ${out.events.join("; ") || "done"}.` }),
      el("div", { class: "legend", text: out.ends_game ? "The game ends here:" : "Now the re-scan:" }),
      ...out.rescans.map((x, i) => el("button", { type: "button", class: "primary", id: `p-rescan-${i}`,
        text: x.columns.length ? "flip columns " + x.columns.join(",") : (out.ends_game ? "end the turn" : "no re-scan"),
        onclick: () => playTurn(x.turn) })),
      el("button", { type: "button", id: "p-back", text: "Back",
        onclick: () => { P.outcome = null; P.overlay = null; drawGame(); } }));
    return;
  }
  const wanted = [...P.cards];
  const fits = g.commands.filter((c) => wanted.every((id) => c.cards.includes(id)));
  const shown = fits.slice(0, 60);
  $("p-rescans").replaceChildren();
  $("p-commands").replaceChildren(
    el("div", { class: "legend", text: g.over ? "" : g.commands_note ||
      `${fits.length} command(s)${wanted.length ? " with " + wanted.join(", ") : ""}` +
      (fits.length > shown.length ? ` (first ${shown.length} shown)` : "") +
      ": tap one to play it, then choose its re-scan. Tap cards in the hand to narrow the list." }),
    ...shown.map((c, i) => el("button", { type: "button", id: `p-cmd-${i}`, text: c.start,
      onclick: () => chooseCommand(c.start) })));
}

async function chooseCommand(start) {
  const res = await api("POST", `/api/game/${P.game.id}/command`, { start });
  if (!res.ok) { $("p-msg").textContent = res.data.error; return; }
  P.outcome = res.data;
  P.overlay = { path: res.data.entered };
  drawGame();
}

async function playTurn(text) {
  const res = await api("POST", `/api/game/${P.game.id}/turn`, { turn: text });
  if (!res.ok) { $("p-msg").textContent = res.data.error; return; }
  $("p-msg").textContent = "";
  P.cards.clear();
  showGame(res.data);
}

function initPlay() {
  $("p-new").onclick = newGame;
  $("p-play").onclick = () => playTurn($("p-turn").value);
  $("p-turn").addEventListener("keydown", (e) => { if (e.key === "Enter") playTurn($("p-turn").value); });
  $("p-undo").onclick = async () => {
    const res = await api("POST", `/api/game/${P.game.id}/undo`);
    if (!res.ok) { $("p-msg").textContent = res.data.error; return; }
    showGame(res.data);
  };
  $("p-hint").onclick = () => runHint(`/api/game/${P.game.id}/hint`, { budget: 1 },
    $("p-progress"), $("p-hint-out"), (h) => { P.overlay = h; drawGame(); });
}

// ---------------------------------------------------------------- puzzles
async function showPuzzle() {
  const id = $("z-gameid").value.trim();
  const base = `/api/puzzle/${encodeURIComponent(id)}`;
  $("z-msg").textContent = "Drawing…";
  for (const [img, what] of [["z-sheet", "sheet.svg"], ["z-solution", "solution.svg"]]) {
    const res = await fetch(`${base}/${what}`);
    if (!res.ok) {
      const data = await res.json().catch(() => ({ error: res.statusText }));
      $("z-msg").textContent = data.error;
      return;
    }
    $(img).src = URL.createObjectURL(await res.blob());
  }
  $("z-msg").textContent = "";
  $("z-pdf").href = `${base}/puzzle.pdf`;
  $("z-pdf").hidden = false;
}

// ---------------------------------------------------------------- tabs
function showTab() {
  const tab = (location.hash || "#table").slice(1);
  for (const name of ["table", "play", "puzzles"]) {
    $("tab-" + name).hidden = name !== tab;
    document.querySelector(`nav a[data-tab=${name}]`).classList.toggle("on", name === tab);
  }
  if (tab === "play" && !P.game) newGame();
}

window.addEventListener("hashchange", showTab);
document.addEventListener("DOMContentLoaded", async () => {
  initTable();
  initPlay();
  $("z-show").onclick = showPuzzle;
  const res = await api("POST", "/api/table/from-id", { game_id: "1p-standard#7" });
  if (res.ok) await setTable(res.data);
  showTab();
});
