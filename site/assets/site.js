// kwire's Kafka protocol atlas: links the byte grid and the object tree of
// each side of a page (hover, focus, keyboard, #anchors) and filters the
// index. No framework, no network.
(function () {
  "use strict";
  var doc = document;

  function Side(el) {
    var self = this;
    this.el = el;
    this.prefix = el.getAttribute("data-p") || "";
    this.grid = el.querySelector(".grid");
    this.status = el.querySelector(".status");
    this.cells = this.grid ? Array.prototype.slice.call(this.grid.querySelectorAll("span[id]")) : [];
    this.rows = Array.prototype.slice.call(el.querySelectorAll(".tree tbody tr"));
    this.owner = new Array(this.cells.length);
    this.lit = [];
    this.rows.forEach(function (r) {
      if (!r.classList.contains("l") || !r.hasAttribute("data-o")) return;
      var o = +r.getAttribute("data-o"), n = +r.getAttribute("data-s");
      for (var k = o; k < o + n && k < self.cells.length; k++) self.owner[k] = r;
    });
    this.cells.forEach(function (c, i) {
      c.tabIndex = i === 0 ? 0 : -1;
      c.addEventListener("mouseenter", function () { self.byte(i, false); });
      c.addEventListener("focus", function () { self.rove(i); self.byte(i, true); });
      c.addEventListener("click", function () { c.focus(); });
      c.addEventListener("keydown", function (ev) { self.gridKey(ev, i); });
    });
    // The tree is one tab stop too: the arrows move between its rows.
    this.links = this.rows.map(function (r) { return r.querySelector("a"); });
    this.rows.forEach(function (r, i) {
      var a = self.links[i];
      r.addEventListener("mouseenter", function () { self.row(r, false); });
      if (!a) return;
      a.tabIndex = i === 0 ? 0 : -1;
      a.addEventListener("focus", function () {
        self.links.forEach(function (l) { if (l && l !== a) l.tabIndex = -1; });
        a.tabIndex = 0;
        self.row(r, true);
      });
      a.addEventListener("keydown", function (ev) { self.treeKey(ev, i); });
    });
  }

  Side.prototype.clear = function () {
    this.lit.forEach(function (x) { x.classList.remove("on", "at"); });
    this.lit = [];
  };

  Side.prototype.light = function (x, cls) {
    x.classList.add(cls || "on");
    this.lit.push(x);
  };

  // range lights bytes [o, o+n).
  Side.prototype.range = function (o, n) {
    for (var k = o; k < o + n && k < this.cells.length; k++) this.light(this.cells[k]);
  };

  Side.prototype.cellsOf = function (r) {
    if (!r.hasAttribute("data-o")) return;
    this.range(+r.getAttribute("data-o"), +r.getAttribute("data-s"));
  };

  function text(r, i) { var c = r.cells[i]; return c ? c.textContent : ""; }

  // say puts a row's name, type, value, range and region in the status
  // line, and on hover in the byte's title.
  Side.prototype.say = function (r, byteAt) {
    var s = "";
    if (byteAt !== undefined) s = "byte 0x" + byteAt.toString(16) + " · ";
    if (r) {
      s += text(r, 0) + "  " + text(r, 1) + (text(r, 2) ? " = " + text(r, 2) : "") + "  " + text(r, 3) + "  region: " + text(r, 4);
      var about = text(r, 5);
      if (about) s += " — " + about;
    }
    if (this.status) this.status.textContent = s;
    return s;
  };

  Side.prototype.byte = function (i, focused) {
    this.clear();
    var r = this.owner[i];
    if (r) {
      this.light(r);
      this.cellsOf(r);
      if (focused) r.scrollIntoView({ block: "nearest" });
    }
    this.light(this.cells[i], "at");
    var s = this.say(r, i);
    this.cells[i].title = s;
  };

  Side.prototype.row = function (r, focused) {
    this.clear();
    this.light(r);
    this.cellsOf(r);
    this.say(r);
    if (focused && r.hasAttribute("data-o")) {
      var c = this.cells[+r.getAttribute("data-o")];
      if (c && +r.getAttribute("data-s") > 0) c.scrollIntoView({ block: "nearest" });
    }
  };

  // rove makes byte i the grid's one tab stop.
  Side.prototype.rove = function (i) {
    var old = this.cells[this.cur || 0];
    if (old) old.tabIndex = -1;
    this.cells[i].tabIndex = 0;
    this.cur = i;
  };

  Side.prototype.focusCell = function (i) {
    if (i < 0 || i >= this.cells.length) return;
    this.cells[i].focus();
  };

  Side.prototype.gridKey = function (ev, i) {
    var n = this.cells.length, to = -1;
    switch (ev.key) {
      case "ArrowRight": to = i + 1; break;
      case "ArrowLeft": to = i - 1; break;
      case "ArrowDown": to = i + 16; break;
      case "ArrowUp": to = i - 16; break;
      case "Home": to = ev.ctrlKey ? 0 : i - i % 16; break;
      case "End": to = ev.ctrlKey ? n - 1 : Math.min(n - 1, i - i % 16 + 15); break;
      case "Enter":
        var r = this.owner[i], a = r && r.querySelector("a");
        if (a) { ev.preventDefault(); a.focus(); }
        return;
      case "Escape": this.clear(); return;
      default: return;
    }
    ev.preventDefault();
    this.focusCell(Math.max(0, Math.min(n - 1, to)));
  };

  Side.prototype.treeKey = function (ev, i) {
    var to = -1;
    switch (ev.key) {
      case "ArrowDown": to = i + 1; break;
      case "ArrowUp": to = i - 1; break;
      case "PageDown": to = Math.min(this.rows.length - 1, i + 16); break;
      case "PageUp": to = Math.max(0, i - 16); break;
      case "Home": to = 0; break;
      case "End": to = this.rows.length - 1; break;
      case "ArrowLeft":
        var r = this.rows[i];
        if (r.hasAttribute("data-o")) { ev.preventDefault(); this.focusCell(+r.getAttribute("data-o")); }
        return;
      case "Escape": this.clear(); return;
      default: return;
    }
    var a = this.links[to];
    if (a) { ev.preventDefault(); a.focus(); }
  };

  var sides = Array.prototype.slice.call(doc.querySelectorAll(".side")).map(function (el) { return new Side(el); });

  // A hash names a node (Topics.0.PreVote, response.Frame.size), a byte
  // (b-0x4f) or a byte range (b-0x10-0x1f), on the side its prefix names.
  function onHash() {
    var h = decodeURIComponent(location.hash.slice(1));
    if (!h) return;
    for (var k = 0; k < sides.length; k++) {
      var sd = sides[k];
      if (sd.prefix && h.indexOf(sd.prefix) !== 0) continue;
      var rest = sd.prefix ? h.slice(sd.prefix.length) : h;
      var m = /^b-0x([0-9a-f]+)(?:-0x([0-9a-f]+))?$/i.exec(rest);
      if (m) {
        var lo = parseInt(m[1], 16), hi = m[2] ? parseInt(m[2], 16) : lo;
        if (lo >= sd.cells.length) continue;
        if (m[2]) {
          sd.clear();
          sd.range(lo, hi - lo + 1);
          sd.cells[lo].scrollIntoView({ block: "center" });
        } else {
          sd.byte(lo, false);
          sd.cells[lo].scrollIntoView({ block: "center" });
        }
        return;
      }
      var el = doc.getElementById(h);
      if (el && el.tagName === "TR" && sd.el.contains(el)) {
        sd.row(el, false);
        el.scrollIntoView({ block: "center" });
        return;
      }
    }
  }
  if (sides.length) {
    window.addEventListener("hashchange", onHash);
    onHash();
  }

  // The index: filter the tables' rows as one types.
  var q = doc.getElementById("q");
  if (q) {
    var rows = Array.prototype.slice.call(doc.querySelectorAll("table[data-filter] tbody tr"));
    var count = doc.getElementById("qn");
    var filter = function () {
      var words = q.value.toLowerCase().split(/\s+/).filter(Boolean), shown = 0;
      rows.forEach(function (r) {
        var k = r.getAttribute("data-k") || "";
        var ok = words.every(function (w) { return k.indexOf(w) >= 0; });
        r.hidden = !ok;
        if (ok) shown++;
      });
      doc.querySelectorAll("table[data-filter]").forEach(function (t) {
        t.hidden = !t.querySelector("tbody tr:not([hidden])");
      });
      if (count) count.textContent = words.length ? shown + " of " + rows.length + " shown" : "";
    };
    q.addEventListener("input", filter);
    q.addEventListener("keydown", function (ev) {
      if (ev.key !== "Enter") return;
      var first = doc.querySelector("table[data-filter] tbody tr:not([hidden]) a");
      if (first) first.click();
    });
    doc.addEventListener("keydown", function (ev) {
      if (ev.key === "/" && doc.activeElement !== q) { ev.preventDefault(); q.focus(); }
    });
    if (q.value) filter();
  }
})();
