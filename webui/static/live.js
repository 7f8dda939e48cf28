/* keltis-cam live page: renders the game state and keeps it current with Server-Sent Events.
 *
 * The server embeds a snapshot in the page, then /api/stream sends `change` messages whose
 * `patch` turns the previous state into the next ({set: {...}, append: {...}}, see
 * webui/broadcast.py). On a dropped connection the browser reconnects with Last-Event-ID and
 * gets exactly what it missed; if the stream is refused or closed, the page polls /api/state
 * and tries the stream again later. Everything is built with textContent: names typed at the
 * table never become markup.
 */
(function () {
  "use strict";

  var T = JSON.parse(document.getElementById("i18n-data").textContent);
  var state = JSON.parse(document.getElementById("initial-state").textContent) || {};
  var lastId = typeof state.event_id === "number" ? state.event_id : null;
  var LANG = document.documentElement.lang || "en";
  var seenWarnings = {};
  (state.warnings || []).forEach(function (w) { seenWarnings[w.id] = true; });
  var bannerShows = [];  // the warnings the banner stands for (closing it marks them read on this phone)
  var wasOver = !!state.game_over;
  var es = null, pollTimer = null, retryTimer = null, retryDelay = 3000;
  var health = null;  // the camera and pipeline right now (status messages; no event id)
  var SEATS = ["south", "west", "north", "east"];
  var PAWN = {black: "#1b1b1b", white: "#ffffff", grey: "#8a8f98", brown: "#8b5a2b"};
  var LINE = {black: "#1b1b1b", white: "#8c6bb1", grey: "#6b7280", brown: "#8b5a2b"};
  var DASH = {black: "", white: "7 4", grey: "2 3", brown: "10 3 2 3"};
  var SVGNS = "http://www.w3.org/2000/svg";

  function t(key, vars) {
    var s = Object.prototype.hasOwnProperty.call(T, key) ? T[key] : null;
    if (s === null) return null;
    return s.replace(/\{(\w+)\}/g, function (m, k) { return vars && k in vars ? String(vars[k]) : m; });
  }
  function tt(key, fallback, vars) { var s = t(key, vars); return s === null ? fallback : s; }

  function $(id) { return document.getElementById(id); }
  function h(tag, attrs, children) {
    var el = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) {
      if (k === "text") el.textContent = attrs[k];
      else if (k === "cls") el.className = attrs[k];
      else if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) el.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) el.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return el;
  }
  function s(tag, attrs) {
    var el = document.createElementNS(SVGNS, tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") el.textContent = attrs[k]; else el.setAttribute(k, attrs[k]);
    });
    return el;
  }
  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); return el; }

  function game() { return state.game || null; }
  function seatsInPlay() {
    var g = game();
    var seats = (g && g.seats) || {};
    return SEATS.filter(function (x) { return x in seats; });
  }
  function colourOf(seat) {
    var g = game();
    return (g && g.seats && g.seats[seat]) || (((state.scores || {}).scores || {})[seat] || {}).player || "black";
  }
  function nameOf(seat) {
    var g = game();
    var n = g && g.names && g.names[seat];
    return n || tt("seat." + seat, seat);
  }
  function swatch(seat) {
    return h("span", {cls: "swatch pawn-" + colourOf(seat), "aria-hidden": "true"});
  }

  /* ---------- applying changes ---------- */
  function applyPatch(st, patch) {
    var out = {};
    Object.keys(st).forEach(function (k) { out[k] = st[k]; });
    var set = (patch && patch.set) || {};
    Object.keys(set).forEach(function (k) { out[k] = set[k]; });
    var app = (patch && patch.append) || {};
    Object.keys(app).forEach(function (k) { out[k] = (out[k] || []).concat(app[k]); });
    return out;
  }

  function onSnapshot(e) {
    var before = state;
    state = JSON.parse(e.data) || {};
    lastId = Number(e.lastEventId);
    notify(before, state);
    if ($("banner").hidden) showCurrent();
    render();
  }
  function onChange(e) {
    var msg = JSON.parse(e.data);
    var before = state;
    state = applyPatch(state, msg.patch);
    lastId = msg.event_id;
    state.event_id = msg.event_id;
    notify(before, state);
    render();
  }

  /* ---------- notifications: warnings as they happen, the end of the game ---------- */
  function vibrate(pattern) {
    try { if (navigator.vibrate) navigator.vibrate(pattern); } catch (err) { /* not allowed yet */ }
  }
  function notify(before, after) {
    // warning ids count within a game: a new game starts a new count
    if ((before.game && before.game.started) !== (after.game && after.game.started)) seenWarnings = {};
    var fresh = (after.warnings || []).filter(function (w) { return !seenWarnings[w.id] && !w.withdrawn; });
    fresh.forEach(function (w) { seenWarnings[w.id] = true; });
    if (fresh.length) showBanner(fresh);
    if (after.game_over && !wasOver) vibrate([120, 80, 120, 80, 300]);
    wasOver = !!after.game_over;
  }
  function warningTitle(w) {
    return tt("violation." + w.code, tt("violation.unknown", "Rule problem"));
  }
  /* The sentence the server words for every phone ("Anna laid two cards this turn: red 4 and blue 7"). */
  function warningText(w) {
    var text = w.text || {};
    return text[LANG] || text.en || w.message || "";
  }
  /* Warnings this phone already closed the banner for (a reload or a late join does not repeat them). */
  function readKey() { return "keltis-read-" + ((game() && game().started) || ""); }
  function readWarnings() {
    try { return JSON.parse(sessionStorage.getItem(readKey()) || "{}") || {}; } catch (err) { return {}; }
  }
  function markRead(ws) {
    var read = readWarnings();
    ws.forEach(function (w) { read[w.id] = true; });
    try { sessionStorage.setItem(readKey(), JSON.stringify(read)); } catch (err) { /* private mode */ }
  }
  /* A phone that joins (or reconnects to a fresh snapshot) sees the warnings about the last move. */
  function showCurrent() {
    var ids = state.current_warnings || [];
    var read = readWarnings();
    var ws = (state.warnings || []).filter(function (w) { return ids.indexOf(w.id) >= 0 && !w.withdrawn && !read[w.id]; });
    if (ws.length) showBanner(ws, true);
  }
  function showBanner(fresh, quiet) {
    var w = fresh[fresh.length - 1];
    bannerShows = fresh.slice();
    $("banner-title").textContent = warningTitle(w);
    var more = fresh.length > 1 ? " " + tt("banner.more", "(+{n})", {n: fresh.length - 1}) : "";
    $("banner").dataset.code = w.code;
    $("banner-text").textContent = warningText(w) + more;
    var b = $("banner");
    b.hidden = false;
    b.classList.remove("flash-in"); void b.offsetWidth; b.classList.add("flash-in");
    if (!quiet) vibrate([200, 100, 200]);
    document.title = "⚠ " + document.title.replace(/^⚠ /, "");
  }
  $("banner-close").addEventListener("click", function () {
    $("banner").hidden = true;
    markRead(bannerShows);
    document.title = document.title.replace(/^⚠ /, "");
  });

  /* ---------- rendering ---------- */
  /* After an undo the table may still show the move: ask the players instead of taking it back in. */
  function renderDisputed() {
    var d = state.disputed;
    var box = $("disputed");
    if (!d || !d.move) { box.hidden = true; return; }
    var m = d.move;
    var who = m.seat ? nameOf(m.seat) + " " : "";
    $("disputed-text").textContent = tt(d.seen ? "disputed.seen" : "disputed.waiting", "Move {n} was undone.",
      {n: m.id, move: who + moveSentence(m)});
    var table = document.body.dataset.table === "1";
    $("disputed-keep").disabled = !table || !d.seen;
    $("disputed-back").disabled = !table;
    if (!table) $("disputed-message").textContent = tt("tap.need_pin", "Only the table can decide.");
    box.hidden = false;
  }
  function decide(keep) {
    $("disputed-message").textContent = tt("tap.sending", "…");
    fetch("/api/disputed", {method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRF-Token": document.body.dataset.csrf || ""},
      body: JSON.stringify({keep: keep})})
      .then(function (r) { return r.json().then(function (j) { return {ok: r.ok, body: j}; }); })
      .then(function (res) {
        $("disputed-message").textContent = res.ok ? "" : tt("tap.failed", "{reason}", {reason: res.body.error || "?"});
        if (res.ok) { state = applyPatch(state, {set: {disputed: res.body.disputed}}); renderDisputed(); }
      }).catch(function () { $("disputed-message").textContent = tt("conn.offline", "offline"); });
  }
  $("disputed-keep").addEventListener("click", function () { decide(true); });
  $("disputed-back").addEventListener("click", function () { decide(false); });

  /* The decoder could not tell who discarded a card: the players answer with one tap (issue 17) — one of the two
     seats it hesitates between (big buttons), or, behind "someone else", any other seat of the game; or "don't
     know", which dismisses the question for every phone (the camera's reading stays). */
  var othersOpen = {};      /* question id -> "someone else" unfolded (kept across re-renders) */
  var questionMsg = {};     /* question id -> the last refusal, e.g. no reading lets that seat have done it */
  function questionPost(q, url, body) {
    questionMsg[q.id] = tt("tap.sending", "…");
    renderQuestions();
    fetch(url, {method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRF-Token": document.body.dataset.csrf || ""},
      body: JSON.stringify(body)})
      .then(function (r) { return r.json().then(function (j) { return {ok: r.ok, body: j}; }); })
      .then(function (res) {
        questionMsg[q.id] = res.ok ? "" : tt("tap.failed", "{reason}", {reason: res.body.error || "?"});
        if (res.ok && res.body && res.body.questions) state = applyPatch(state, {set: {questions: res.body.questions}});
        renderQuestions();
      }).catch(function () { questionMsg[q.id] = tt("conn.offline", "offline"); renderQuestions(); });
  }
  function renderQuestions() {
    var qs = state.questions || [];
    var box = $("questions");
    box.textContent = "";
    if (!qs.length) { box.hidden = true; return; }
    var table = document.body.dataset.table === "1";
    qs.forEach(function (q) {
      var p = document.createElement("p");
      var took = q.kind === "draw";   /* "who took the green 0 from its discard pile?" (a draw), else a discard */
      p.textContent = tt(took ? "question.took" : "question.discarded", q.text, {pile: q.pile, card: q.card});
      box.appendChild(p);
      var msg = document.createElement("p");
      msg.className = "fine";
      msg.setAttribute("role", "status");
      function seatButton(a, cls) {
        var b = document.createElement("button");
        b.type = "button";
        b.className = cls;
        b.textContent = a.name || nameOf(a.seat);
        b.dataset.seat = a.seat;
        b.disabled = !table;
        b.addEventListener("click", function () {
          var body = {kind: took ? "took" : "discarded", pile: q.pile, card: String(q.card), seat: a.seat};
          if (q.id) body.question = q.id;
          questionPost(q, "/api/corrections", body);
        });
        return b;
      }
      var buttons = document.createElement("p");
      buttons.className = "buttons";
      (q.answers || []).forEach(function (a) { buttons.appendChild(seatButton(a, "button primary q-answer")); });
      box.appendChild(buttons);
      var more = document.createElement("p");
      more.className = "buttons";
      var others = document.createElement("p");
      others.className = "buttons q-others";
      others.hidden = !othersOpen[q.id];
      others.setAttribute("aria-label", tt("question.others", "Who else?"));
      if ((q.others || []).length) {
        var toggle = document.createElement("button");
        toggle.type = "button";
        toggle.className = "button q-someone-else";
        toggle.textContent = tt("question.someone_else", "Someone else…");
        toggle.setAttribute("aria-expanded", othersOpen[q.id] ? "true" : "false");
        toggle.disabled = !table;
        toggle.addEventListener("click", function () {
          othersOpen[q.id] = !othersOpen[q.id];
          others.hidden = !othersOpen[q.id];
          toggle.setAttribute("aria-expanded", othersOpen[q.id] ? "true" : "false");
        });
        more.appendChild(toggle);
        q.others.forEach(function (a) { others.appendChild(seatButton(a, "button q-other")); });
      }
      var dismiss = document.createElement("button");
      dismiss.type = "button";
      dismiss.className = "button q-dismiss";
      dismiss.textContent = tt("question.dont_know", "Don't know — dismiss");
      dismiss.disabled = !table;
      dismiss.addEventListener("click", function () {
        var body = {pile: q.pile, card: String(q.card), kind: took ? "draw" : "discard"};
        if (q.id) body.question = q.id;
        questionPost(q, "/api/questions/dismiss", body);
      });
      more.appendChild(dismiss);
      box.appendChild(more);
      box.appendChild(others);
      msg.textContent = table ? (questionMsg[q.id] || "") : tt("tap.need_pin", "Only the table can decide.");
      box.appendChild(msg);
    });
    box.hidden = false;
  }

  function render() {
    renderDisputed();
    renderQuestions();
    renderHeadline();
    renderScores();
    renderResult();
    renderChart();
    renderTable();
    renderWarnings();
    renderHistory();
    renderRules();
    renderSource();
    renderStatus();
  }

  function gameTitle() {
    var g = game();
    if (!g) return tt("game.none", "No game");
    var title = tt("game." + g.game, g.game);
    if (g.board) title += " · " + tt("board." + g.board, g.board);
    return title;
  }

  function renderHeadline() {
    $("game-title").textContent = gameTitle();
    var warn = $("banner").hidden ? "" : "⚠ ";
    document.title = warn + gameTitle() + " · " + tt("app.name", "Keltis live");
    var turn = $("turn");
    clear(turn);
    if (!game()) { turn.textContent = ""; return; }
    if (state.game_over) return;  // the result box says it
    if (state.turn) {
      turn.appendChild(swatch(state.turn));
      turn.appendChild(document.createTextNode(" " + tt("turn.of", "{name} to play", {name: nameOf(state.turn)})));
    }
  }

  function scoreOf(seat) { return ((state.scores || {}).scores || {})[seat] || null; }

  function leaders() {
    var best = null, out = [];
    seatsInPlay().forEach(function (seat) {
      var sc = scoreOf(seat); if (!sc) return;
      if (best === null || sc.total > best) { best = sc.total; out = [seat]; }
      else if (sc.total === best) out.push(seat);
    });
    return out;
  }

  function renderScores() {
    var list = clear($("scores"));
    var seats = seatsInPlay();
    $("no-game").hidden = !!game();
    var lead = leaders();
    seats.forEach(function (seat) {
      var sc = scoreOf(seat) || {total: 0, parts: []};
      var cats = {};
      var order = [];
      (sc.parts || []).forEach(function (p) {
        if (!(p.category in cats)) { cats[p.category] = 0; order.push(p.category); }
        cats[p.category] += p.points;
      });
      var summary = order.map(function (c) {
        return tt("category." + c, c) + " " + (cats[c] > 0 ? "+" : "") + cats[c];
      }).join(" · ");
      var parts = h("ul", {cls: "parts"}, (sc.parts || []).map(function (p) {
        return h("li", null, [h("span", {cls: "pts", text: (p.points > 0 ? "+" : "") + p.points}), " " + p.label]);
      }));
      var classes = "score pawn-border-" + colourOf(seat);
      if (state.turn === seat && !state.game_over) classes += " to-play";
      if (lead.indexOf(seat) >= 0 && lead.length < seats.length) classes += " leading";
      var named = !!(game() && game().names && game().names[seat]);
      var li = h("li", {cls: classes, "data-seat": seat}, [
        h("div", {cls: "who"}, [swatch(seat), h("span", {cls: "name", text: nameOf(seat)}),
          named ? h("span", {cls: "seat", text: tt("seat." + seat, seat)}) : null]),
        h("div", {cls: "total", "data-total": String(sc.total), text: String(sc.total)}),
        h("details", {cls: "breakdown"}, [h("summary", {text: summary || tt("score.nothing", "no points yet")}), parts])
      ]);
      list.appendChild(li);
    });
  }

  function ranking() {
    var seats = seatsInPlay().slice();
    seats.sort(function (a, b) { return (scoreOf(b) || {total: 0}).total - (scoreOf(a) || {total: 0}).total; });
    var place = 0, prev = null;
    return seats.map(function (seat, i) {
      var total = (scoreOf(seat) || {total: 0}).total;
      if (total !== prev) { place = i + 1; prev = total; }
      return {place: place, seat: seat, total: total};
    });
  }

  function renderResult() {
    var box = $("result");
    clear(box);
    if (!state.game_over) { box.hidden = true; return; }
    box.hidden = false;
    var winners = ((state.scores || {}).winners || []).map(nameOf);
    if (!winners.length) winners = ranking().filter(function (r) { return r.place === 1; }).map(function (r) { return nameOf(r.seat); });
    box.appendChild(h("h2", {text: tt("result.title", "Game over")}));
    box.appendChild(h("p", {cls: "winners", text: "🏆 " + tt(winners.length > 1 ? "result.winners_tie" : "result.winner",
      "Winner: {names}", {names: winners.join(", ")})}));
    if (state.end_reason) box.appendChild(h("p", {cls: "reason", text: tt("end." + state.end_reason, state.end_reason)}));
    box.appendChild(h("ol", {cls: "ranking"}, ranking().map(function (r) {
      return h("li", null, [h("span", {cls: "place", text: r.place + "."}), swatch(r.seat),
        h("span", {cls: "name", text: nameOf(r.seat)}), h("span", {cls: "total", text: String(r.total)})]);
    })));
    // what next: a replay (the demo) can be played again, a real table starts a new game
    var replay = document.body.dataset.replay === "1";
    box.appendChild(h("p", {cls: "again"}, [h("a", {cls: "button primary", id: "play-again",
      href: replay ? "/table/#again" : "/table/new",
      text: replay ? tt("again.offer", "Play the recorded game again") : tt("again.new_game", "Start a new game")})]));
  }

  function renderChart() {
    var box = clear($("chart"));
    var hist = state.score_history || [];
    var seats = seatsInPlay();
    if (!seats.length || hist.length < 1) {
      box.appendChild(h("p", {cls: "empty", text: tt("chart.empty", "The chart starts with the first move.")}));
      return;
    }
    // drawn at the box's real pixel size so the labels stay readable on a 320 px phone
    var W = Math.round(Math.max(280, Math.min(box.clientWidth || 340, 720)));
    var H = Math.round(Math.max(170, Math.min(W * 0.55, 300))), L = 30, R = 84, TOP = 10, B = 22;
    var vals = [0, 10];
    hist.forEach(function (p) { seats.forEach(function (x) { vals.push((p.totals || {})[x] || 0); }); });
    var lo = Math.min.apply(null, vals), hi = Math.max.apply(null, vals), span = (hi - lo) || 1;
    var n = Math.max(hist.length - 1, 1);
    function px(i) { return L + (W - L - R) * i / n; }
    function py(v) { return TOP + (H - TOP - B) * (hi - v) / span; }
    var svg = s("svg", {viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": tt("chart.title", "Scores over time")});
    var step = span > 10 ? Math.max(1, Math.round(span / 25) * 5) : 5;
    for (var v = Math.ceil(lo / step) * step; v <= hi; v += step) {
      svg.appendChild(s("line", {x1: L, x2: W - R, y1: py(v), y2: py(v), stroke: v === 0 ? "#444" : "#ddd", "stroke-width": v === 0 ? 1.5 : 1}));
      svg.appendChild(s("text", {x: L - 6, y: py(v) + 4, "font-size": 12, "text-anchor": "end", fill: "#444", text: String(v)}));
    }
    svg.appendChild(s("text", {x: L, y: H - 6, "font-size": 12, fill: "#444", text: tt("chart.moves", "{n} moves", {n: Math.max(hist.length - 1, 0)})}));
    var labels = [];
    seats.forEach(function (seat) {
      var c = colourOf(seat);
      var pts = hist.map(function (p, i) { return px(i).toFixed(1) + "," + py((p.totals || {})[seat] || 0).toFixed(1); });
      var attrs = {points: pts.join(" "), fill: "none", stroke: LINE[c] || "#000", "stroke-width": 2.5, "stroke-linejoin": "round", "class": "line-" + seat};
      if (DASH[c]) attrs["stroke-dasharray"] = DASH[c];
      svg.appendChild(s("polyline", attrs));
      var last = (hist[hist.length - 1].totals || {})[seat] || 0;
      labels.push({y: py(last), text: nameOf(seat) + " " + last, colour: LINE[c] || "#000"});
    });
    labels.sort(function (a, b) { return a.y - b.y; });  // keep end labels from overlapping
    for (var i = 1; i < labels.length; i++) if (labels[i].y - labels[i - 1].y < 14) labels[i].y = labels[i - 1].y + 14;
    labels.forEach(function (lb) {
      svg.appendChild(s("text", {x: W - R + 6, y: lb.y + 4, "font-size": 13, fill: "#111", text: lb.text}));
    });
    box.appendChild(svg);
  }

  function renderTable() {
    var g = game();
    var table = state.table || null;
    var boardFig = $("board-fig");
    if (g && g.board && table) {
      loadBoard("/view/table.svg?v=" + (state.event_id || 0));
      boardFig.hidden = false;
    } else {
      boardFig.hidden = true;
    }
    if (g && table && document.body.dataset.frames === "1") {
      var fsrc = "/view/frame.jpg?v=" + (state.event_id || 0);
      var img = $("frame-img");
      if (img.getAttribute("src") !== fsrc) img.setAttribute("src", fsrc);
    }
    var rows = clear($("rows"));
    if (!table || !table.seats) return;
    seatsInPlay().forEach(function (seat) {
      var st = table.seats[seat];
      if (!st) return;
      var lines = [];
      Object.keys(st.rows || {}).forEach(function (colour) {
        var cards = st.rows[colour] || [];
        if (!cards.length) return;
        lines.push(h("div", {cls: "row"}, [h("span", {cls: "row-name card-" + colour, text: tt("colour." + colour, colour)})]
          .concat(cards.map(function (code, i) {
            return h("button", {type: "button", cls: "cardchip card-" + colour, text: code, "data-seat": seat,
                                "data-colour": colour, "data-index": String(i)});
          }))));
      });
      var extras = [];
      var wish = st.wish || {};
      var nWish = Object.keys(wish).reduce(function (a, k) { return a + wish[k]; }, 0);
      if (nWish) extras.push(tt("view.wish", "wish stones: {n}", {n: nWish}));
      // each colour's wish stones, tappable to correct their count (the board's piles: none yet → 0)
      var wishColours = g && g.board === "base" ? ["any"] : WISH;
      var wishChips = h("p", {cls: "wishchips"}, wishColours.map(function (c) {
        return h("button", {type: "button", cls: "wishchip card-" + c, "data-seat": seat, "data-colour": c,
                            "data-count": String(wish[c] || 0), text: (c === "any" ? "◆" : colourName(c)) + " " + (wish[c] || 0)});
      }));
      if (st.points_row) extras.push(tt("view.points_row", "points row: {n}", {n: st.points_row}));
      if ((st.wish_cards || []).length) extras.push(tt("view.wish_cards", "wish cards: {list}", {list: st.wish_cards.join(", ")}));
      rows.appendChild(h("div", {cls: "seat-rows"}, [
        h("h3", null, [swatch(seat), " " + nameOf(seat)])
      ].concat(lines.length ? lines : [h("p", {cls: "empty", text: tt("view.no_rows", "no cards laid yet")})])
       .concat(extras.length ? [h("p", {cls: "extras", text: extras.join(" · ")})] : [])
       .concat(g && g.board ? [wishChips] : [])));
    });
  }

  /* The board drawing is put into the page (not an <img>) so its pawns, stones and tiles can be
   * tapped. It is the server's own SVG, parsed as XML: no script runs from it. */
  var boardSrc = null, boardWanted = null;
  function loadBoard(src) {
    if (src === boardSrc || src === boardWanted) return;
    boardWanted = src;
    fetch(src, {cache: "no-store"}).then(function (r) { return r.ok ? r.text() : null; }).then(function (text) {
      if (!text || boardWanted !== src) return;
      var doc = new DOMParser().parseFromString(text, "image/svg+xml");
      var svg = doc.documentElement;
      if (!svg || svg.nodeName !== "svg") return;
      var box = clear($("board"));
      box.appendChild(document.importNode(svg, true));
      boardSrc = src;
      boardInfo();  // the stones' neighbours, for tapping a pawn
      box.dispatchEvent(new CustomEvent("board-drawn"));
    }).catch(function () { boardWanted = null; });
  }

  /* ---------- corrections by tapping the drawing (PIN-protected: the table's login) ---------- */
  var TILES = ["clover", "points-1", "points-2", "points-3", "discard"];
  var WISH = ["red", "yellow", "pink", "green", "blue"];
  var fix = null;  // {kind, body(choice) -> correction, choice}
  function seatOfColour(colour) {
    var seats = (game() && game().seats) || {};
    for (var k in seats) if (seats[k] === colour) return k;
    return null;
  }
  function playerName(colour) {
    var seat = seatOfColour(colour);
    return seat ? nameOf(seat) : tt("colour." + colour, colour);
  }
  function tileWords(code) {
    if (!code) return tt("tap.no_tile", "no tile");
    if (code.indexOf("wish-") === 0 && code !== "wish-any") return tt("tile.wish", "wish stone") + " (" + colourName(code.slice(5)) + ")";
    return tt(code === "wish-any" ? "tile.wish" : "tile." + code, code);
  }
  function openSheet(title, help, choices, current, makeBody, extra) {
    fix = {choice: current, makeBody: makeBody, extra: extra || null};
    $("fix-title").textContent = title;
    $("fix-help").textContent = help;
    $("fix-message").textContent = "";
    var box = clear($("fix-choices"));
    choices.forEach(function (c) {
      var b = h("button", {type: "button", cls: "choice", "data-value": c.value === null ? "" : c.value,
                           "aria-pressed": String(c.value === current), text: c.label});
      b.addEventListener("click", function () {
        fix.choice = c.value;
        box.querySelectorAll(".choice").forEach(function (x) { x.setAttribute("aria-pressed", String(x === b)); });
        $("fix-confirm").disabled = !canSend();
      });
      box.appendChild(b);
    });
    if (extra) box.appendChild(extra);
    var table = document.body.dataset.table === "1";
    $("fix-login").hidden = table;
    if (!table) $("fix-message").textContent = tt("tap.need_pin", "Only the table can correct the reading.");
    $("fix-confirm").disabled = !canSend();
    $("fix-sheet").hidden = false;
  }
  function canSend() { return document.body.dataset.table === "1" && fix && fix.choice !== fix.initial; }
  function closeSheet() { $("fix-sheet").hidden = true; fix = null; }
  $("fix-cancel").addEventListener("click", closeSheet);
  $("fix-confirm").addEventListener("click", function () {
    if (!fix) return;
    var body = fix.makeBody(fix.choice);
    $("fix-confirm").disabled = true;
    $("fix-message").textContent = tt("tap.sending", "Correcting…");
    fetch("/api/corrections", {method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRF-Token": document.body.dataset.csrf || ""},
      body: JSON.stringify(body)})
      .then(function (r) { return r.json().then(function (j) { return {ok: r.ok, body: j}; }); })
      .then(function (res) {
        if (res.ok) { $("fix-message").textContent = tt("tap.done", "Corrected."); setTimeout(closeSheet, 900); }
        else { $("fix-message").textContent = tt("tap.failed", "Not corrected: {reason}", {reason: res.body.error || "?"}); $("fix-confirm").disabled = false; }
      }).catch(function () { $("fix-message").textContent = tt("conn.offline", "offline"); $("fix-confirm").disabled = false; });
  });
  function stoneLabel(id) { return id === "start" || isStart(id) ? tt("stone.start", "the start") : stoneWords(id); }
  function tapPawn(g) {
    var b = boardInfo();
    if (!b) return;
    var player = g.getAttribute("data-player"), from = g.getAttribute("data-stone"), big = g.getAttribute("data-big") === "1";
    var ids = [from];
    Object.keys(b.stones).forEach(function (id) { if ((b.stones[id].next || []).indexOf(from) >= 0 && ids.indexOf(id) < 0) ids.push(id); });
    ((b.stones[from] || {}).next || []).forEach(function (id) { if (ids.indexOf(id) < 0) ids.push(id); });
    var start = Object.keys(b.stones).filter(function (id) { return b.stones[id].kind === "start"; })[0];
    if (start && ids.indexOf(start) < 0) ids.push(start);
    var bigBox = h("label", {cls: "bigpawn"}, [h("input", {type: "checkbox", id: "fix-big"}), " " + tt("tap.big", "It is the big pawn")]);
    bigBox.querySelector("input").checked = big;
    bigBox.querySelector("input").addEventListener("change", function () { fix.initial = undefined; $("fix-confirm").disabled = !canSend(); });
    openSheet(tt("tap.pawn_title", "Where is this pawn?", {player: playerName(player), pawn: big ? tt("pawn.big", "the big pawn") : tt("pawn.small", "a pawn")}),
      tt("tap.pawn_help", "", {stone: stoneLabel(from)}),
      ids.map(function (id) { return {value: id, label: stoneLabel(id)}; }), from,
      function (to) { return {kind: "pawn", player: player, from: from, to: to, big: $("fix-big").checked}; }, bigBox);
    fix.initial = from;
    $("fix-confirm").disabled = !canSend();
  }
  function tapTile(stone, current) {
    var board = game() && game().board;
    var codes = [null].concat(TILES).concat(board === "base" ? ["wish-any"] : WISH.map(function (c) { return "wish-" + c; }));
    openSheet(tt("tap.tile_title", "Which tile?", {stone: stoneLabel(stone)}), tt("tap.tile_help", "", {tile: tileWords(current)}),
      codes.map(function (c) { return {value: c, label: tileWords(c)}; }), current,
      function (tile) { return {kind: "tile", stone: stone, tile: tile}; });
    fix.initial = current;
    $("fix-confirm").disabled = !canSend();
  }
  function tapCard(el) {
    var seat = el.getAttribute("data-seat"), colour = el.getAttribute("data-colour"), i = Number(el.getAttribute("data-index"));
    var row = ((((state.table || {}).seats || {})[seat] || {}).rows || {})[colour] || [];
    var values = [null, "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"];
    openSheet(tt("tap.card_title", "Which card?", {player: nameOf(seat), colour: colourName(colour), n: i + 1}),
      tt("tap.card_help", "", {card: row[i]}),
      values.map(function (v) { return {value: v, label: v === null ? tt("tap.no_card", "no card") : v}; }), row[i],
      function (v) {
        var cards = row.slice();
        if (v === null) cards.splice(i, 1); else cards[i] = v;
        return {kind: "row", seat: seat, colour: colour, cards: cards};
      });
    fix.initial = row[i];
    $("fix-confirm").disabled = !canSend();
  }
  function tapWish(el) {
    var seat = el.getAttribute("data-seat"), colour = el.getAttribute("data-colour"), n = Number(el.getAttribute("data-count"));
    var counts = [];
    for (var k = Math.max(0, n - 3); k <= n + 3; k++) counts.push(k);
    openSheet(tt("tap.wish_title", "How many wish stones?", {player: nameOf(seat), colour: colour === "any" ? "" : colourName(colour)}),
      tt("tap.wish_help", "", {n: n}), counts.map(function (k) { return {value: k, label: String(k)}; }), n,
      function (k) { return {kind: "wish", seat: seat, colour: colour, count: k}; });
    fix.initial = n;
    $("fix-confirm").disabled = !canSend();
  }
  $("rows").addEventListener("click", function (e) {
    var el = e.target;
    if (el.classList.contains("cardchip") && el.hasAttribute("data-index")) tapCard(el);
    else if (el.classList.contains("wishchip")) tapWish(el);
  });
  $("board").addEventListener("click", function (e) {
    var el = e.target;
    while (el && el !== this && !(el.classList && (el.classList.contains("pawn") || el.classList.contains("tile") || el.classList.contains("stone")))) el = el.parentNode;
    if (!el || el === this) return;
    if (el.classList.contains("pawn")) tapPawn(el);
    else if (el.classList.contains("tile")) tapTile(el.getAttribute("data-stone"), el.getAttribute("data-tile"));
    else if (el.getAttribute("data-stone") && !isStart(el.getAttribute("data-stone"))) tapTile(el.getAttribute("data-stone"), null);
  });

  function violationItems(vs) {
    return (vs || []).map(function (v) {
      return h("li", {cls: "violation"}, [h("strong", {text: warningTitle(v)}), " " + warningText(v)]);
    });
  }

  function renderWarnings() {
    var list = clear($("warnings"));
    var ws = (state.warnings || []).slice().reverse();
    if (!ws.length) { list.appendChild(h("li", {cls: "empty", text: tt("warnings.none", "No warnings so far.")})); return; }
    ws.forEach(function (w) {
      var children = [h("strong", {text: warningTitle(w)}), h("span", {cls: "wtext", text: " " + warningText(w)})];
      if (w.withdrawn) children.unshift(h("span", {cls: "tag", text: tt("warnings.withdrawn", "withdrawn")}));
      list.appendChild(h("li", {cls: w.withdrawn ? "warning withdrawn" : "warning", "data-code": w.code}, children));
    });
  }

  function renderHistory() {
    var list = clear($("history"));
    var moves = (state.moves || []).slice().reverse();
    if (!moves.length) { list.appendChild(h("li", {cls: "empty", text: tt("history.none", "No moves yet.")})); return; }
    var total = (state.moves || []).length;
    moves.forEach(function (m, i) {
      var children = [h("span", {cls: "num", text: String(total - i)})];
      var body = [];
      if (m.seat) body.push(swatch(m.seat), " ", h("strong", {cls: "who", text: nameOf(m.seat)}), " ");
      if (m.complete === false) body.push(h("span", {cls: "tag", text: tt("history.in_progress", "in progress")}));
      body.push(document.createTextNode(moveSentence(m)));
      children.push(h("span", {cls: "text"}, body));
      if (m.legal === false || (m.violations || []).length) {
        children.push(h("ul", {cls: "violations"}, violationItems(m.violations)));
      }
      var cls = m.legal === false ? "move illegal" : "move";
      if (m.complete === false) cls += " open";
      list.appendChild(h("li", {cls: cls}, children));
    });
  }

  /* ---------- the move history in the page's language, from the tracker's structured summary ---------- */
  var boards = {}, boardLoading = {};
  function boardInfo() {
    var g = game();
    var name = g && g.board;
    if (!name) return null;
    if (boards[name]) return boards[name];
    if (!boardLoading[name]) {
      boardLoading[name] = true;
      fetch("/api/boards/" + encodeURIComponent(name)).then(function (r) { return r.ok ? r.json() : null; })
        .then(function (b) { if (b) { boards[name] = b; renderHistory(); } });
    }
    return null;
  }
  function colourName(c) { return tt("colour." + c, c); }
  function cardWords(code, pile) {
    if (code === null || code === undefined) return tt("card.nothing", "nothing");
    code = String(code);
    if (code === "E") return tt("card.end", "the {colour} end card", {colour: colourName(pile)});
    if (code.charAt(0) === "P") return tt("card.points", "the points card {value}", {value: code.slice(1)});
    if (pile && pile !== "points") return tt("card.number", "a {colour} {value}", {colour: colourName(pile), value: code});
    return tt(code === "8" || code === "11" ? "card.value_an" : "card.value", "a {value}", {value: code});
  }
  function stoneWords(id) {
    var b = boardInfo();
    var st = b && b.stones[id];
    if (!st) return String(id);
    if (st.kind === "start") return tt("stone.start", "the start");
    return tt("stone.named", "{colour} {value} ({id})", {colour: tt("colour." + st.color, st.color), value: st.value, id: id});
  }
  function isStart(id) {
    var b = boardInfo();
    return b ? !!(b.stones[id] && b.stones[id].kind === "start") : id === "start";
  }
  function moveSentence(m) {
    var s = m.summary;
    if (!s) return m.text || "";
    if (m.silent) return tt("move.silent", "played without a visible change");
    var board = !!(game() && game().board);
    var parts = [];
    (s.lays || []).forEach(function (l) {
      var colour = l[0], code = String(l[1]);
      if (!board && colour === "points") { parts.push(tt("move.laid_points_row", "laid a points card in the points row")); return; }
      var text = tt("move.laid", "laid {card}", {card: cardWords(code, colour)});
      if (!board && (code.charAt(0) === "P" || code === "E")) text += tt("move.on_row", " on the {colour} row", {colour: colourName(colour)});
      parts.push(text);
    });
    (s.steps || []).forEach(function (st) {
      var pawn = st.big ? tt("pawn.big", "the big pawn") : tt("pawn.small", "a pawn");
      var text = tt(isStart(st.from) ? "move.brought" : "move.moved", "moved {pawn} to {stone}", {pawn: pawn, stone: stoneWords(st.to)});
      if (st.paid === "clover") text += tt("move.clover", " (clover step)");
      parts.push(text);
    });
    var rowDiscards = (s.row_discards || []).map(function (d) { return d[0] + ":" + d[1]; });
    (s.row_discards || []).forEach(function (d) {
      parts.push(tt("move.row_discard", "discarded the {colour} {value} from the row (discard tile)", {colour: colourName(d[0]), value: d[1]}));
    });
    (s.discards || []).forEach(function (d) {
      if (rowDiscards.indexOf(d[0] + ":" + d[1]) >= 0) return;
      parts.push(tt("move.discarded", "discarded {card}", {card: cardWords(d[1], d[0])}));
    });
    var wish = s.wish || [];
    if (wish.length) {
      var colours = wish.filter(function (c) { return c && c !== "any"; }).map(colourName);
      var text = tt(wish.length === 1 ? "move.wish_one" : "move.wish_many", "took {n} wish stones", {n: wish.length});
      if (colours.length) text += " (" + colours.join(", ") + ")";
      parts.push(text);
    }
    (s.wish_cards || []).forEach(function (v) { parts.push(tt("move.wish_card", "took the wish card {value}", {value: v})); });
    if (s.points) parts.push(tt("move.points", "scored {n} on a points tile", {n: s.points}));
    (s.draws || []).forEach(function (d) {
      parts.push(tt("move.drew", "drew {card} from the {pile} discard pile", {card: cardWords(d[1], d[0]), pile: colourName(d[0])}));
    });
    return parts.length ? parts.join(tt("move.join", ", ")) : tt("move.changed", "changed the table");
  }

  // The camera's state comes two ways: with the game (the tracker's status, at once when it
  // changes while a game runs) and in status messages (the pipeline polled every few seconds).
  // Whichever changed last is the news.
  var camSeen = {snap: undefined, health: undefined, now: undefined};
  function cameraNow(st) {
    var snapCam = (st.camera || {}).state || ((st.source || {}).source || {}).state;
    var healthCam = health ? (health.pipeline === "failed" ? "failed" : health.camera) : undefined;
    if (snapCam !== camSeen.snap) { camSeen.snap = snapCam; if (snapCam) camSeen.now = snapCam; }
    if (healthCam !== camSeen.health) { camSeen.health = healthCam; if (healthCam) camSeen.now = healthCam; }
    if ((st.source || {}).state === "failed") return "failed";
    return camSeen.now;
  }

  function renderCameraAlert(camState) {
    var box = $("camera-alert");
    var kind = camState === "failed" ? "failed" : (camState === "lost" || camState === "retrying") ? "lost" : null;
    box.hidden = !kind;
    if (!kind) return;
    box.dataset.state = camState;
    $("camera-alert-title").textContent = tt("camera." + kind + ".title", kind === "lost" ? "Camera lost" : "Camera failed");
    $("camera-alert-text").textContent = " " + tt("camera." + kind + ".todo", "");
  }

  // normal play, not pictures that could not be read (the same list as tracking/pipeline.py PLAY_REASONS)
  var PLAY_REASONS = ["occluded", "hand", "hands", "motion", "settling"];

  function unreadable(run) {
    var counts = {};
    Object.keys(run.unusable || {}).forEach(function (r) {
      if (PLAY_REASONS.indexOf(r) < 0) counts[r] = (counts[r] || 0) + run.unusable[r];
    });
    var cam = run.source || {};
    var skipped = (cam.corrupt || 0) + (cam.skipped || 0);  // corrupt frames the source itself dropped
    if (skipped) counts["bad-frame"] = (counts["bad-frame"] || 0) + skipped;
    var n = 0, why = [];
    Object.keys(counts).forEach(function (r) { n += counts[r]; why.push(tt("reason." + r, r) + " " + counts[r]); });
    return n ? tt("status.unreadable", "{n} pictures could not be read ({why})", {n: n, why: why.join(", ")}) : null;
  }

  function renderStatus() {
    var el = $("status");
    var st = state.status || {};
    var bits = [];
    var run = st.source || {};              // the pipeline's status, pushed by the tracker
    var camState = cameraNow(st);
    renderCameraAlert(camState);
    if (camState && camState !== "running" && camState !== "ended") bits.push(tt("source.state." + camState, camState));
    var tr = st.tracking || {};
    if (tr.state && game() && !state.game_over) {
      var text = tt("tracking." + tr.state, tr.state);
      if (tr.state !== "tracking" && tr.reason) text += " (" + tt("reason." + tr.reason, tr.reason) + ")";
      bits.push(text);
    }
    var pile = state.draw_pile || {};
    if (typeof pile.estimate === "number" && game() && game().board && !state.game_over) {
      bits.push(tt("status.draw_pile", "about {n} cards left in the draw pile", {n: pile.estimate}));
    }
    var bad = unreadable(run);
    if (bad) bits.push(bad);
    var rd = run.reader || {};
    // the reader followed a bumped board or camera by itself: say so for a couple of minutes
    if (rd.realigned_at && Date.now() / 1000 - rd.realigned_at < 120) {
      bits.push(tt("status.realigned", "the board was bumped: keltis-cam re-aligned itself"));
    }
    // the registration puts the camera too far from the board (camera check's floor): say so while it lasts
    var res = rd.resolution || {};
    if (res.too_far && typeof res.worst_corner === "number") {
      bits.push(tt("status.too_far", "the camera is too far: the board is only {n} px per cm in the picture, so pawns are read with care — mount the camera lower",
                   {n: (10 * res.worst_corner).toFixed(1)}));
    }
    el.textContent = bits.join(" · ");
    el.className = "status-line" + (camState === "lost" || camState === "failed" || tr.state === "paused" || res.too_far ? " alert" : "");
  }

  var NWNZ_ONLY_RULES = ["tiles_taken", "discard_tile_optional", "wish_tile", "wish_face_down"];

  function renderRules() {
    var dl = clear($("rules"));
    var rules = (game() && game().rules) || {};
    // The NWNZ variants change nothing on the base board (RULES §2): listing them there only confuses.
    var base = game() && game().board === "base";
    var keys = Object.keys(rules).filter(function (k) { return !(base && NWNZ_ONLY_RULES.indexOf(k) >= 0); });
    if (!keys.length) { dl.appendChild(h("dd", {cls: "empty", text: tt("rules.defaults", "standard rules")})); return; }
    keys.forEach(function (k) {
      var v = String(rules[k]);
      dl.appendChild(h("dt", {text: tt("rule." + k, k)}));
      dl.appendChild(h("dd", {text: tt("rule." + k + "." + v, v)}));
    });
  }

  function renderSource() {
    var note = $("source-note");
    var g = game();
    var observer = (g && g.observer) || (state.status || {}).observer;
    var parts = [];
    if (note.dataset.label) parts.push(note.dataset.label);
    var kind = ((state.status || {}).source || {}).kind;
    // a recording replayed through the vision reader is not "live from the camera"
    var src = observer ? t("source." + observer + (observer === "vision" && kind === "replay" ? "-replay" : "")) : null;
    if (src) parts.push(src);
    note.textContent = parts.join(" · ");
  }

  /* ---------- the connection ---------- */
  function setConn(kind) {
    var el = $("conn");
    el.dataset.state = kind;
    el.textContent = tt("conn." + kind, kind);
  }

  function poll() {
    fetch("/api/state", {cache: "no-store"}).then(function (r) { return r.ok ? r.json() : null; }).then(function (st) {
      if (!st) return;
      var before = state;
      state = st; lastId = st.event_id;
      notify(before, state); render();
    }).catch(function () { setConn("offline"); });
  }

  function scheduleReconnect() {
    if (retryTimer) return;
    if (!pollTimer) pollTimer = setInterval(poll, 10000);
    retryTimer = setTimeout(function () { retryTimer = null; connect(); }, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 60000);
  }

  function connect() {
    if (!window.EventSource) { setConn("polling"); poll(); pollTimer = pollTimer || setInterval(poll, 5000); return; }
    if (es) es.close();
    var url = "/api/stream" + (lastId !== null ? "?last_event_id=" + encodeURIComponent(lastId) : "");
    es = new EventSource(url);
    es.addEventListener("snapshot", onSnapshot);
    es.addEventListener("change", onChange);
    es.addEventListener("status", function (e) { health = JSON.parse(e.data); renderStatus(); });
    es.onopen = function () {
      setConn("live");
      retryDelay = 3000;
      if (pollTimer) { clearInterval(pollTimer); pollTimer = null; }
    };
    es.onerror = function () {
      if (es.readyState === EventSource.CLOSED) { setConn("polling"); scheduleReconnect(); }
      else setConn("reconnecting");
    };
  }

  $("frame-img").addEventListener("load", function () { $("frame-fig").hidden = false; });
  $("frame-img").addEventListener("error", function () { $("frame-fig").hidden = true; });

  var resizeTimer = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(renderChart, 150);
  });

  window.keltis = {state: function () { return state; }, lastId: function () { return lastId; }};
  render();
  showCurrent();
  connect();
})();
