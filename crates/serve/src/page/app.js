// bawo explorer: draws a position of the database, its moves coloured by value, and lets
// the user walk through the game. The URL's query string holds the position, so a link
// shows the same board; history back/forward walks through the positions seen.
"use strict";

const KEYS = ["db", "board", "to_move", "hands", "houses", "start"];
const SVGNS = "http://www.w3.org/2000/svg";
let dbs = [];
let cur = null;       // the database shown
let shown = null;     // { params, pos, moves, answer }
let editing = false;
let editBoard = null; // counts while editing

const $ = (id) => document.getElementById(id);

async function api(path, params) {
  const r = await fetch(path + "?" + new URLSearchParams(params || {}));
  const j = await r.json();
  if (!r.ok) throw new Error(j.error || ("HTTP " + r.status));
  return j;
}

function urlParams() {
  const u = new URLSearchParams(location.search);
  const p = {};
  for (const k of KEYS) if (u.get(k) !== null) p[k] = u.get(k);
  return p;
}

// The parameters that name a position as the API returns it (moves, positions, line plies).
function paramsOf(db, pos) {
  const p = { db: db, board: pos.board.join(","), to_move: pos.to_move };
  if (pos.hands && (pos.hands[0] || pos.hands[1])) {
    p.hands = pos.hands.join(",");
    const standing = [];
    if (pos.houses && pos.houses[0] !== "none") standing.push("A");
    if (pos.houses && pos.houses[1] !== "none") standing.push("B");
    p.houses = standing.length ? standing.join(",") : "none";
  }
  return p;
}

function go(params) {
  history.pushState(null, "", "?" + new URLSearchParams(params));
  load();
}

// A board to start from when the URL names none: a position the database holds (the opening
// where it covers it), else seeds on the back rows.
function defaultParams(db) {
  if (db.open) return paramsOf(db.name, db.open);
  if (db.start) return paramsOf(db.name, db.start);
  const board = new Array(db.pits).fill(0);
  let left = db.game === "bao" ? db.seeds : Math.min(db.seeds, db.pits);
  const rows = layout(db);
  const order = rows[rows.length - 1].concat(rows[0]);
  for (let i = 0; left > 0; i = (i + 1) % order.length) { board[order[i]] += 1; left -= 1; }
  return { db: db.name, board: board.join(","), to_move: "A" };
}

// Pits of each drawn row, top to bottom, left to right (North or B on top).
function layout(db) {
  const rows = [];
  if (db.game === "bawo") {
    const n = db.n;
    const range = (a, b) => Array.from({ length: b - a }, (_, i) => a + i);
    rows.push(range(3 * n, 4 * n), range(2 * n, 3 * n).reverse(), range(n, 2 * n), range(0, n).reverse());
  } else {
    const w = db.game === "kigogo" ? 12 : 8;
    for (let r = 0; r < 4; r++) rows.push(Array.from({ length: w }, (_, c) => w * r + c));
  }
  return rows;
}

// The pit a move starts from, where the notation says (Bawo: the pit; Kigogo: rRcC).
function startPit(db, label) {
  if (db.game === "bawo") return Number(label);
  const m = /^r(\d+)c(\d+)$/.exec(label);
  return m && db.game === "kigogo" ? 12 * Number(m[1]) + Number(m[2]) : null;
}

function el(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}

function drawBoard(pos, highlight) {
  const svg = $("board");
  const counts = editing ? editBoard : pos.board;
  const rows = layout(cur);
  const w = rows[0].length, cell = 60, pad = 40;
  const width = w * cell + 2 * pad, height = 4 * cell + 2 * pad + 20;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.setAttribute("data-board", pos.board.join(","));
  svg.setAttribute("data-to-move", pos.to_move);
  svg.replaceChildren();
  svg.classList.toggle("editing", editing);
  svg.appendChild(el("rect", { class: "boardbg", x: pad - 10, y: pad - 10, width: w * cell + 20, height: 4 * cell + 20, rx: 14 }));
  svg.appendChild(el("line", { class: "divider", x1: pad - 10, x2: pad + w * cell + 10, y1: pad + 2 * cell, y2: pad + 2 * cell }));
  const houses = { 20: 0, 11: 1 }; // Bao: South's house row 2 col 4, North's row 1 col 3
  rows.forEach((row, r) => {
    const own = (r >= 2) === (pos.to_move === "A");
    row.forEach((p, c) => {
      const g = el("g", { class: "pit" + (own ? " own" : "") + (p === highlight ? " start" : ""), "data-pit": p });
      const x = pad + c * cell + cell / 2, y = pad + r * cell + cell / 2;
      const side = houses[p];
      if (cur.game === "bao" && side !== undefined && pos.houses && pos.houses[side] !== "none") {
        g.appendChild(el("rect", { class: "hole", x: x - 25, y: y - 25, width: 50, height: 50, rx: 4 }));
      } else {
        g.appendChild(el("circle", { cx: x, cy: y, r: 25 }));
      }
      g.appendChild(el("text", { x: x, y: y }, String(counts[p])));
      g.appendChild(el("text", { class: "label", x: x + 19, y: y + 24 }, String(p)));
      g.addEventListener("click", (ev) => editPit(p, ev.shiftKey ? -1 : 1));
      g.addEventListener("contextmenu", (ev) => { if (editing) { ev.preventDefault(); editPit(p, -1); } });
      svg.appendChild(g);
    });
  });
  const names = cur.game === "bawo" ? ["B", "A"] : ["North (B)", "South (A)"];
  const hands = pos.hands ? [` hand ${pos.hands[1]}`, ` hand ${pos.hands[0]}`] : ["", ""];
  svg.appendChild(el("text", { class: "sidelabel", x: pad, y: pad - 16 }, names[0] + hands[0]));
  svg.appendChild(el("text", { class: "sidelabel", x: pad, y: pad + 4 * cell + 28 }, names[1] + hands[1]));
}

function editPit(p, delta) {
  if (!editing) return;
  editBoard[p] = Math.max(0, editBoard[p] + delta);
  $("ed-board").value = editBoard.join(",");
  drawBoard(shown.pos, null);
}

function valueText(value, depth) {
  return depth === null || depth === undefined ? value : `${value} in ${depth}`;
}

function render() {
  const { pos, moves, answer, error } = shown;
  $("to-move").textContent = `${pos.to_move} to move`;
  $("to-move").setAttribute("data-to-move", pos.to_move);
  const v = $("value");
  v.className = answer ? "value-" + answer.value : "";
  v.textContent = answer ? valueText(answer.value, answer.depth) : "not in this database";
  v.setAttribute("data-value", answer ? answer.value : "");
  v.setAttribute("data-depth", answer && answer.depth !== null ? answer.depth : "");
  $("error").textContent = error || "";
  $("text").textContent = pos.text;
  drawBoard(pos, null);
  const list = $("moves");
  list.replaceChildren();
  const byLabel = {};
  if (answer) answer.moves.forEach((m) => { byLabel[m.move] = m; });
  // Best first when values are known (the query's order), else the moves' own order.
  const ordered = answer ? answer.moves.map((m) => moves.find((x) => x.move === m.move)) : moves;
  for (const m of ordered) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    const a = byLabel[m.move];
    b.className = "move" + (a ? " " + a.value : "");
    b.setAttribute("data-move", m.move);
    if (a) {
      b.setAttribute("data-value", a.value);
      b.setAttribute("data-depth", a.depth === null ? "" : String(a.depth));
    }
    b.textContent = `${m.move}  ${a ? valueText(a.value, a.depth) : ""}${m.captured ? "  captures " + m.captured : ""}${m.mover_loses ? "  (loses at once)" : ""}`;
    b.addEventListener("mouseenter", () => drawBoard(pos, startPit(cur, m.move)));
    b.addEventListener("mouseleave", () => drawBoard(pos, null));
    b.addEventListener("click", () => { if (!m.mover_loses) go(paramsOf(cur.name, m)); });
    li.appendChild(b);
    list.appendChild(li);
  }
  if (!moves.length) {
    const li = document.createElement("li");
    li.textContent = `no legal move: ${pos.to_move} has lost`;
    list.appendChild(li);
  }
  $("opening").hidden = !cur.start;
  enginePlays();
}

// Play against perfect play: when it is the engine's turn, it plays the query's best move.
function enginePlays() {
  const side = $("engine").value;
  const s = shown;
  if (!side || !s.answer || s.pos.to_move !== side || !s.answer.moves.length) return;
  const best = s.moves.find((m) => m.move === s.answer.moves[0].move);
  if (!best || best.mover_loses) return;
  setTimeout(() => { if (shown === s) go(paramsOf(cur.name, best)); }, 600);
}

function dbInfo() {
  $("db").value = cur.name;
  $("descriptor").textContent = cur.descriptor;
  const rows = cur.tiers.map((t) => `<tr><td>${t.seeds}</td><td>${t.states}</td><td>${t.win}</td><td>${t.loss}</td><td>${t.draw}</td><td>${t.max_depth}</td></tr>`);
  $("dbinfo").innerHTML = `<p>${cur.states} positions${cur.complete ? "" : " (unfinished)"}</p>` +
    `<table><tr><th>seeds</th><th>positions</th><th>win</th><th>loss</th><th>draw</th><th>max depth</th></tr>${rows.join("")}</table>`;
  document.querySelectorAll(".bao-only").forEach((e) => { e.hidden = cur.game !== "bao"; });
}

async function load() {
  let p = urlParams();
  cur = dbs.find((d) => d.name === p.db) || dbs[0];
  if (!p.board && !p.start) p = defaultParams(cur);
  p.db = cur.name;
  dbInfo();
  $("line").hidden = true;
  $("stats").replaceChildren();
  try {
    const [pos, moves] = await Promise.all([api("/api/position", p), api("/api/moves", p)]);
    let answer = null, error = null;
    if (pos.covered) {
      try { answer = await api("/api/query", p); } catch (e) { error = e.message; }
    } else {
      error = "This position is not in the database: moves are shown without values.";
    }
    shown = { params: p, pos: pos, moves: moves.moves, answer: answer, error: error };
    editBoard = pos.board.slice();
    fillEditor(pos);
    render();
  } catch (e) {
    $("error").textContent = e.message;
  }
}

function fillEditor(pos) {
  $("ed-board").value = pos.board.join(",");
  $("ed-to-move").value = pos.to_move;
  const p = paramsOf(cur.name, pos);
  $("ed-hands").value = p.hands || "";
  $("ed-houses").value = p.houses || "";
}

async function showLine() {
  const box = $("line");
  box.hidden = false;
  const list = $("line-plies");
  list.replaceChildren();
  try {
    const line = await api("/api/line", Object.assign({}, shown.params, { limit: 200 }));
    for (const ply of line.plies) {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.className = "move ply " + ply.value;
      b.textContent = `${ply.move}  ${valueText(ply.value, ply.depth)}`;
      b.addEventListener("click", () => { if (!ply.mover_loses) go(paramsOf(cur.name, ply)); });
      li.appendChild(b);
      list.appendChild(li);
    }
    $("line-end").textContent = {
      "no-legal-move": "the side to move has no legal move: game over",
      "mover-loses": "the last move loses at once",
      "cycle": "the drawn line repeats a position",
      "limit": "stopped at the ply limit",
    }[line.end];
  } catch (e) {
    $("line-end").textContent = e.message;
  }
}

// The statistics plot: positions by depth (wins above the axis, losses below, log scale),
// and the win/draw/loss share of each tier.
async function showStats() {
  const box = $("stats");
  box.textContent = "reading every tier...";
  try {
    const s = await api("/api/stats", { db: cur.name });
    const depths = Math.max(s.win_depths.length, s.loss_depths.length, 1);
    const W = 320, H = 260, mid = 110, barW = Math.max(1, (W - 40) / depths);
    const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, id: "stats-plot" });
    const top = Math.log10(1 + Math.max(1, ...s.win_depths, ...s.loss_depths));
    const h = (x) => (Math.log10(1 + x) / top) * 90;
    svg.appendChild(el("text", { x: 4, y: 12, "font-size": 10 }, "positions by depth (log): wins up, losses down"));
    for (let d = 0; d < depths; d++) {
      const x = 30 + d * barW;
      const w = s.win_depths[d] || 0, l = s.loss_depths[d] || 0;
      svg.appendChild(el("rect", { x: x, y: mid - h(w), width: barW * 0.9, height: h(w), fill: "#2e7d32" }));
      svg.appendChild(el("rect", { x: x, y: mid, width: barW * 0.9, height: h(l), fill: "#b71c1c" }));
    }
    svg.appendChild(el("line", { x1: 30, x2: W - 10, y1: mid, y2: mid, stroke: "#000" }));
    svg.appendChild(el("text", { x: 30, y: mid + 105, "font-size": 9 }, `depth 0 .. ${depths - 1}`));
    const tw = (W - 40) / Math.max(1, s.tiers.length);
    s.tiers.forEach((t, i) => {
      const x = 30 + i * tw, total = Math.max(1, t.states);
      let y = H - 20;
      for (const [n, c] of [[t.win, "#2e7d32"], [t.draw, "#999"], [t.loss, "#b71c1c"]]) {
        const hh = (n / total) * 25;
        y -= hh;
        svg.appendChild(el("rect", { x: x, y: y, width: tw * 0.9, height: hh, fill: c }));
      }
    });
    svg.appendChild(el("text", { x: 30, y: H - 6, "font-size": 9 }, "win / draw / loss share per tier"));
    box.replaceChildren(svg);
  } catch (e) {
    box.textContent = e.message;
  }
}

async function init() {
  try {
    dbs = await api("/api/dbs");
  } catch (e) {
    $("error").textContent = e.message;
    return;
  }
  for (const d of dbs) {
    const o = document.createElement("option");
    o.value = d.name;
    o.textContent = `${d.name} (${d.game})`;
    $("db").appendChild(o);
  }
  $("db").addEventListener("change", () => go(defaultParams(dbs.find((d) => d.name === $("db").value))));
  $("back").addEventListener("click", () => history.back());
  $("forward").addEventListener("click", () => history.forward());
  $("opening").addEventListener("click", () => go(paramsOf(cur.name, cur.start)));
  $("line-btn").addEventListener("click", showLine);
  $("stats-btn").addEventListener("click", showStats);
  $("engine").addEventListener("change", enginePlays);
  $("edit-btn").addEventListener("click", () => {
    editing = !editing;
    $("editor").hidden = !editing;
    editBoard = shown.pos.board.slice();
    drawBoard(shown.pos, null);
  });
  $("ed-board").addEventListener("input", () => {
    const v = $("ed-board").value.split(/[,/]/).map((x) => Number(x.trim()));
    if (v.length === editBoard.length && v.every((x) => Number.isInteger(x) && x >= 0)) {
      editBoard = v;
      drawBoard(shown.pos, null);
    }
  });
  $("ed-clear").addEventListener("click", () => {
    editBoard.fill(0);
    $("ed-board").value = editBoard.join(",");
    drawBoard(shown.pos, null);
  });
  $("editor").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const p = { db: cur.name, board: $("ed-board").value, to_move: $("ed-to-move").value };
    if (cur.game === "bao" && $("ed-hands").value.trim()) p.hands = $("ed-hands").value.trim();
    if (cur.game === "bao" && $("ed-houses").value.trim()) p.houses = $("ed-houses").value.trim();
    editing = false;
    $("editor").hidden = true;
    go(p);
  });
  window.addEventListener("popstate", load);
  load();
}

init();
