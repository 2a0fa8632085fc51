import { VIEWER_DIFF } from "./viewer-diff.js";
import { VIEWER_MARKDOWN } from "./viewer-markdown.js";

/**
 * The viewer's browser code, as the text of one script. Plain JavaScript with no build step and no
 * dependency. The one rule it keeps everywhere: transcript content (model output, tool output, file
 * contents) is untrusted, so it only ever reaches the page as text (`textContent`, text nodes),
 * never as markup; links are made only for http(s) URLs. The server's Content-Security-Policy is the
 * second wall: no script but this one runs.
 *
 * Its markdown and diff parts live in viewer-markdown.ts and viewer-diff.ts, spliced in below.
 *
 * Two modes: served (it fetches `/api/...` with the page's token and follows running sessions), and
 * exported (the session is embedded in the page as JSON and nothing is fetched). A served page of
 * durable sessions (`data-source="durable"` on #app) shows the operator's columns and refreshes its
 * list every few seconds; a failed request shows the server's error (which names an unreachable
 * database) instead of a status number.
 */
export const VIEWER_SCRIPT = String.raw`
"use strict";
(function () {
  var params = new URLSearchParams(location.search);
  var token = params.get("token") || "";
  var embedded = document.getElementById("goat-data");
  var app = document.getElementById("app");
  var durable = app.dataset.source === "durable";

  // ---- DOM helpers: text only ----------------------------------------------------------------
  // Controls and bidi overrides show as what they are (<U+202E>), as in the terminal: an override
  // would otherwise reorder a command on the page (the page shows text, it obeys no escape).
  var HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
  function shown(text) {
    return String(text).replace(HIDDEN, function (c) {
      return "<U+" + ("000" + c.charCodeAt(0).toString(16).toUpperCase()).slice(-4) + ">";
    });
  }
  function textNode(text) { return document.createTextNode(shown(text)); }
  function el(tag, className, children) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === "string" ? textNode(child) : child);
    });
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function safeLink(text, url) {
    if (!/^https?:\/\//i.test(url)) return textNode(text + " (" + url + ")");
    var a = el("a", "", [text]);
    a.href = url; a.rel = "noopener noreferrer nofollow"; a.target = "_blank";
    return a;
  }
  function api(path, query) {
    var q = new URLSearchParams(query || {}); q.set("token", token);
    return fetch(path + "?" + q.toString()).then(function (r) {
      if (r.ok) return r.json();
      return r.json().then(
        function (body) { throw new Error(body && body.error ? String(body.error) : path + ": " + r.status); },
        function () { throw new Error(path + ": " + r.status); }
      );
    });
  }
  function when(ms) { return new Date(ms).toLocaleString(); }
  function usd(n) { return "$" + (n || 0).toFixed(n >= 1 ? 2 : 4); }

${VIEWER_MARKDOWN}
  // ---- Tool calls ----------------------------------------------------------------------------
  var LIMIT = 2000;
  function longText(text, className) {
    var pre = el("pre", className || "out", [text.length > LIMIT ? text.slice(0, LIMIT) : text]);
    if (text.length <= LIMIT) return pre;
    var more = el("button", "more", ["show all (" + text.length + " characters)"]);
    more.addEventListener("click", function () { pre.textContent = shown(text); more.remove(); });
    return el("div", "", [pre, more]);
  }
${VIEWER_DIFF}
  function summarize(name, input) {
    input = input || {};
    var s = input.command || input.file_path || input.pattern || input.description || input.url || "";
    return String(s).length > 100 ? String(s).slice(0, 100) + "…" : String(s);
  }
  function resultText(content) {
    if (typeof content === "string") return content;
    return (content || []).map(function (b) { return b.type === "text" ? b.text : "[" + b.type + "]"; }).join("\n");
  }
  function toolCard(block, ctx) {
    var card = el("details", "tool");
    card.dataset.toolUseId = block.id;
    var status = el("span", "status pending", ["running"]);
    card.appendChild(el("summary", "", [el("b", "", [block.name]), " ", el("span", "arg", [summarize(block.name, block.input)]), " ", status]));
    var input = block.input || {};
    var diffSlot = null;
    if (block.name === "Edit") card.appendChild(diffSlot = el("div", "", [editDiff(input, "")]));
    else if (block.name === "Write") card.appendChild(writeDiff(input.content));
    else card.appendChild(longText(JSON.stringify(input, null, 2), "input"));
    var slot = el("div", "result");
    card.appendChild(slot);
    ctx.tools[block.id] = { card: card, status: status, slot: slot, block: block, diffSlot: diffSlot };
    if (block.name === "Task" && ctx.subagents) {
      // A durable session's subagent is filed under its Task call's id; a local one is found by its prompt.
      var child = ctx.subagents && (ctx.subagents[block.id] || findSubagent(ctx.subagents, block.input && block.input.prompt));
      if (child) {
        var nested = el("div", "subagent", [el("div", "label", ["Subagent " + (block.input.subagent_type || "")])]);
        renderEntries(child, nested, { tools: {}, subagents: null, turns: [] });
        card.appendChild(nested);
      }
    }
    return card;
  }
  function findSubagent(subagents, prompt) {
    var ids = Object.keys(subagents);
    for (var i = 0; i < ids.length; i++) {
      var first = subagents[ids[i]].find(function (e) { return e.type === "user"; });
      if (first && resultText(first.message.content) === prompt) return subagents[ids[i]];
    }
    return null;
  }
  function attachResult(block, ctx) {
    var tool = ctx.tools[block.tool_use_id];
    if (!tool) return;
    var text = resultText(block.content);
    // Transcripts written by earlier versions spell the flag is_error.
    var failed = block.isError === true || block.is_error === true;
    var interrupted = /interrupted/i.test(text) && failed;
    tool.status.className = "status " + (interrupted ? "interrupted" : failed ? "error" : "ok");
    tool.status.textContent = interrupted ? "interrupted" : failed ? "error" : "ok";
    if (failed) tool.card.classList.add("failed");
    if (tool.diffSlot && !failed) { clear(tool.diffSlot); tool.diffSlot.appendChild(editDiff(tool.block.input || {}, text)); }
    clear(tool.slot);
    tool.slot.appendChild(longText(text));
  }

  // ---- A transcript --------------------------------------------------------------------------
  function renderEntry(entry, container, ctx) {
    if (entry.copy_of) return;
    if (entry.type === "header") {
      container.appendChild(el("div", "meta", ["Started " + when(Date.parse(entry.createdAt)) + " in " + entry.cwd + (entry.model ? " · " + entry.model : "")]));
    } else if (entry.type === "user") {
      var content = entry.message.content;
      if (typeof content === "string") { container.appendChild(el("div", "msg user", [el("div", "who", ["You"]), prompt(content)])); return; }
      var texts = [];
      content.forEach(function (b) {
        if (b.type === "tool_result") attachResult(b, ctx);
        else if (b.type === "text") texts.push(b.text);
      });
      if (texts.length) container.appendChild(el("div", "msg user", [el("div", "who", ["You"]), prompt(texts.join("\n"))]));
    } else if (entry.type === "assistant") {
      var m = entry.message;
      var box = el("div", "msg assistant", [el("div", "who", ["Assistant" + (m.model ? " · " + m.model : "")])]);
      (m.content || []).forEach(function (b) {
        if (b.type === "text") box.appendChild(markdown(b.text, b.md));
        else if (b.type === "thinking") box.appendChild(el("details", "thinking", [el("summary", "", ["Thinking"]), el("pre", "", [b.thinking])]));
        else if (b.type === "tool_use") box.appendChild(toolCard(b, ctx));
      });
      if (m.error_message) box.appendChild(el("div", "error", [(m.error_kind || "error") + ": " + m.error_message]));
      container.appendChild(box);
      ctx.turns.push({ time: Date.parse(entry.timestamp), usage: m.usage || {}, stop: m.stop_reason, cost: typeof entry.cost_usd === "number" ? entry.cost_usd : undefined });
    } else if (entry.type === "compact_boundary") {
      container.appendChild(el("details", "boundary", [el("summary", "", ["Compacted (" + entry.trigger + "): " + entry.pre_tokens + " → " + entry.post_tokens + " tokens"]), markdown(entry.summary, entry.summary_md)]));
    } else if (entry.type === "result") {
      container.appendChild(el("div", "run " + (entry.subtype === "success" ? "ok" : "failed"), [entry.subtype + " · " + entry.num_turns + " turns · " + usd(entry.total_cost_usd) + " · " + (entry.duration_ms / 1000).toFixed(1) + " s"]));
      // Why a run failed: the result's errors (the last one is what stopped it).
      (Array.isArray(entry.errors) ? entry.errors : []).forEach(function (text) {
        container.appendChild(el("div", "error run-error", [String(text)]));
      });
      ctx.cost += entry.total_cost_usd || 0;
    } else if (entry.type === "note") {
      container.appendChild(el("div", "meta note", [String(entry.text)]));
    } else if (entry.type === "model_change") {
      container.appendChild(el("div", "meta", ["Model changed to " + entry.model]));
    }
  }
  function renderEntries(entries, container, ctx) {
    ctx.cost = ctx.cost || 0;
    entries.forEach(function (e) { renderEntry(e, container, ctx); });
  }

  // ---- Timeline ------------------------------------------------------------------------------
  var SVG = "http://www.w3.org/2000/svg";
  function timeline(turns, start) {
    var box = el("div", "timeline");
    if (!turns.length) return box;
    var max = Math.max.apply(null, turns.map(function (t) { return (t.usage.output_tokens || 0) + 1; }));
    var svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 " + turns.length * 24 + " 60");
    svg.setAttribute("class", "chart");
    svg.setAttribute("preserveAspectRatio", "xMinYMax meet");
    var previous = start;
    turns.forEach(function (t, i) {
      var h = Math.max(2, 56 * ((t.usage.output_tokens || 0) + 1) / max);
      var bar = document.createElementNS(SVG, "rect");
      bar.setAttribute("x", String(i * 24 + 4)); bar.setAttribute("y", String(58 - h));
      bar.setAttribute("width", "16"); bar.setAttribute("height", String(h));
      var title = document.createElementNS(SVG, "title");
      // A durable session's messages carry no time: the duration is left out.
      var took = isFinite(t.time - previous) ? ((t.time - previous) / 1000).toFixed(1) + " s, " : "";
      title.textContent = "turn " + (i + 1) + ": " + took + "in " + (t.usage.input_tokens || 0) + " / out " + (t.usage.output_tokens || 0) + " tokens" + (t.cost !== undefined ? ", " + usd(t.cost) : "");
      bar.appendChild(title); svg.appendChild(bar);
      previous = t.time;
    });
    box.appendChild(el("div", "label", ["Turns (bar: output tokens; hover for duration and input)"]));
    box.appendChild(svg);
    return box;
  }

  // ---- Pages ---------------------------------------------------------------------------------
  function showSession(view, live) {
    clear(app);
    var ctx = { tools: {}, subagents: view.subagents, turns: [], cost: 0 };
    var header = el("div", "bar", [embedded ? null : backLink(), el("h1", "", ["Session " + view.sessionId.slice(0, 8)])]);
    if (!embedded) {
      var exp = el("a", "button", ["Export HTML"]);
      exp.href = "/export?" + new URLSearchParams({ id: view.sessionId, token: token }).toString();
      header.appendChild(exp);
    }
    var chart = el("div");
    var conversation = el("div", "conversation");
    var state = view.durable ? el("div", "meta durable-state", [durableState(view.durable)]) : null;
    app.appendChild(header); if (state) app.appendChild(state); app.appendChild(chart); app.appendChild(conversation);
    var seen = {};
    var headerEntry = view.entries.find(function (e) { return e.type === "header"; });
    var start = headerEntry ? Date.parse(headerEntry.createdAt) : 0;
    function add(entry) {
      if (seen[entry.uuid]) return;
      seen[entry.uuid] = true;
      renderEntry(entry, conversation, ctx);
    }
    function redrawChart() { clear(chart); chart.appendChild(timeline(ctx.turns, start)); }
    view.entries.forEach(add);
    redrawChart();
    if (live) {
      var q = new URLSearchParams({ id: view.sessionId, from: String(view.offset), token: token });
      var source = new EventSource("/api/live?" + q.toString());
      source.onmessage = function (message) {
        var data = JSON.parse(message.data);
        if (data.agentId) { (view.subagents[data.agentId] = view.subagents[data.agentId] || []).push(data.entry); return; }
        add(data.entry); redrawChart();
      };
      // Sent only for a durable session: it has ended (the browser would otherwise reconnect), or the
      // database failed; the session's row is read again for its final state.
      source.addEventListener("end", function () {
        source.close();
        if (state) api("/api/session", { id: view.sessionId }).then(function (v) { if (v.durable) state.textContent = shown(durableState(v.durable)); }, function () {});
      });
      source.addEventListener("failure", function (message) {
        source.close();
        app.appendChild(el("div", "error live-error", [String(JSON.parse(message.data).error)]));
      });
      window.addEventListener("hashchange", function () { source.close(); }, { once: true });
    }
  }
  function durableState(d) {
    return [d.status, d.step ? "step " + d.step : "", d.worker ? "worker " + d.worker : "", d.version ? "version " + d.version : "", d.error ? "error: " + d.error : ""].filter(Boolean).join(" · ");
  }
  function backLink() {
    var a = el("a", "button", ["← Sessions"]); a.href = "#"; return a;
  }
  var STATES = { running: "running", success: "success", error: "error", interrupted: "interrupted", queued: "queued", cancelled: "cancelled" };
  var LIST_REFRESH_MS = 5000;
  function sessionRow(s, link) {
    var state = el("td", "state " + (known(STATES, s.status) || ""), [String(s.status || "")]);
    if (!durable) return el("tr", "row", [el("td", "", [when(s.lastModified)]), el("td", "", [link]), state, el("td", "dim model", [s.model || ""]), el("td", "dim", [s.cwd]), el("td", "", [String(s.messageCount)]), el("td", "", [usd(s.totalCostUsd)])]);
    var d = s.durable || {};
    return el("tr", "row", [el("td", "", [when(s.lastModified)]), el("td", "", [link]), state, el("td", "dim step", [d.step || ""]), el("td", "dim worker", [d.worker || ""]), el("td", "dim version", [d.version || ""]), el("td", "", [usd(s.totalCostUsd)]), el("td", "error-cell", [d.error || ""])]);
  }
  function showList() {
    clear(app);
    var search = el("input", "search"); search.placeholder = "Search prompts, folders, ids"; search.type = "search";
    var table = el("table", "sessions");
    var failure = el("div", "error list-error");
    app.appendChild(el("div", "bar", [el("h1", "", [durable ? "Goat durable sessions" : "Goat sessions"]), search]));
    app.appendChild(failure);
    app.appendChild(table);
    var headings = durable
      ? ["Updated", "First prompt", "Status", "Step", "Worker", "Version", "Cost", "Last error"]
      : ["When", "First prompt", "Status", "Model", "Folder", "Messages", "Cost"];
    var refresh;
    function load() {
      clearTimeout(refresh);
      var shownHash = location.hash;
      api("/api/sessions", search.value ? { q: search.value } : {}).then(function (sessions) {
        failure.textContent = "";
        clear(table);
        table.appendChild(el("tr", "", headings.map(function (h) { return el("th", "", [h]); })));
        sessions.forEach(function (s) {
          var link = el("a", "", [s.firstPrompt || "(no prompt yet)"]);
          link.href = "#session/" + encodeURIComponent(s.sessionId);
          table.appendChild(sessionRow(s, link));
        });
        if (!sessions.length) table.appendChild(el("tr", "", [el("td", "dim", ["No sessions."])]));
      }, function (error) {
        failure.textContent = shown(error.message);
      }).then(function () {
        // Durable sessions change under the operator's eyes: the list is read again while it is shown.
        if (durable && location.hash === shownHash && app.contains(table)) refresh = setTimeout(load, LIST_REFRESH_MS);
      });
    }
    var timer;
    search.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(load, 200); });
    load();
  }
  function route() {
    var m = /^#session\/(.+)$/.exec(location.hash);
    if (!m) return showList();
    api("/api/session", { id: decodeURIComponent(m[1]) }).then(function (view) { showSession(view, true); }, function (error) {
      clear(app); app.appendChild(el("div", "error", [String(error.message)]));
    });
  }

  if (embedded) showSession(JSON.parse(embedded.textContent), false);
  else { window.addEventListener("hashchange", route); route(); }
})();
`;
