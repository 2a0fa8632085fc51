/**
 * The viewer script's markdown part (spliced into VIEWER_SCRIPT, whose DOM helpers it uses): the
 * server's markdown tree (markdown-tree.ts) turned into elements and text nodes, never markup.
 */
export const VIEWER_MARKDOWN = String.raw`
  // ---- Markdown, as DOM nodes ----------------------------------------------------------------
  // The server parses markdown with the terminal's parser (marked) and sends a tree of known element
  // kinds and strings (markdown-tree.ts); here each kind becomes one element and each string a text
  // node. Unknown kinds become a span: nothing in the tree picks a tag name or an attribute freely.
  var INLINE_TAGS = { em: "em", strong: "strong", del: "del", code: "code", span: "span" };
  var ALIGNS = { left: "left", right: "right", center: "center" };
  // Own keys only: "constructor" or "__proto__" must not pick an inherited value.
  function known(table, key) { return Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined; }
  function mdChildren(nodes, parent) {
    (nodes || []).forEach(function (n) { parent.appendChild(mdNode(n)); });
    return parent;
  }
  function mdNode(n) {
    if (typeof n === "string") return textNode(n);
    if (!n || typeof n !== "object") return textNode("");
    switch (n.t) {
      case "p": return mdChildren(n.c, el("p"));
      case "h": return mdChildren(n.c, el("h" + Math.min(6, Math.max(1, (n.d | 0) + 1))));
      case "pre":
        var lang = String(n.lang || "").replace(/[^\w+-]/g, "");
        return el("pre", "code", [el("code", lang ? "lang-" + lang : "", [String((n.c || [""])[0])])]);
      case "quote": return mdChildren(n.c, el("blockquote"));
      case "ul": return mdChildren(n.c, el("ul"));
      case "ol":
        var ol = mdChildren(n.c, el("ol"));
        if (n.start !== undefined) ol.start = Number(n.start) | 0;
        return ol;
      case "li":
        var li = el("li", n.checked === undefined ? "" : "task");
        if (n.checked !== undefined) li.appendChild(textNode(n.checked ? "\u2611 " : "\u2610 "));
        return mdChildren(n.c, li);
      case "table": return mdTable(n);
      case "hr": return el("hr");
      case "br": return el("br");
      case "a": return mdLink(n);
      default: return mdChildren(n.c, el(known(INLINE_TAGS, n.t) || "span"));
    }
  }
  function mdTable(n) {
    var align = n.align || [];
    function row(cells, tag) {
      var tr = el("tr");
      (cells || []).forEach(function (cell, i) {
        var td = mdChildren(cell, el(tag));
        if (known(ALIGNS, align[i])) td.style.textAlign = known(ALIGNS, align[i]);
        tr.appendChild(td);
      });
      return tr;
    }
    var table = el("table", "md-table", [el("thead", "", [row(n.head, "th")])]);
    var body = el("tbody");
    (n.rows || []).forEach(function (r) { body.appendChild(row(r, "td")); });
    table.appendChild(body);
    return table;
  }
  function mdLink(n) {
    var href = String(n.href || "");
    if (/^https?:\/\//i.test(href)) {
      var a = mdChildren(n.c, el("a"));
      a.href = href; a.rel = "noopener noreferrer nofollow"; a.target = "_blank";
      return a;
    }
    // Any other scheme (javascript:, data:, file:) is shown, never followed.
    var span = mdChildren(n.c, el("span", "link"));
    span.appendChild(textNode(" (" + href + ")"));
    return span;
  }
  // Markdown text with its server-made tree; without one (too long, or an old server), the text.
  function markdown(text, tree) {
    if (!Array.isArray(tree)) return el("div", "md", [el("p", "plain", [String(text)])]);
    return mdChildren(tree, el("div", "md"));
  }
  // What a person typed: shown as typed, line breaks kept.
  function prompt(text) { return el("div", "prompt", [String(text)]); }
`;
