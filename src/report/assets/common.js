/* tauvta HTML reports: code shared by every page kind.
 *
 * The C++ writer inlines, in this order: Chart.js 3.9.1 (global `Chart`), this file, then one
 * KIND.js that sets tauvta.pages.KIND and calls tauvta.main(). The data is a JSON <script> element
 * (#tauvta-data): {kind, title, command, generated, version, config, report, extra}.
 *
 * Traceability contract (what tools/browser/check_report.py verifies):
 *  - an element that shows a number (or string) taken from data.report carries
 *    data-ptr="/rfc6901/pointer/into/report"; its text is that value formatted for display,
 *    multiplied by data-scale when present (e.g. 100 for a percentage, 1000 for seconds shown
 *    as ms); a missing or null value is shown as "—"; with data-root="extra" the pointer is
 *    into data.extra (e.g. the DSE page's evaluations);
 *  - a Chart.js dataset may carry `tauvtaPtrs`, one entry per data element: null (a derived value,
 *    not checked), a pointer spec {ptr, scale, fn: "log2", root: "extra"} or a plain pointer
 *    string for a number element, an object {x: spec, y: spec, ...} for a point element, or an
 *    array [spec, spec] for a floating bar [from, to].
 * The page never changes data.report.
 */
'use strict';

var tauvta = (function () {
  var T = {pages: {}, data: null, report: null};

  // ---- data ------------------------------------------------------------------------------------

  T.parseData = function () {
    var node = document.getElementById('tauvta-data');
    if (!node) throw new Error('no #tauvta-data element');
    // Plain JSON: the writer escapes every '<' as \u003c (src/report/html_page.cpp).
    return JSON.parse(node.textContent);
  };

  /* RFC 6901 pointer from segments: ptr('layers', 3, 'cycles') -> "/layers/3/cycles". */
  T.ptr = function () {
    var s = '';
    for (var i = 0; i < arguments.length; i++) {
      s += '/' + String(arguments[i]).replace(/~/g, '~0').replace(/\//g, '~1');
    }
    return s;
  };

  /* The value at a pointer (into data.report, or into `root` when given); undefined if absent. */
  T.get = function (ptr, root) {
    var v = root === undefined ? T.report : root;
    if (ptr === '' || ptr === undefined) return v;
    var parts = ptr.split('/');
    for (var i = 1; i < parts.length; i++) {
      if (v === null || typeof v !== 'object') return undefined;
      var key = parts[i].replace(/~1/g, '/').replace(/~0/g, '~');
      if (!Object.prototype.hasOwnProperty.call(v, key)) return undefined;
      v = v[key];
    }
    return v;
  };

  T.isNum = function (v) { return typeof v === 'number' && isFinite(v); };
  T.arr = function (v) { return Array.isArray(v) ? v : []; };
  T.obj = function (v) { return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {}; };

  // ---- number formatting -----------------------------------------------------------------------

  T.DASH = '\u2014';

  function group(intString) {  // "1234567" -> "1,234,567" (sign kept)
    return intString.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  }

  /* A float for display: 4 significant digits between 1e-3 and 1000; whole numbers with
   * thousands separators from 1000 up to 1e15; exponent notation beyond. Never loses the
   * magnitude (no k/M suffixes), so the checker can read it back. */
  T.fmtNum = function (v, sig) {
    sig = sig || 4;
    if (!T.isNum(v)) return T.DASH;
    if (v === 0) return '0';
    var a = Math.abs(v);
    if (a >= 1e15 || a < 1e-3) return v.toExponential(sig - 1);
    if (a >= 1000) return group(Math.round(v).toFixed(0));
    return String(Number(v.toPrecision(sig))) === String(v) ? String(v) : v.toPrecision(sig);
  };

  T.fmtInt = function (v) {
    if (!T.isNum(v)) return T.DASH;
    if (!Number.isInteger(v)) return T.fmtNum(v);
    return Math.abs(v) < 1e15 ? group(v.toFixed(0)) : v.toExponential(3);
  };

  /* Display kinds: how a raw report value becomes text, and the factor between the two. */
  T.kinds = {
    int: {scale: 1, fmt: T.fmtInt},
    num: {scale: 1, fmt: function (v) { return T.fmtNum(v, 4); }},
    num3: {scale: 1, fmt: function (v) { return T.fmtNum(v, 3); }},
    // a fraction shown as a percentage (utilization, accuracy)
    pct: {scale: 100, fmt: function (p) {
      if (!T.isNum(p)) return T.DASH;
      var a = Math.abs(p);
      if (p === 0) return '0%';
      if (a < 0.01) return p.toExponential(1) + '%';
      return p.toFixed(a >= 10 ? 1 : 2) + '%';
    }},
    // a signed relative error shown as a percentage with its sign
    spct: {scale: 100, fmt: function (p) {
      if (!T.isNum(p)) return T.DASH;
      var a = Math.abs(p);
      var s = a !== 0 && a < 0.01 ? p.toExponential(1) : p.toFixed(1);
      return (p > 0 ? '+' : '') + s + '%';
    }},
    // a small rate (overflow): exponent notation like the CLI's tables
    rate: {scale: 1, fmt: function (v) {
      if (!T.isNum(v)) return T.DASH;
      return v === 0 ? '0' : v.toExponential(2);
    }},
    ms: {scale: 1e3, fmt: function (v) { return T.fmtNum(v, 4); }},   // seconds shown as ms
    us: {scale: 1e6, fmt: function (v) { return T.fmtNum(v, 4); }},   // seconds shown as µs
    str: {scale: 1, fmt: String}
  };

  /* The text of a value for display with a kind (no element). */
  T.fmt = function (v, kind) {
    var k = T.kinds[kind || 'num'];
    if (v === undefined || v === null) return T.DASH;
    if (typeof v === 'string') return v;
    if (typeof v === 'boolean') return v ? 'yes' : 'no';
    if (!T.isNum(v)) return T.DASH;
    return k.fmt(v * k.scale);
  };

  /* Put a report value into an element: its text, data-ptr and (when not 1) data-scale.
   * root 'extra': the pointer is into data.extra instead (data-root="extra"). */
  T.bind = function (node, ptr, kind, root) {
    var v = root === 'extra' ? T.get(ptr, T.data.extra) : T.get(ptr);
    var k = T.kinds[kind || 'num'];
    node.setAttribute('data-ptr', ptr);
    if (root === 'extra') node.setAttribute('data-root', 'extra');
    if (typeof v === 'number' && k.scale !== 1) node.setAttribute('data-scale', String(k.scale));
    node.textContent = T.fmt(v, kind);
    node._sv = typeof v === 'number' ? v : (typeof v === 'string' ? v : null);  // sort value
    return node;
  };

  // ---- DOM -------------------------------------------------------------------------------------

  /* el('div', {class: 'x', title: 't', text: 'hi', onclick: f}, child, 'text', ...) */
  T.el = function (tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) {
      for (var key in attrs) {
        if (!Object.prototype.hasOwnProperty.call(attrs, key)) continue;
        var val = attrs[key];
        if (val === undefined || val === null || val === false) continue;
        if (key === 'text') node.textContent = val;
        else if (key === 'class') node.className = val;
        else if (key.slice(0, 2) === 'on') node.addEventListener(key.slice(2), val);
        else node.setAttribute(key, val === true ? '' : val);
      }
    }
    for (var i = 2; i < arguments.length; i++) T.append(node, arguments[i]);
    return node;
  };

  T.append = function (node, child) {
    if (child === undefined || child === null || child === false) return node;
    if (Array.isArray(child)) { child.forEach(function (c) { T.append(node, c); }); return node; }
    node.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
    return node;
  };

  /* A report value as an inline element (a <span> unless tag is given). */
  T.val = function (ptr, kind, tag) {
    return T.bind(T.el(tag || 'span', {class: 'v'}), ptr, kind);
  };

  /* A titled section appended to parent right away (charts need an attached canvas). */
  T.section = function (parent, title, note) {
    var sec = T.el('section', {class: 'card'}, T.el('h2', {text: title}));
    if (note) sec.appendChild(T.el('p', {class: 'note', text: note}));
    parent.appendChild(sec);
    return sec;
  };

  T.note = function (parent, text) {
    return parent.appendChild(T.el('p', {class: 'note', text: text}));
  };

  /* Key figures: items are [label, ptr, kind, unit] or [label, text] (text not from the report). */
  T.stats = function (parent, items) {
    var box = T.el('div', {class: 'stats'});
    items.forEach(function (it) {
      if (!it) return;
      var value = it.length === 2 ? T.el('span', {class: 'v', text: it[1]}) : T.val(it[1], it[2]);
      box.appendChild(T.el('div', {class: 'stat'},
        T.el('div', {class: 'stat-label', text: it[0]}),
        T.el('div', {class: 'stat-value'}, value, it[3] ? T.el('span', {class: 'unit', text: ' ' + it[3]}) : null)));
    });
    parent.appendChild(box);
    return box;
  };

  /* A key/value table: rows are [key, ptr, kind] (a report value) or [key, text-or-node]. */
  T.kvTable = function (parent, rows) {
    var tbody = T.el('tbody');
    rows.forEach(function (r) {
      if (!r) return;
      var td = r.length === 3 ? T.bind(T.el('td'), r[1], r[2]) : T.el('td', null, r[1] === undefined || r[1] === null ? T.DASH : r[1]);
      tbody.appendChild(T.el('tr', null, T.el('th', {text: r[0]}), td));
    });
    var t = T.el('table', {class: 'kv'}, tbody);
    parent.appendChild(t);
    return t;
  };

  /* A data table. columns: [{title, num (right-aligned, numeric sort), cls, tip}].
   * rows: arrays of cells; a cell is {ptr, kind} (a report value), {text, title, cls, sort}
   * (anything else), a Node, or a string. Click a header to sort; tables longer than
   * `scrollRows` rows scroll inside a box with a sticky header. */
  T.table = function (parent, columns, rows, opts) {
    opts = opts || {};
    var thead = T.el('thead');
    var htr = T.el('tr');
    columns.forEach(function (c, ci) {
      var th = T.el('th', {class: (c.num ? 'num ' : '') + 'sortable', title: c.tip || 'click to sort', text: c.title});
      th.addEventListener('click', function () { sortBy(ci, th); });
      htr.appendChild(th);
    });
    thead.appendChild(htr);
    var tbody = T.el('tbody');
    var frag = document.createDocumentFragment();
    rows.forEach(function (row) {
      var tr = T.el('tr');
      row.forEach(function (cell, ci) {
        var col = columns[ci] || {};
        var td;
        if (cell && cell.nodeType) {
          td = T.el('td', null, cell);
        } else if (cell && cell.ptr !== undefined) {
          td = T.bind(T.el('td'), cell.ptr, cell.kind || (col.num ? 'num' : 'str'), cell.root);
          if (cell.title) td.title = cell.title;
        } else if (cell && typeof cell === 'object') {
          td = T.el('td', {title: cell.title, text: cell.text === undefined || cell.text === null ? '' : String(cell.text)});
          if (cell.node) td.appendChild(cell.node);
          if (cell.cls) td.className = cell.cls;
          td._sv = cell.sort !== undefined ? cell.sort : cell.text;
        } else {
          td = T.el('td', {text: cell === undefined || cell === null ? T.DASH : String(cell)});
          td._sv = cell;
        }
        if (col.num) td.classList.add('num');
        if (col.cls) col.cls.split(/\s+/).forEach(function (c) { if (c) td.classList.add(c); });
        tr.appendChild(td);
      });
      if (opts.rowClass) {
        var rc = opts.rowClass(row);
        if (rc) tr.className = rc;
      }
      frag.appendChild(tr);
    });
    tbody.appendChild(frag);
    var table = T.el('table', {class: 'data' + (opts.compact ? ' compact' : '')}, thead, tbody);
    var wrap = T.el('div', {class: 'table-wrap' + (rows.length > (opts.scrollRows || 40) ? ' scroll' : '')}, table);
    parent.appendChild(wrap);

    var sortState = {col: -1, dir: 1};
    function sortBy(ci, th) {
      sortState.dir = sortState.col === ci ? -sortState.dir : (columns[ci].num ? -1 : 1);
      sortState.col = ci;
      var trs = Array.prototype.slice.call(tbody.rows);
      trs.sort(function (a, b) {
        var x = a.cells[ci] ? a.cells[ci]._sv : null;
        var y = b.cells[ci] ? b.cells[ci]._sv : null;
        if (x === y) return 0;
        if (x === null || x === undefined) return 1;   // missing values last either way
        if (y === null || y === undefined) return -1;
        if (typeof x === 'number' && typeof y === 'number') return sortState.dir * (x - y);
        return sortState.dir * String(x).localeCompare(String(y), undefined, {numeric: true});
      });
      var f = document.createDocumentFragment();
      trs.forEach(function (tr) { f.appendChild(tr); });
      tbody.appendChild(f);
      Array.prototype.forEach.call(htr.cells, function (h) { h.classList.remove('asc', 'desc'); });
      th.classList.add(sortState.dir > 0 ? 'asc' : 'desc');
    }
    return table;
  };

  /* A <details> with a summary line and content built lazily on first open (cheap for big JSON). */
  T.details = function (parent, summary, build, open) {
    var d = T.el('details', {class: 'more'}, T.el('summary', {text: summary}));
    var built = false;
    function fill() { if (!built) { built = true; build(d); } }
    d.addEventListener('toggle', function () { if (d.open) fill(); });
    if (open) { d.open = true; fill(); }
    parent.appendChild(d);
    return d;
  };

  T.pre = function (text, cls) { return T.el('pre', {class: cls || 'json', text: text}); };

  /* Nested config objects flattened to rows: {"TIMING": {"CLOCK_MHZ": 100}} -> TIMING.CLOCK_MHZ. */
  T.flatten = function (obj, prefix, out, path) {
    out = out || [];
    path = path || [];
    Object.keys(obj).forEach(function (k) {
      var v = obj[k];
      var p = path.concat([k]);
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) T.flatten(v, (prefix || '') + k + '.', out, p);
      else out.push({key: (prefix || '') + k, value: v, path: p});
    });
    return out;
  };

  function plainValue(v) {
    if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
    if (typeof v === 'string') return v;
    return JSON.stringify(v);
  }

  // ---- the common header -----------------------------------------------------------------------

  T.header = function (root, data) {
    var head = T.el('header', {class: 'top'});
    head.appendChild(T.el('h1', {text: data.title || ('tauvta ' + data.kind)}));
    var meta = T.el('div', {class: 'meta'});
    meta.appendChild(T.el('span', {class: 'badge', text: data.kind}));
    if (data.generated) meta.appendChild(T.el('span', null, 'generated ', T.el('time', {datetime: data.generated, text: data.generated})));
    if (data.version) meta.appendChild(T.el('span', {text: data.version}));
    head.appendChild(meta);
    if (data.command) head.appendChild(T.el('pre', {class: 'command', text: data.command}));
    root.appendChild(head);

    if (data.kind === 'oplog') {
      var cfgs = T.obj(T.get('/configs'));
      var names = Object.keys(cfgs);
      if (names.length) {
        T.details(root, 'Hardware configurations (' + names.length + ')', function (d) { configsTable(d, cfgs, names); });
      }
    } else if (data.config && typeof data.config === 'object') {
      var cfg = data.config;
      T.details(root, 'Hardware configuration' + (cfg.NAME ? ': ' + cfg.NAME : ''), function (d) {
        var rows = T.flatten(cfg).map(function (r) { return [r.key, plainValue(r.value)]; });
        var t = T.kvTable(d, rows);
        t.classList.add('config');
      });
    }
  };

  /* oplog: the report's configs map, one column per config; every cell points into the report. */
  function configsTable(parent, cfgs, names) {
    var keys = [];
    var seen = {};
    names.forEach(function (n) {
      T.flatten(T.obj(cfgs[n])).forEach(function (r) {
        var k = r.path.join('\u0000');
        if (!seen[k]) { seen[k] = true; keys.push(r.path); }
      });
    });
    var cols = [{title: 'key'}].concat(names.map(function (n) { return {title: n}; }));
    var rows = keys.map(function (path) {
      return [path.join('.')].concat(names.map(function (n) {
        var ptr = T.ptr.apply(null, ['configs', n].concat(path));
        var v = T.get(ptr);
        return v === undefined ? '' : {ptr: ptr, kind: typeof v === 'number' && !Number.isInteger(v) ? 'num' : 'int'};
      }));
    });
    T.table(parent, cols, rows, {compact: true, scrollRows: 1000});
  }

  // ---- charts ----------------------------------------------------------------------------------

  // Tableau-like palette, readable on white and distinguishable in greyscale screenshots.
  T.palette = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1',
               '#ff9da7', '#9c755f', '#bab0ac'];
  T.color = function (i, alpha) {
    var c = T.palette[((i % T.palette.length) + T.palette.length) % T.palette.length];
    if (alpha === undefined) return c;
    var n = parseInt(c.slice(1), 16);
    return 'rgba(' + (n >> 16) + ',' + ((n >> 8) & 255) + ',' + (n & 255) + ',' + alpha + ')';
  };

  /* Viridis-like ramp: t in [0, 1] -> css color. Rates of exactly 0 get the ramp's start. */
  var RAMP = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
  T.ramp = function (t) {
    t = Math.max(0, Math.min(1, isFinite(t) ? t : 0));
    var x = t * (RAMP.length - 1);
    var i = Math.min(RAMP.length - 2, Math.floor(x));
    var f = x - i;
    var a = RAMP[i], b = RAMP[i + 1];
    return 'rgb(' + Math.round(a[0] + f * (b[0] - a[0])) + ',' + Math.round(a[1] + f * (b[1] - a[1])) + ',' +
      Math.round(a[2] + f * (b[2] - a[2])) + ')';
  };
  T.rampCss = function () {
    return 'linear-gradient(to right, ' + [0, 0.25, 0.5, 0.75, 1].map(T.ramp).join(', ') + ')';
  };

  /* An axis: T.axis('GOPS', 'logarithmic', {min: 0}). */
  T.axis = function (title, type, extra) {
    var a = {type: type || 'linear', title: {display: true, text: title, font: {weight: 'bold'}}};
    if (type === 'logarithmic') {
      // The default log tick labels are 1/2/5 multiples in scientific notation; show them plainly.
      a.ticks = {callback: function (v) {
        var m = v / Math.pow(10, Math.floor(Math.log10(v) + 1e-9));
        return Math.abs(m - 1) < 1e-6 || Math.abs(m - 2) < 1e-6 || Math.abs(m - 5) < 1e-6 ? T.tick(v) : '';
      }};
    }
    return Object.assign(a, extra || {});
  };

  /* A short tick label: 0.001, 0.5, 20, 1,000, 1e+6. */
  T.tick = function (v) {
    if (v === 0) return '0';
    var a = Math.abs(v);
    if (a >= 1e6 || a < 1e-3) return v.toExponential(0);
    return group(String(Number(v.toPrecision(3))));
  };

  /* Short category label of a long name: the last path component, cut to n characters. */
  T.shortName = function (name, n) {
    n = n || 28;
    var s = String(name === undefined || name === null ? '' : name);
    var parts = s.split('/').filter(function (p) { return p; });
    if (parts.length > 1) s = parts.slice(-2).join('/');
    return s.length > n ? '\u2026' + s.slice(s.length - n + 1) : s;
  };

  /* Smallest and largest positive number of a list (for log-axis bounds); null when none. */
  T.posRange = function (values) {
    var lo = Infinity, hi = -Infinity;
    values.forEach(function (v) { if (T.isNum(v) && v > 0) { lo = Math.min(lo, v); hi = Math.max(hi, v); } });
    return lo <= hi ? [lo, hi] : null;
  };
  T.decadeFloor = function (v) { return Math.pow(10, Math.floor(Math.log10(v))); };
  T.decadeCeil = function (v) { return Math.pow(10, Math.ceil(Math.log10(v))); };

  /* Chart.js defaults for every chart: drawn synchronously (no animation), fills its box. */
  function applyDefaults() {
    if (typeof Chart === 'undefined') throw new Error('Chart.js is not loaded');
    Chart.defaults.animation = false;
    Chart.defaults.responsive = true;
    Chart.defaults.maintainAspectRatio = false;
    Chart.defaults.font.family = getComputedStyle(document.body).fontFamily || 'sans-serif';
    Chart.defaults.font.size = 12;
    Chart.defaults.color = '#333';
    Chart.defaults.plugins.legend.labels.boxWidth = 14;
    Chart.defaults.plugins.tooltip.mode = 'nearest';
    Chart.defaults.elements.point.radius = 3;
  }

  /* A chart in a box inside `parent` (a section). opts: height (px), categories (count: the
   * box gets wider than the page and scrolls sideways past ~8 px per category), note. */
  T.chart = function (parent, config, opts) {
    opts = opts || {};
    var box = T.el('div', {class: 'chart-box'});
    var height = opts.height || 360;
    box.style.height = height + 'px';
    var canvas = T.el('canvas', {role: 'img', 'aria-label': opts.label || ''});
    box.appendChild(canvas);
    var outer = box;
    if (opts.categories && opts.perCategory) {
      var minWidth = opts.categories * opts.perCategory + 120;
      if (minWidth > 1100) {
        box.style.width = minWidth + 'px';
        outer = T.el('div', {class: 'chart-scroll'}, box);
      }
    }
    parent.appendChild(outer);
    config.options = config.options || {};
    config.options.animation = false;
    var chart = new Chart(canvas, config);
    return chart;
  };

  /* A tooltip label callback that shows dataset label and a formatted value (y, or x for
   * horizontal charts) with a unit. */
  T.tooltipValue = function (unit, axis) {
    return function (ctx) {
      var v = ctx.parsed[axis || 'y'];
      if (Array.isArray(ctx.raw)) v = ctx.raw[1];
      return (ctx.dataset.label ? ctx.dataset.label + ': ' : '') + T.fmtNum(v) + (unit ? ' ' + unit : '');
    };
  };

  // ---- main ------------------------------------------------------------------------------------

  T.main = function () {
    var root = document.getElementById('app');
    try {
      var t0 = performance.now();
      var data = T.parseData();
      T.data = data;
      T.report = data.report === undefined ? null : data.report;
      applyDefaults();
      T.header(root, data);
      var page = T.pages[data.kind];
      if (typeof page !== 'function') throw new Error('no page renderer for kind "' + data.kind + '"');
      var body = T.el('main', {class: 'page page-' + data.kind});
      root.appendChild(body);
      if (T.report === null || typeof T.report !== 'object') throw new Error('data.report is not an object');
      page(data, body);
      root.appendChild(T.el('footer', {text: 'Rendered in ' + Math.round(performance.now() - t0) +
        ' ms. Click a table header to sort; hover a chart for values; numbers are the report\u2019s.'}));
      window.tauvtaReady = true;
    } catch (e) {
      window.tauvtaError = (e && e.stack) || String(e);
      // The checker fails a page on any console error: the reason reaches it through here.
      console.error('tauvta report failed: ' + ((e && e.stack) || e));
      root.appendChild(T.el('div', {class: 'error', text: 'This report could not be rendered: ' + ((e && e.message) || e)}));
    }
  };

  return T;
})();
