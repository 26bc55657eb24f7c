// gops explore: the page. Hand-written, no libraries, no network beyond this server.
// The position lives in the address (the query string); every change rewrites it
// and asks /api/position, which answers exactly as `gops query` does.
"use strict";

const RULE_KEYS = ["cards", "tie", "objective", "order", "match", "draw", "bid_cards", "open_prizes", "tiebreak",
                   "game", "match_score", "match_total"];
const FACES = { 1: "A", 11: "J", 12: "Q", 13: "K" };
const NAMES = { A: 1, J: 11, Q: 12, K: 13 };
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

let pos = null;          // the position shown: {params, n, handA, handB, prizes, pot, diff}
let answer = null;       // the last /api/position reply for pos
let chosen = { a: null, b: null, next: null };
let crumbs = [];         // the breadcrumb: [{label, search}]
let requestNo = 0;
const timing = { loaded: null, lastRenderMs: null, lastServerMs: null, renders: 0 };
window.gopsTimings = timing;

function face(c) { return FACES[c] || String(c); }
// a bid as shown: a card's face, or a two-card bid's faces joined by "+" ("3+5")
function bidLabel(k) { return String(k).split("+").map((x) => face(Number(x))).join("+"); }
function openPrizes(params) { return parseInt(params.get("open_prizes") || "1", 10) || 1; }
// a signed number; what rounds to zero is shown as 0, without a sign
function signed(v, digits) {
  const t = v.toFixed(digits);
  return Number(t) === 0 ? (0).toFixed(digits) : (v > 0 ? "+" : "") + t;
}
function parseCards(text) {
  if (!text) return [];
  return text.split(",").map((t) => t.trim().toUpperCase()).filter((t) => t)
    .map((t) => NAMES[t] || parseInt(t, 10));
}
function sequenceOf(order, n) {
  if (!order || order === "random") return null;
  if (order === "ascending") return Array.from({ length: n }, (_, i) => i + 1);
  if (order === "descending") return Array.from({ length: n }, (_, i) => n - i);
  const seq = parseCards(order);
  return seq.length === n ? seq : null;
}

// ---- the position <-> the address ----------------------------------------------
function readPosition(search) {
  const p = new URLSearchParams(search);
  const n = Math.max(1, Math.min(13, parseInt(p.get("cards") || "13", 10) || 13));
  const prizes = new Set(parseCards(p.get("prizes")));
  // the state knows the pot, not how it splits into the revealed prize and what ties
  // carried (several histories may lead to one pot): the page shows and edits one number
  return { params: p, n, handA: new Set(parseCards(p.get("hand_a"))), handB: new Set(parseCards(p.get("hand_b"))),
           prizes, row: new Set(parseCards(p.get("row"))), pot: parseInt(p.get("pot") || "0", 10) || 0,
           diff: parseInt(p.get("diff") || "0", 10) || 0 };
}

function positionSearch(ps) {
  const p = new URLSearchParams();
  for (const k of RULE_KEYS) { const v = ps.params.get(k); if (v !== null && v !== "") p.set(k, v); }
  const sorted = (s) => Array.from(s).sort((x, y) => x - y).join(",");
  p.set("hand_a", sorted(ps.handA));
  p.set("hand_b", sorted(ps.handB));
  if (openPrizes(ps.params) > 1 || ps.row.size) p.set("row", sorted(ps.row));
  p.set("pot", String(ps.pot));
  const seq = sequenceOf(ps.params.get("order"), ps.n);
  p.set("prizes", seq ? seq.filter((c) => ps.prizes.has(c)).join(",") : sorted(ps.prizes));
  p.set("diff", String(ps.diff));
  return "?" + p.toString().replace(/%2C/g, ",");
}

// a fixed order decides the hidden prizes from the hand size; when an edit moves to
// another round, the pot becomes that round's prize with nothing carried (a pot play reaches)
let fixedRound = null;   // hand size of the last position shown with hands of one size
function fitFixedOrder(ps, edited) {
  if (openPrizes(ps.params) > 1 || ps.params.get("bid_cards") === "2") return;  // the rounds differ: the pile is edited
  const seq = sequenceOf(ps.params.get("order"), ps.n);
  if (!seq || ps.handA.size !== ps.handB.size || ps.handA.size === 0) return;
  const k = ps.handA.size;
  ps.prizes = new Set(seq.slice(ps.n - k + 1));
  if (edited && fixedRound !== null && fixedRound !== k) ps.pot = seq[ps.n - k];
  fixedRound = k;
}

function edit(change) {
  change(pos);
  fitFixedOrder(pos, true);
  const search = positionSearch(pos);
  if (crumbs.length) crumbs[crumbs.length - 1].search = search;
  history.replaceState({ crumbs }, "", search);
  load(search);
}

// ---- drawing the controls ---------------------------------------------------------
function cardButtons(el, n, isOn, onClick, isEnabled) {
  el.replaceChildren();
  for (let c = 1; c <= n; c++) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "card" + (isOn(c) ? " on" : "");
    b.textContent = face(c);
    b.dataset.card = String(c);
    b.disabled = isEnabled ? !isEnabled(c) : false;
    b.addEventListener("click", () => onClick(c));
    el.appendChild(b);
  }
}

function toggle(set, c) { if (set.has(c)) set.delete(c); else set.add(c); }

function drawControls() {
  const ps = pos, n = ps.n;
  const fixed = sequenceOf(ps.params.get("order"), n) !== null;
  cardButtons($("hand-a"), n, (c) => ps.handA.has(c), (c) => edit((p) => toggle(p.handA, c)));
  cardButtons($("hand-b"), n, (c) => ps.handB.has(c), (c) => edit((p) => toggle(p.handB, c)));
  cardButtons($("prizes"), n, (c) => ps.prizes.has(c), (c) => edit((p) => toggle(p.prizes, c)),
    () => !fixed || openPrizes(ps.params) > 1 || ps.params.get("bid_cards") === "2");
  const open = openPrizes(ps.params) > 1, variant = open || ps.params.get("bid_cards") === "2";
  $("prizes-note").textContent = fixed && !variant ? "fixed by the prize order" : (open ? "the pile, face down" : "");
  // the face-up row exists only with open prizes (the classic page has none)
  let line = $("row-line");
  if (open && !line) {
    line = document.createElement("div");
    line.className = "row";
    line.id = "row-line";
    line.innerHTML = '<span class="label">face-up row</span><div id="row" class="cards"></div>' +
      "<small>the prizes the winner chooses from</small>";
    $("prizes").parentElement.before(line);
  } else if (!open && line) line.remove();
  if (open) cardButtons($("row"), n, (c) => ps.row.has(c), (c) => edit((p) => toggle(p.row, c)));
  $("pot-note").textContent = open ? "carried by ties (0 if none); the row holds this round's prizes"
    : "points at stake this round";
  $("pot").value = ps.pot;
  $("diff").value = ps.diff;
  // rules
  const p = ps.params, get = (k, d) => p.get(k) || d;
  $("r-cards").value = String(n);
  $("r-tie").value = get("tie", "carry");
  $("r-objective").value = get("objective", "points");
  const order = get("order", "random");
  const named = ["random", "ascending", "descending"].includes(order);
  $("r-order").value = named ? order : "custom";
  $("r-order-custom").hidden = named;
  if (!named) $("r-order-custom").value = order;
  $("r-match").value = get("match", "single");
  $("r-draw").value = get("draw", "replay");
  $("r-bid-cards").value = get("bid_cards", "1");
  $("r-open-prizes").value = get("open_prizes", "1");
  $("r-tiebreak").value = get("tiebreak", "share");
  $("r-game").value = get("game", "");
  $("r-match-score").value = get("match_score", "");
  for (const el of document.querySelectorAll(".match-only")) el.hidden = get("match", "single") === "single";
  for (const el of document.querySelectorAll(".half-only")) el.hidden = !(get("match", "single").startsWith("best-of")
    && get("draw", "replay") === "half");
}

function ruleChanged() {
  // new rules: start from the server's default position for them
  const p = new URLSearchParams();
  p.set("cards", $("r-cards").value);
  p.set("tie", $("r-tie").value);
  const match = $("r-match").value;
  p.set("objective", match.startsWith("best-of") ? "win" : $("r-objective").value);
  const order = $("r-order").value;
  p.set("order", order === "custom" ? ($("r-order-custom").value || "random") : order);
  if (match !== "single") {
    p.set("match", match);
    if (match.startsWith("best-of")) p.set("draw", $("r-draw").value);
    if (match.startsWith("best-of") && $("r-draw").value === "half" && $("r-tiebreak").value !== "share")
      p.set("tiebreak", $("r-tiebreak").value);
  }
  if ($("r-bid-cards").value !== "1") p.set("bid_cards", $("r-bid-cards").value);
  if ($("r-open-prizes").value !== "1") p.set("open_prizes", $("r-open-prizes").value);
  window.location.assign("/?" + p.toString().replace(/%2C/g, ","));
}

function matchPositionChanged() {
  const g = $("r-game").value, s = $("r-match-score").value.trim();
  edit((ps) => {
    if (g) ps.params.set("game", g); else ps.params.delete("game");
    if (s) ps.params.set("match_score", s); else ps.params.delete("match_score");
  });
}

// ---- talking to the server --------------------------------------------------------
async function getJSON(url) {
  const r = await fetch(url, { cache: "no-store" });
  let body;
  try { body = await r.json(); } catch (e) { body = { error: `the server answered ${r.status} without JSON` }; }
  if (!r.ok) throw new Error(body.error || `HTTP ${r.status}`);
  return body;
}

// while a request runs for more than a moment, show what the server is solving
function busyWhile(promise, what) {
  let done = false, poll = null;
  const show = setTimeout(() => {
    if (done) return;
    document.body.dataset.state = "busy";
    $("busy").hidden = false;
    $("busy-text").textContent = what;
    const ask = async () => {
      try {
        const { jobs } = await getJSON("/api/progress");
        if (!done && jobs.length) {
          const j = jobs[0];
          $("busy-text").textContent = `${j.what}: level ${j.level} of ${j.levels}, ` +
            `${j.games.toLocaleString("en")} stage games, ${j.seconds.toFixed(1)} s`;
        }
      } catch (e) { /* the next poll tries again */ }
    };
    ask();
    poll = setInterval(ask, 250);
  }, 120);
  const stop = () => { done = true; clearTimeout(show); if (poll) clearInterval(poll); $("busy").hidden = true; };
  return promise.finally(stop);
}

async function load(search) {
  const mine = ++requestNo;
  const t0 = performance.now();
  pos = readPosition(search);
  fitFixedOrder(pos, false);
  drawControls();
  $("api-link").href = "/api/query" + search;
  $("error").hidden = true;  // a message belongs to the position it was given for
  try {
    const reply = await busyWhile(getJSON("/api/position" + search), "solving the sub-game below this position…");
    if (mine !== requestNo) return;  // a newer position was asked for meanwhile
    timing.lastFetchMs = performance.now() - t0;
    timing.lastServerMs = reply.seconds * 1000;
    answer = reply;
    // the pot as the state the server validated knows it
    pos.pot = reply.query.state.pot;
    $("pot").value = pos.pot;
    chosen = { a: null, b: null, next: reply.next_prizes.length === 1 ? reply.next_prizes[0] : null };
    $("error").hidden = true;
    renderAnswer(reply);
    document.body.dataset.state = "ready";
  } catch (err) {
    if (mine !== requestNo) return;
    answer = null;
    $("error").textContent = err.message;
    $("error").hidden = false;
    $("value").textContent = "–";
    $("value").dataset.value = "";
    for (const id of ["bars-a", "bars-b", "heatmap", "next"]) $(id).replaceChildren();
    drawStep();
    document.body.dataset.state = "error";
  }
  timing.lastRenderMs = performance.now() - t0;
  timing.renders += 1;
  document.body.dataset.renders = String(timing.renders);
  $("timing").textContent = `rendered in ${timing.lastRenderMs.toFixed(0)} ms` +
    (answer ? ` (server ${(answer.seconds * 1000).toFixed(1)} ms)` : "");
}

// ---- drawing the answer -----------------------------------------------------------
function renderAnswer(r) {
  const q = r.query;
  $("value").textContent = signed(q.value, 6);
  $("value").dataset.value = String(q.value);
  $("value-unit").textContent = r.rules.match === "single"
    ? (r.rules.objective === "points" ? "expected final margin A − B" : "P(A wins) − P(B wins)")
    : (r.rules.match === "session" && r.rules.objective === "points" ? "expected session margin A − B"
       : "P(A wins the match) − P(B wins it)");
  drawBars($("bars-a"), q.strategy_a, "a");
  drawBars($("bars-b"), q.strategy_b, "b");
  drawResponse(r.response);
  drawHeatmap($("heatmap"), r.stage);
  $("step").hidden = !!r.variant;
  // a top-levels file: a position below its rounds was solved here as its own sub-game
  $("source-note").hidden = !q.note;
  $("source-note").textContent = q.note || "";
  $("variant-note").hidden = !r.variant;
  if (r.variant) {
    const what = [];
    if (r.rules.bid_cards === 2) what.push("each bid is a pair of cards, its strength their sum (a bar per pair)");
    if ((r.rules.open_prizes || 1) > 1) what.push(`the winner takes the pot and a prize of the row ` +
      `${(q.state.row || []).map(face).join(",")}`);
    if (r.rules.tiebreak && r.rules.tiebreak !== "share") what.push(`a level match is settled by ${r.rules.tiebreak}`);
    $("variant-note").textContent = `${what.join("; ")}. Edit the position to move through the game.`;
  }
  drawStep();
}

function el(name, attrs, text) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// a chart's legend, drawn under it: items [{key, cls, colour, text, line}] as swatch + text
// (line: the item takes a line of its own)
function legend(box, chart, items) {
  const ul = document.createElement("ul");
  ul.className = "legend";
  ul.dataset.chart = chart;
  for (const it of items) {
    const li = document.createElement("li");
    li.dataset.key = it.key;
    if (it.line) li.className = "line";
    const sw = document.createElement("span");
    sw.className = "swatch" + (it.cls ? " " + it.cls : "");
    if (it.colour) sw.style.background = it.colour;
    li.append(sw, document.createTextNode(it.text));
    ul.appendChild(li);
  }
  box.appendChild(ul);
}

function drawBars(box, strategy, side) {
  // classic bids are cards (numbers); a variant's are labels such as "3+5"
  const cards = Object.keys(strategy).map((k) => (answer && answer.variant ? k : Number(k)));
  const wide = cards.some((c) => String(c).includes("+"));
  const bw = wide ? 38 : 30, gap = 6, h = 120, top = 16, bottom = 18;
  const w = Math.max(cards.length * (bw + gap), 60);
  const svg = el("svg", { width: w, height: h + top + bottom, role: "img",
                          "aria-label": `${side.toUpperCase()}'s optimal bid distribution` });
  cards.forEach((c, i) => {
    const p = strategy[c], x = i * (bw + gap), bh = Math.max(p * h, p > 0 ? 1 : 0);
    const g = el("g", { "data-card": c, class: "bar" });
    g.appendChild(el("rect", { x, y: top + h - bh, width: bw, height: bh, class: `bar-${side}` +
      (chosen[side] === c ? " selected" : "") }));
    g.appendChild(el("text", { x: x + bw / 2, y: top + h - bh - 3, "text-anchor": "middle" },
      p > 0.0005 ? p.toFixed(3) : (p > 0 ? "<.001" : "0")));
    g.appendChild(el("text", { x: x + bw / 2, y: top + h + 13, "text-anchor": "middle", class: "bold" }, bidLabel(c)));
    g.appendChild(el("rect", { x, y: 0, width: bw, height: h + top + bottom, class: "hit" }));
    const title = el("title", {}, `${side.toUpperCase()} bids ${bidLabel(c)} with probability ${p}`);
    g.appendChild(title);
    g.addEventListener("click", () => { chosen[side] = c; renderChoice(); });
    svg.appendChild(g);
  });
  box.replaceChildren(svg);
  const who = side.toUpperCase();
  legend(box, `bars-${side}`, [
    { key: side, cls: `swatch-${side}`, text: `${who}: a bar's height is the probability that ${who}'s optimal ` +
      `strategy bids the ${answer && answer.variant ? "bid" : "card"} under it (the number above it)` },
    { key: "selected", cls: "swatch-selected", text: `outlined bar: ${who}'s bid chosen for the step` }]);
}

// a response to a model of B (gops explore --response/--model): its bids for A, beside the equilibrium's
function drawResponse(resp) {
  $("response-fig").hidden = !resp;
  if (!resp) return;
  const p = resp.p === null || resp.p === undefined ? "" : ` (P = ${resp.p})`;
  $("response-title").textContent = `A's response to ${resp.model || "the model"}${p}: ${resp.name}`;
  $("response-note").hidden = !resp.note;
  $("response-note").textContent = resp.note || "";
  const box = $("bars-r");
  if (!resp.bids) { box.replaceChildren(); return; }
  const cards = Object.keys(resp.bids).map(Number);
  const bw = 30, gap = 6, h = 120, top = 16, bottom = 18;
  const svg = el("svg", { width: Math.max(cards.length * (bw + gap), 60), height: h + top + bottom, role: "img",
                          "aria-label": "A's response bid distribution" });
  cards.forEach((c, i) => {
    const pr = resp.bids[c], x = i * (bw + gap), bh = Math.max(pr * h, pr > 0 ? 1 : 0);
    const g = el("g", { "data-card": c, class: "bar" });
    g.appendChild(el("rect", { x, y: top + h - bh, width: bw, height: bh, class: "bar-r" }));
    g.appendChild(el("text", { x: x + bw / 2, y: top + h - bh - 3, "text-anchor": "middle" },
      pr > 0.0005 ? pr.toFixed(3) : (pr > 0 ? "<.001" : "0")));
    g.appendChild(el("text", { x: x + bw / 2, y: top + h + 13, "text-anchor": "middle", class: "bold" }, bidLabel(c)));
    g.appendChild(el("title", {}, `the response bids ${bidLabel(c)} with probability ${pr}`));
    svg.appendChild(g);
  });
  box.replaceChildren(svg);
  legend(box, "bars-r", [{ key: "r", cls: "swatch-r", text: "a bar's height is the probability that the " +
    "response to the model bids the card under it, at this position" }]);
}

function cellColour(v, scale) {
  // A's gain blue, B's gain red, 0 white
  const t = scale > 0 ? Math.max(-1, Math.min(1, v / scale)) : 0;
  const mix = (a, b) => Math.round(255 + (a - 255) * Math.abs(t));
  return t >= 0 ? `rgb(${mix(31)},${mix(95)},${mix(168)})` : `rgb(${mix(181)},${mix(70)},${mix(44)})`;
}

function drawHeatmap(box, stage) {
  const { cards_a: rows, cards_b: cols, matrix } = stage;
  const sa = new Set(stage.support_a), sb = new Set(stage.support_b);
  const wide = rows.concat(cols).some((c) => String(c).includes("+"));
  const cell = wide ? 44 : 40, left = wide ? 62 : 44, top = 30;
  const scale = Math.max(1e-12, ...matrix.flat().map(Math.abs));
  const svg = el("svg", { width: left + cols.length * cell + 4, height: top + rows.length * cell + 4, role: "img",
                          "aria-label": "stage payoff matrix" });
  svg.appendChild(el("text", { x: left + cols.length * cell / 2, y: 10, "text-anchor": "middle", fill: "#b5462c" },
    "B bids →"));
  svg.appendChild(el("text", { x: 10, y: top + rows.length * cell / 2, "text-anchor": "middle", fill: "#1f5fa8",
    transform: `rotate(-90 10 ${top + rows.length * cell / 2})` }, "A bids →"));
  cols.forEach((c, j) => svg.appendChild(el("text", { x: left + j * cell + cell / 2, y: top - 6, "text-anchor": "middle",
    class: sb.has(c) ? "bold" : "" }, bidLabel(c))));
  rows.forEach((r, i) => svg.appendChild(el("text", { x: left - 6, y: top + i * cell + cell / 2 + 4,
    "text-anchor": "end", class: sa.has(r) ? "bold" : "" }, bidLabel(r))));
  const outlines = [];
  rows.forEach((r, i) => cols.forEach((c, j) => {
    const v = matrix[i][j], x = left + j * cell, y = top + i * cell;
    const g = el("g", { class: "cell", "data-a": r, "data-b": c });
    g.appendChild(el("rect", { x, y, width: cell, height: cell, fill: cellColour(v, scale), stroke: "#fff" }));
    const dark = Math.abs(v) / scale > 0.55;
    g.appendChild(el("text", { x: x + cell / 2, y: y + cell / 2 + 4, "text-anchor": "middle",
      fill: dark ? "#fff" : "#222" }, Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(Math.abs(v) >= 10 ? 1 : 2)));
    const took = (stage.choices || {})[`${r}|${c}`];
    g.appendChild(el("title", {}, `A ${bidLabel(r)}, B ${bidLabel(c)}: ${v}` +
      (took !== undefined ? ` (the winner takes prize ${face(took)} from the row)` : "")));
    g.addEventListener("click", () => { chosen.a = r; chosen.b = c; renderChoice(); });
    svg.appendChild(g);
    if (sa.has(r) && sb.has(c)) outlines.push(el("rect", { x: x + 1.5, y: y + 1.5, width: cell - 3, height: cell - 3,
      fill: "none", class: "support", "pointer-events": "none" }));
    if (chosen.a === r && chosen.b === c) outlines.push(el("rect", { x: x + 3, y: y + 3, width: cell - 6,
      height: cell - 6, fill: "none", class: "chosen", "pointer-events": "none" }));
  }));
  outlines.forEach((o) => svg.appendChild(o));
  box.replaceChildren(svg);
  const top3 = (v) => signed(v, Math.abs(v) >= 100 ? 0 : (Math.abs(v) >= 10 ? 1 : 2));
  legend(box, "heatmap", [
    { key: "a", colour: cellColour(scale, scale), text: `${top3(scale)}: good for A (blue: A's colour)` },
    { key: "zero", colour: cellColour(0, scale), text: "0: even" },
    { key: "b", colour: cellColour(-scale, scale), text: `${top3(-scale)}: good for B (red: B's colour)` },
    { key: "rows", cls: "swatch-a", text: "rows: A's bid" },
    { key: "cols", cls: "swatch-b", text: "columns: B's bid" },
    { key: "support", cls: "swatch-support", text: "black outline: both bids in the optimal supports" },
    { key: "chosen", cls: "swatch-chosen", text: "gold outline: the chosen pair of bids" }]);
}

function renderChoice() {
  if (!answer) return;
  drawBars($("bars-a"), answer.query.strategy_a, "a");
  drawBars($("bars-b"), answer.query.strategy_b, "b");
  drawHeatmap($("heatmap"), answer.stage);
  drawStep();
}

// ---- stepping and the breadcrumb -----------------------------------------------------
function drawStep() {
  $("sel-a").textContent = chosen.a ? face(chosen.a) : "–";
  $("sel-b").textContent = chosen.b ? face(chosen.b) : "–";
  const nexts = answer ? answer.next_prizes : [];
  cardButtons($("next"), pos.n, (c) => chosen.next === c, (c) => { chosen.next = c; drawStep(); },
    (c) => nexts.includes(c));
  const last = answer && answer.last_round;
  const ready = answer && chosen.a && chosen.b && (last || chosen.next);
  $("step-btn").disabled = !ready;
  $("step-btn").textContent = last ? "play the last round" : "step";
  let text = "";
  if (answer && chosen.a && chosen.b) {
    const potNow = answer.query.state.pot;
    if (chosen.a > chosen.b) text = `A takes ${potNow}`;
    else if (chosen.b > chosen.a) text = `B takes ${potNow}`;
    else text = (answer.rules.tie === "carry" && !last) ? `tie: the pot of ${potNow} carries` : `tie: the pot of ${potNow} is discarded`;
    if (!last && !chosen.next) text += "; choose the next prize";
  } else if (answer) text = "choose both bids (bars or a matrix cell)";
  $("step-preview").textContent = text;
  drawCrumbs();
}

async function doStep() {
  const search = location.search;
  const extra = new URLSearchParams({ bid_a: chosen.a, bid_b: chosen.b });
  if (chosen.next) extra.set("next", chosen.next);
  try {
    const r = await getJSON("/api/step" + search + "&" + extra.toString());
    if (!r.position) {
      $("step-preview").textContent = `game over: final score difference A − B = ${r.final_diff >= 0 ? "+" : ""}${r.final_diff}`;
      return;
    }
    const label = `A ${face(chosen.a)} · B ${face(chosen.b)}` + (chosen.next ? ` · prize ${face(chosen.next)}` : "");
    const next = "?" + r.params.replace(/%2C/g, ",");
    crumbs.push({ label, search: next });
    history.pushState({ crumbs }, "", next);
    load(next);
  } catch (err) {
    $("error").textContent = err.message;
    $("error").hidden = false;
  }
}

function drawCrumbs() {
  const nav = $("breadcrumb");
  nav.replaceChildren();
  crumbs.forEach((c, i) => {
    if (i) { const s = document.createElement("span"); s.className = "sep"; s.textContent = "›"; nav.appendChild(s); }
    const current = i === crumbs.length - 1;
    const a = document.createElement(current ? "span" : "a");
    a.textContent = c.label;
    a.className = current ? "current" : "crumb";
    a.dataset.index = String(i);
    if (!current) a.addEventListener("click", () => goBack(i));
    nav.appendChild(a);
  });
}

function goBack(i) {
  crumbs = crumbs.slice(0, i + 1);
  history.pushState({ crumbs }, "", crumbs[i].search);
  load(crumbs[i].search);
}

// ---- the first round ------------------------------------------------------------------
async function showFirstRound() {
  const p = new URLSearchParams();
  for (const k of RULE_KEYS) { const v = pos.params.get(k); if (v) p.set(k, v); }
  const box = $("first-map");
  box.textContent = "…";
  try {
    const r = await busyWhile(getJSON("/api/first?" + p.toString()), "solving the whole game once…");
    drawFirstRound(box, r);
  } catch (err) {
    box.textContent = err.message;
  }
}

function firstShade(p) { return `rgb(${Math.round(255 - 200 * p)},${Math.round(255 - 150 * p)},255)`; }

function drawFirstRound(box, r) {
  const cell = 40, left = 92, top = 30, vw = 70;
  const svg = el("svg", { width: left + r.cards.length * cell + vw + 8, height: top + r.rows.length * cell + 4,
                          role: "img", "aria-label": "opening bid distribution by first prize" });
  svg.appendChild(el("text", { x: 4, y: top - 6 }, "first prize ↓"));
  svg.appendChild(el("text", { x: left + r.cards.length * cell / 2, y: 10, "text-anchor": "middle" },
    "A's opening bid →  (B's is the same: the start is symmetric)"));
  r.cards.forEach((c, j) => svg.appendChild(el("text", { x: left + j * cell + cell / 2, y: top - 6,
    "text-anchor": "middle", class: "bold" }, bidLabel(c))));
  svg.appendChild(el("text", { x: left + r.cards.length * cell + vw / 2, y: top - 6, "text-anchor": "middle" }, "value"));
  r.rows.forEach((row, i) => {
    const y = top + i * cell;
    svg.appendChild(el("text", { x: left - 8, y: y + cell / 2 + 4, "text-anchor": "end", class: "bold" },
      typeof row.prize === "string" ? row.prize : face(row.prize)));
    row.strategy.forEach((p, j) => {
      const x = left + j * cell;
      const g = el("g", { class: "first-cell", "data-prize": row.prize, "data-card": r.cards[j] });
      g.appendChild(el("rect", { x, y, width: cell, height: cell, fill: firstShade(p), stroke: "#fff" }));
      if (p > 0.0005) g.appendChild(el("text", { x: x + cell / 2, y: y + cell / 2 + 4, "text-anchor": "middle",
        fill: p > 0.6 ? "#fff" : "#222" }, p.toFixed(2)));
      g.appendChild(el("title", {}, `prize ${face(row.prize)}: A bids ${face(r.cards[j])} with probability ${p}`));
      svg.appendChild(g);
    });
    svg.appendChild(el("text", { x: left + r.cards.length * cell + vw / 2, y: y + cell / 2 + 4,
      "text-anchor": "middle" }, signed(row.value, 4)));
  });
  box.replaceChildren(svg);
  legend(box, "first-map", [
    { key: "shade", cls: "swatch-none", text: "shade: the probability that A opens with the column's card " +
      "when the row's prize is revealed first:", line: true },
    { key: "p0", colour: firstShade(0), text: "0" },
    { key: "p50", colour: firstShade(0.5), text: "0.5" },
    { key: "p1", colour: firstShade(1), text: "1" },
    { key: "value", cls: "swatch-none", text: "value: the game's value for A after that first prize", line: true }]);
  const note = document.createElement("p");
  note.textContent = `value of the game: ${signed(r.value, 6)}`;
  note.id = "first-value";
  box.appendChild(note);
}

// ---- wiring -----------------------------------------------------------------------------
function init() {
  timing.loaded = performance.now();
  for (let n = 1; n <= 13; n++) {
    const o = document.createElement("option"); o.textContent = String(n); $("r-cards").appendChild(o);
  }
  for (const id of ["r-cards", "r-tie", "r-objective", "r-match", "r-draw", "r-bid-cards", "r-open-prizes", "r-tiebreak"]) $(id).addEventListener("change", ruleChanged);
  $("r-order").addEventListener("change", () => {
    if ($("r-order").value === "custom") { $("r-order-custom").hidden = false; $("r-order-custom").focus(); }
    else ruleChanged();
  });
  $("r-order-custom").addEventListener("change", ruleChanged);
  $("r-game").addEventListener("change", matchPositionChanged);
  $("r-match-score").addEventListener("change", matchPositionChanged);
  $("pot").addEventListener("change", () => edit((p) => { p.pot = parseInt($("pot").value, 10) || 0; }));
  $("pot-minus").addEventListener("click", () => edit((p) => { p.pot -= 1; }));
  $("pot-plus").addEventListener("click", () => edit((p) => { p.pot += 1; }));
  $("diff").addEventListener("change", () => edit((p) => { p.diff = parseInt($("diff").value, 10) || 0; }));
  $("diff-minus").addEventListener("click", () => edit((p) => { p.diff -= 1; }));
  $("diff-plus").addEventListener("click", () => edit((p) => { p.diff += 1; }));
  $("step-btn").addEventListener("click", doStep);
  $("first-btn").addEventListener("click", showFirstRound);
  window.addEventListener("popstate", (e) => {
    crumbs = (e.state && e.state.crumbs) ? e.state.crumbs.slice() : [{ label: "start", search: location.search }];
    const i = crumbs.findIndex((c) => c.search === location.search);
    crumbs = i >= 0 ? crumbs.slice(0, i + 1) : [{ label: "start", search: location.search }];
    load(location.search);
  });
  crumbs = [{ label: "start", search: location.search }];
  history.replaceState({ crumbs }, "", location.search);
  // the position first; what the server serves is only a caption
  load(location.search).then(() => getJSON("/api/info")).then((info) => {
    if (info.solution) {
      $("solution-name").textContent = `stored solution: ${info.solution}` + (info.rounds_held
        ? ` (rounds 1..${info.rounds_held}; a deeper position's sub-game is solved here)` : "");
      for (const id of ["r-cards", "r-tie", "r-objective", "r-order", "r-match", "r-draw", "r-bid-cards", "r-open-prizes",
        "r-tiebreak"]) $(id).disabled = true;
    } else $("solution-name").textContent = "no stored solution: each position's sub-game is solved here";
  }).catch(() => {});
}

document.addEventListener("DOMContentLoaded", init);
