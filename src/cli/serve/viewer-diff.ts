/**
 * The viewer script's diff part (spliced into VIEWER_SCRIPT, whose DOM helpers it uses): Edit and
 * Write calls as unified diffs with line numbers and context, computed in the page because an Edit's
 * line numbers arrive later, with its result, possibly over the live stream.
 */
export const VIEWER_DIFF = String.raw`
  // ---- Diffs --------------------------------------------------------------------------------
  // Line operations turning lines a into lines b, by longest common subsequence: snippets are small,
  // and a pair too large for the table is shown as all removed then all added.
  function lineOps(a, b) {
    if (a.length * b.length > 250000) {
      return a.map(function (t) { return { mark: "-", text: t }; }).concat(b.map(function (t) { return { mark: "+", text: t }; }));
    }
    var rows = a.length + 1, cols = b.length + 1, len = new Array(rows * cols).fill(0);
    for (var i = a.length - 1; i >= 0; i--)
      for (var j = b.length - 1; j >= 0; j--)
        len[i * cols + j] = a[i] === b[j] ? len[(i + 1) * cols + j + 1] + 1 : Math.max(len[(i + 1) * cols + j], len[i * cols + j + 1]);
    var ops = [], x = 0, y = 0;
    while (x < a.length || y < b.length) {
      if (x < a.length && y < b.length && a[x] === b[y]) { ops.push({ mark: " ", text: a[x] }); x++; y++; }
      // Removals before additions where either keeps the common part as long, as diff tools do.
      else if (x < a.length && (y === b.length || len[(x + 1) * cols + y] >= len[x * cols + y + 1])) { ops.push({ mark: "-", text: a[x] }); x++; }
      else { ops.push({ mark: "+", text: b[y] }); y++; }
    }
    return ops;
  }
  var CONTEXT = 3;
  // A unified diff: changed lines with CONTEXT unchanged lines around them, each with its line number
  // (of the old file for removed lines, of the new one otherwise) when the first one is known.
  function unifiedDiff(before, after, firstLine) {
    var ops = lineOps(lines(before), lines(after));
    var near = ops.map(function () { return false; });
    ops.forEach(function (op, i) {
      if (op.mark === " ") return;
      for (var k = Math.max(0, i - CONTEXT); k <= Math.min(ops.length - 1, i + CONTEXT); k++) near[k] = true;
    });
    var box = el("pre", "diff"), oldLine = firstLine, newLine = firstLine, gap = false;
    ops.forEach(function (op, i) {
      var number = op.mark === "-" ? oldLine : newLine;
      if (op.mark !== "+") oldLine++;
      if (op.mark !== "-") newLine++;
      if (!near[i]) { gap = true; return; }
      // A mark between hunks only: the lines before the first one are not the file's start anyway.
      if (gap && box.firstChild) box.appendChild(el("span", "gap", ["      \u22ef\n"]));
      gap = false;
      var label = firstLine ? String(number) : "";
      box.appendChild(el("span", op.mark === "+" ? "add" : op.mark === "-" ? "del" : "ctx", [("     " + label).slice(-5) + " " + op.mark + " " + op.text + "\n"]));
    });
    return box;
  }
  // A text's lines; the newline that ends the last line does not start another.
  function lines(text) {
    var t = String(text || "");
    if (t === "") return [];
    return t.replace(/\r?\n$/, "").split(/\r?\n/);
  }
  // The Edit tool answers with the edited file's lines around the change, numbered as cat -n does:
  // with them, the diff has the file's line numbers and context. Without them (no result yet, a
  // failed edit), the diff is of the two snippets.
  function editDiff(input, resultText) {
    var oldText = String(input.old_string || ""), newText = String(input.new_string || "");
    var numbered = String(resultText || "").split("\n").map(function (l) { return /^\s*(\d+)\t(.*)$/.exec(l); }).filter(Boolean);
    if (numbered.length && !input.replace_all) {
      var after = numbered.map(function (m) { return m[2]; }).join("\n");
      var at = newText ? after.indexOf(newText.replace(/\r?\n$/, "")) : -1;
      if (at >= 0) {
        var shownNew = newText.replace(/\r?\n$/, "");
        var before = after.slice(0, at) + oldText.replace(/\r?\n$/, "") + after.slice(at + shownNew.length);
        return unifiedDiff(before, after, Number(numbered[0][1]));
      }
    }
    return unifiedDiff(oldText, newText, 0);
  }
  function writeDiff(content) { return unifiedDiff("", content, 1); }
`;
