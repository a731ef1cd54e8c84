/* tauvta HTML report, kind "precision": per-layer fixed-point formats tuned on the simulator.
 * report: DIR/result.json of `tauvta precision tune` (steps[] with per-layer formats, overflow
 * rates, format_max and observed_max; holdout; overflow {start, tuned} with per-channel rates and
 * an H×W overflow map per accelerator layer). extra: {bits} (the activation width). */
tauvta.pages.precision = function (data, root) {
  var T = tauvta;
  var R = data.report;
  var extra = T.obj(data.extra);
  var steps = T.arr(R.steps);
  var bits = T.isNum(extra.bits) ? extra.bits : T.obj(R.quantization).activation_bits;

  // The best step by its number (best_step), else the last one.
  var bestIdx = steps.length - 1;
  steps.forEach(function (s, i) { if (T.obj(s).step === R.best_step) bestIdx = i; });
  var best = T.obj(steps[bestIdx]);
  var start = T.obj(steps[0]);

  function S(i) { return T.ptr.apply(null, ['steps', i].concat(Array.prototype.slice.call(arguments, 1))); }

  /* "Q3.4" -> {int: 3, frac: 4}; null for anything else. */
  function parseQ(f) {
    var m = /^Q(-?\d+)\.(-?\d+)$/.exec(String(f || ''));
    return m ? {int: Number(m[1]), frac: Number(m[2])} : null;
  }

  var SUP = {'-': '\u207b', 0: '\u2070', 1: '\u00b9', 2: '\u00b2', 3: '\u00b3', 4: '\u2074', 5: '\u2075', 6: '\u2076',
             7: '\u2077', 8: '\u2078', 9: '\u2079'};
  function pow2Label(k) {
    return '2' + String(k).split('').map(function (c) { return SUP[c] || c; }).join('');
  }

  // ---- summary ---------------------------------------------------------------------------------
  var sec = T.section(root, 'Summary');
  var hold = T.obj(R.holdout);
  T.stats(sec, [
    ['best step', '/best_step', 'int'],
    bestIdx >= 0 ? ['tuning-split accuracy (best step)', S(bestIdx, 'accuracy'), 'pct'] : null,
    steps.length ? ['tuning-split accuracy (start)', S(0, 'accuracy'), 'pct'] : null,
    hold.float !== undefined ? ['held-out accuracy: float model', '/holdout/float', 'pct'] : null,
    hold.start !== undefined ? ['held-out: start formats', '/holdout/start', 'pct'] : null,
    hold.tuned !== undefined ? ['held-out: tuned formats', '/holdout/tuned', 'pct'] : null,
    hold.images !== undefined ? ['held-out images', '/holdout/images', 'int'] : null,
    ['evaluations', String(steps.length)]
  ]);
  T.kvTable(sec, [
    R.model !== undefined ? ['model', '/model', 'str'] : null,
    R.config_name !== undefined ? ['config', '/config_name', 'str'] : null,
    bits !== undefined ? ['activation bits', T.isNum(extra.bits) ? String(bits) : T.fmt(bits)] : null,
    R.mode !== undefined ? ['mode', '/mode', 'str'] : null,
    R.start !== undefined ? ['start formats', '/start', 'str'] : null,
    R.threshold !== undefined ? ['overflow threshold', '/threshold', 'rate'] : null,
    R.limit !== undefined ? ['evaluation limit', '/limit', 'int'] : null,
    R.stop_reason !== undefined ? ['stopped', '/stop_reason', 'str'] : null,
    R.tuning_split !== undefined ? ['tuning split (images)', '[' + T.arr(R.tuning_split).join(', ') + ')'] : null,
    R.holdout_split !== undefined ? ['held-out split (images)', '[' + T.arr(R.holdout_split).join(', ') + ')'] : null,
    hold.integer_reference_identical !== undefined ?
      ['accelerator = integer reference on the held-out split', '/holdout/integer_reference_identical', 'str'] : null
  ]);

  if (hold.float !== undefined || hold.start !== undefined || hold.tuned !== undefined) {
    sec.appendChild(T.el('h3', {text: 'Held-out split' + (T.isNum(hold.images) ? ' (' + hold.images + ' images)' : '')}));
    var f = hold.float;
    T.table(sec, [{title: 'formats'}, {title: 'accuracy', num: true}, {title: 'points vs float', num: true}],
      [['float model', 'float'], ['start formats' + (R.start ? ' (' + R.start + ')' : ''), 'start'],
       ['tuned formats' + (T.isNum(R.best_step) ? ' (step ' + R.best_step + ')' : ''), 'tuned']].filter(function (r) {
        return hold[r[1]] !== undefined;
      }).map(function (r) {
        var v = hold[r[1]];
        var d = r[1] !== 'float' && T.isNum(v) && T.isNum(f) ? 100 * (v - f) : null;
        return [{text: r[0]}, {ptr: T.ptr('holdout', r[1]), kind: 'pct'},
                {text: d === null ? '' : (d > 0 ? '+' : '') + d.toFixed(2), sort: d}];
      }), {compact: true});
  }

  // ---- accuracy per step -----------------------------------------------------------------------
  sec = T.section(root, 'Accuracy per tuning step', 'Top-1 accuracy on the tuning split after each evaluation; hover a point for the move it made.');
  var accPts = [], accPtrs = [], actions = [];
  steps.forEach(function (s, i) {
    s = T.obj(s);
    if (!T.isNum(s.accuracy)) return;
    var x = T.isNum(s.step) ? s.step : i;
    accPts.push({x: x, y: s.accuracy * 100});
    accPtrs.push({x: T.isNum(s.step) ? S(i, 'step') : null, y: {ptr: S(i, 'accuracy'), scale: 100}});
    actions.push(s.action || (i === 0 ? 'start formats' : ''));
  });
  if (!accPts.length) {
    T.note(sec, 'No step has an accuracy.');
  } else {
    T.chart(sec, {
      type: 'scatter',
      data: {datasets: [{
        label: 'tuning-split accuracy', data: accPts, tauvtaPtrs: accPtrs, showLine: true, borderColor: T.color(0),
        backgroundColor: accPts.map(function (p) { return p.x === R.best_step ? T.color(2) : T.color(0); }),
        pointRadius: accPts.map(function (p) { return p.x === R.best_step ? 7 : 4; })
      }]},
      options: {
        scales: {x: T.axis('step', 'linear', {ticks: {precision: 0}}), y: T.axis('accuracy (%)', 'linear')},
        plugins: {tooltip: {callbacks: {
          title: function (items) { return 'step ' + items[0].parsed.x + (items[0].parsed.x === R.best_step ? ' (best)' : ''); },
          label: function (ctx) { return T.fmtNum(ctx.parsed.y) + '%'; },
          afterLabel: function (ctx) {
            var a = actions[ctx.dataIndex] || '';
            // long actions (every layer moved at once) wrap into lines of a few moves
            return a.split(', ').reduce(function (lines, part) {
              if (!lines.length || lines[lines.length - 1].length > 90) lines.push(part); else lines[lines.length - 1] += ', ' + part;
              return lines;
            }, []);
          }
        }}}
      }
    }, {height: 300});
  }

  // ---- ranges vs formats (hls4ml-style profile) ------------------------------------------------
  sec = T.section(root, 'Value ranges vs formats',
    'Per layer: the range a format represents (from its smallest step 2\u207b\u1da0 to its largest value) as a bar, and the ' +
    'largest real value seen before the cast as a marker, on a log\u2082 axis. A marker right of its bar overflows.');
  var names = [];
  var seen = {};
  [bestIdx, 0].forEach(function (si) {
    T.arr(T.obj(steps[si]).layers).forEach(function (l) {
      var v = T.obj(l).value;
      if (v !== undefined && !seen[v]) { seen[v] = true; names.push(v); }
    });
  });
  function layerIndex(si, value) {
    var ls = T.arr(T.obj(steps[si]).layers);
    for (var j = 0; j < ls.length; j++) if (T.obj(ls[j]).value === value) return j;
    return -1;
  }
  function rangeSeries(si) {
    var bars = [], barPtrs = [], obs = [], obsPtrs = [];
    names.forEach(function (v) {
      var j = layerIndex(si, v);
      var l = T.obj(T.arr(T.obj(steps[si]).layers)[j]);
      var q = parseQ(l.format);
      var fmax = l.format_max, fmaxPtr = S(si, 'layers', j, 'format_max');
      if (!(T.isNum(fmax) && fmax > 0) && q && T.isNum(bits)) {  // derived when the field is absent
        fmax = (Math.pow(2, bits - 1) - 1) / Math.pow(2, q.frac);
        fmaxPtr = null;
      }
      if (j >= 0 && q && T.isNum(fmax) && fmax > 0) {
        bars.push([-q.frac, Math.log2(fmax)]);
        barPtrs.push([null, fmaxPtr ? {ptr: fmaxPtr, fn: 'log2'} : null]);
      } else {
        bars.push(null);
        barPtrs.push(null);
      }
      if (j >= 0 && T.isNum(l.observed_max) && l.observed_max > 0) {
        obs.push(Math.log2(l.observed_max));
        obsPtrs.push({ptr: S(si, 'layers', j, 'observed_max'), fn: 'log2'});
      } else {
        obs.push(null);
        obsPtrs.push(null);
      }
    });
    return {bars: bars, barPtrs: barPtrs, obs: obs, obsPtrs: obsPtrs};
  }
  if (!names.length) {
    T.note(sec, 'No step lists its layers.');
  } else {
    var rs = rangeSeries(bestIdx);
    var r0 = rangeSeries(0);
    var bestStepNo = T.isNum(best.step) ? best.step : bestIdx;
    var rdatasets = [];
    if (bestIdx !== 0) {
      rdatasets.push({label: 'start format (step ' + (T.isNum(start.step) ? start.step : 0) + ')', data: r0.bars, tauvtaPtrs: r0.barPtrs,
                      backgroundColor: 'rgba(160,160,160,0.35)', borderColor: '#999', borderWidth: 1, barPercentage: 0.9,
                      grouped: false, order: 3});
    }
    rdatasets.push({label: 'best format (step ' + bestStepNo + ')', data: rs.bars, tauvtaPtrs: rs.barPtrs,
                    backgroundColor: T.color(0, 0.45), borderColor: T.color(0), borderWidth: 1,
                    barPercentage: bestIdx !== 0 ? 0.5 : 0.8, grouped: false, order: 2});
    if (bestIdx !== 0 && r0.obs.some(function (v) { return v !== null; })) {
      rdatasets.push({type: 'line', label: 'observed max (start)', data: r0.obs, tauvtaPtrs: r0.obsPtrs, showLine: false,
                      pointStyle: 'rectRot', pointRadius: 5, backgroundColor: '#999', borderColor: '#666', order: 1});
    }
    if (rs.obs.some(function (v) { return v !== null; })) {
      rdatasets.push({type: 'line', label: 'observed max (best)', data: rs.obs, tauvtaPtrs: rs.obsPtrs, showLine: false,
                      pointStyle: 'triangle', rotation: 90, pointRadius: 6, backgroundColor: T.color(2), borderColor: T.color(2), order: 0});
    } else {
      T.note(sec, 'The report has no observed_max values: only the formats\u2019 ranges are drawn.');
    }
    var per = names.length > 60 ? 14 : 24;
    T.chart(sec, {
      type: 'bar',
      data: {labels: names.map(function (n) { return T.shortName(n, 36); }), datasets: rdatasets},
      options: {
        indexAxis: 'y',
        scales: {
          x: T.axis('value (log\u2082 scale)', 'linear', {ticks: {stepSize: 1, callback: function (v) {
            return Number.isInteger(v) ? pow2Label(v) : '';
          }}}),
          y: T.axis('layer output', 'category', {ticks: {autoSkip: false}})
        },
        plugins: {tooltip: {callbacks: {
          title: function (items) { return names[items[0].dataIndex]; },
          label: function (ctx) {
            var raw = ctx.raw;
            if (Array.isArray(raw)) {
              return ctx.dataset.label + ': ' + T.fmtNum(Math.pow(2, raw[0])) + ' \u2026 ' + T.fmtNum(Math.pow(2, raw[1]));
            }
            return ctx.dataset.label + ': ' + T.fmtNum(Math.pow(2, ctx.parsed.x));
          }
        }}}
      }
    }, {height: 90 + per * names.length});
  }

  // ---- overflow rate per layer -----------------------------------------------------------------
  var ov = T.obj(R.overflow);
  var ovStart = T.arr(ov.start), ovTuned = T.arr(ov.tuned);
  sec = T.section(root, 'Overflow rate per layer',
    'Share of a layer\u2019s outputs that saturated at the cast, with the start formats and the tuned ones (log axis; a rate of 0 has no bar).');
  (function () {
    var labels = [], sd = [], sp = [], td = [], tp = [], full = [];
    var src;
    if (ovStart.length || ovTuned.length) {
      src = 'overflow';
      var order = [];
      var idx = {};
      ovStart.concat(ovTuned).forEach(function (l) { var v = T.obj(l).value; if (v !== undefined && idx[v] === undefined) { idx[v] = order.length; order.push(v); } });
      order.forEach(function (v) {
        labels.push(T.shortName(v, 24));
        full.push(v);
        var si = -1, ti = -1;
        ovStart.forEach(function (l, k) { if (T.obj(l).value === v) si = k; });
        ovTuned.forEach(function (l, k) { if (T.obj(l).value === v) ti = k; });
        var a = si >= 0 ? ovStart[si].overflow_rate : null, b = ti >= 0 ? ovTuned[ti].overflow_rate : null;
        sd.push(T.isNum(a) && a > 0 ? a : null);
        sp.push(T.isNum(a) && a > 0 ? T.ptr('overflow', 'start', si, 'overflow_rate') : null);
        td.push(T.isNum(b) && b > 0 ? b : null);
        tp.push(T.isNum(b) && b > 0 ? T.ptr('overflow', 'tuned', ti, 'overflow_rate') : null);
      });
    } else {  // no overflow section: the steps' own per-layer rates
      src = 'steps';
      names.forEach(function (v) {
        labels.push(T.shortName(v, 24));
        full.push(v);
        var a = layerIndex(0, v), b = layerIndex(bestIdx, v);
        var av = a >= 0 ? T.obj(start.layers[a]).overflow_rate : null, bv = b >= 0 ? T.obj(best.layers[b]).overflow_rate : null;
        sd.push(T.isNum(av) && av > 0 ? av : null);
        sp.push(T.isNum(av) && av > 0 ? S(0, 'layers', a, 'overflow_rate') : null);
        td.push(T.isNum(bv) && bv > 0 ? bv : null);
        tp.push(T.isNum(bv) && bv > 0 ? S(bestIdx, 'layers', b, 'overflow_rate') : null);
      });
    }
    var vals = sd.concat(td).filter(function (v) { return v !== null; });
    if (!vals.length) {
      T.note(sec, 'No layer overflows, with the start formats or the tuned ones.');
      return;
    }
    var ds = [{label: 'start formats', data: sd, tauvtaPtrs: sp, backgroundColor: T.color(9)},
              {label: src === 'overflow' ? 'tuned formats' : 'best step', data: td, tauvtaPtrs: tp, backgroundColor: T.color(0)}];
    var yr = T.posRange(vals);
    var lo = T.decadeFloor(yr[0]) / 10;  // a decade of room below the smallest bar
    if (T.isNum(R.threshold) && R.threshold > 0) {
      ds.push({type: 'line', label: 'threshold', data: labels.map(function () { return R.threshold; }),
               tauvtaPtrs: labels.map(function () { return '/threshold'; }), borderColor: T.color(2), borderDash: [6, 4],
               pointRadius: 0, borderWidth: 2});
      lo = Math.min(lo, T.decadeFloor(R.threshold) / 10);
    }
    T.chart(sec, {
      type: 'bar',
      data: {labels: labels, datasets: ds},
      options: {
        scales: {x: T.axis('layer output', 'category', {ticks: {autoSkip: true, maxRotation: 60}}),
                 y: T.axis('overflow rate (share of outputs)', 'logarithmic', {min: lo, max: Math.max(1, T.decadeCeil(yr[1]))})},
        plugins: {tooltip: {callbacks: {
          title: function (items) { return full[items[0].dataIndex]; },
          label: function (ctx) { return ctx.dataset.label + ': ' + T.fmt(ctx.parsed.y, 'rate'); }
        }}}
      }
    }, {height: 340, categories: labels.length * 2, perCategory: 10});
  })();

  // ---- overflow map of one layer ---------------------------------------------------------------
  sec = T.section(root, 'Overflow map',
    'Where in the output a layer saturates: the share of channels overflowing at each position (averaged over the ' +
    'images), and the rate per output channel. Both maps share one color scale.');
  (function () {
    var order = [];
    var byValue = {};
    [['start', ovStart], ['tuned', ovTuned]].forEach(function (pair) {
      pair[1].forEach(function (l, k) {
        var v = T.obj(l).value;
        if (v === undefined) return;
        if (!byValue[v]) { byValue[v] = {}; order.push(v); }
        byValue[v][pair[0]] = k;
      });
    });
    if (!order.length) {
      T.note(sec, 'The report has no overflow maps (report.overflow).');
      return;
    }
    // Start with the layer that overflowed most with the start formats, preferring layers with
    // a spatial map (more than one position): the most telling picture.
    var first = order[0], worst = -1;
    order.forEach(function (v) {
      var k = byValue[v].start;
      var l = k === undefined ? {} : T.obj(ovStart[k]);
      var m = T.obj(l.map);
      var score = (T.isNum(l.overflow_rate) ? l.overflow_rate : 0) + (m.height * m.width > 1 ? 2 : 0);
      if (score > worst) { worst = score; first = v; }
    });
    var sel = T.el('select', {id: 'precision-map-layer'});
    order.forEach(function (v) {
      var k = byValue[v].tuned !== undefined ? ovTuned[byValue[v].tuned] : ovStart[byValue[v].start];
      var node = T.obj(k).layer;  // the layer that writes the value
      sel.appendChild(T.el('option', {value: v, text: v + (node ? '  (' + node + ')' : ''), selected: v === first}));
    });
    sec.appendChild(T.el('div', {class: 'controls'}, T.el('label', {for: 'precision-map-layer', text: 'layer output'}), sel));
    var bar = T.el('div', {class: 'bar'});
    bar.style.background = T.rampCss();
    var maxSpan = T.el('span');
    sec.appendChild(T.el('div', {class: 'colorbar'}, T.el('span', {text: '0'}), bar, maxSpan,
                         T.el('span', {text: '(overflow rate; the scale\u2019s top is the largest rate of the two maps)'})));
    var row = sec.appendChild(T.el('div', {class: 'row'}));
    var cols = {start: row.appendChild(T.el('div', {class: 'col'})), tuned: row.appendChild(T.el('div', {class: 'col'}))};
    var heads = {};
    ['start', 'tuned'].forEach(function (w) { heads[w] = cols[w].appendChild(T.el('h3')); });
    var charts = {};
    var chanBox = sec.appendChild(T.el('div'));
    chanBox.appendChild(T.el('h3', {text: 'Overflow rate per output channel'}));
    var chanChart = null;
    var info = sec.appendChild(T.el('p', {class: 'note'}));

    function mapOf(which, value) {
      var k = byValue[value][which];
      if (k === undefined) return null;
      var l = T.obj((which === 'start' ? ovStart : ovTuned)[k]);
      var m = T.obj(l.map);
      var rates = T.arr(m.rates);
      if (!T.isNum(m.height) || !T.isNum(m.width) || rates.length !== m.height * m.width || !rates.length) return {k: k, l: l, bad: true};
      return {k: k, l: l, H: m.height, W: m.width, rates: rates};
    }

    function draw() {
      var v = sel.value;
      var maps = {start: mapOf('start', v), tuned: mapOf('tuned', v)};
      // the shared color scale's top, and which value it is (shown with its pointer)
      var vmax = 0, vmaxPtr = null;
      ['start', 'tuned'].forEach(function (w) {
        var m = maps[w];
        if (!m || m.bad) return;
        m.rates.forEach(function (r, idx) {
          if (T.isNum(r) && r > vmax) { vmax = r; vmaxPtr = T.ptr('overflow', w, m.k, 'map', 'rates', idx); }
        });
      });
      if (vmaxPtr) T.bind(maxSpan, vmaxPtr, 'rate');
      else { maxSpan.removeAttribute('data-ptr'); maxSpan.textContent = '0'; }
      var notes = [];
      ['start', 'tuned'].forEach(function (w) {
        var m = maps[w];
        heads[w].textContent = (w === 'start' ? 'Start formats' : 'Tuned formats') +
          (m && !m.bad ? ': ' + m.l.format + ', ' + m.H + '\u00d7' + m.W : '');
        if (!m || m.bad) {
          notes.push((w === 'start' ? 'start' : 'tuned') + ': ' + (m ? 'map size does not match its rates' : 'no map'));
          if (charts[w]) { charts[w].destroy(); charts[w] = null; cols[w].querySelector('.chart-box').remove(); }
          return;
        }
        var pts = [], ptrs = [], colors = [];
        for (var y = 0; y < m.H; y++) {
          for (var x = 0; x < m.W; x++) {
            var idx = y * m.W + x;
            var r = T.isNum(m.rates[idx]) ? m.rates[idx] : 0;
            pts.push({x: x, y: y, v: r});
            ptrs.push(T.isNum(m.rates[idx]) ? {v: T.ptr('overflow', w, m.k, 'map', 'rates', idx)} : null);
            colors.push(T.ramp(vmax > 0 ? r / vmax : 0));
          }
        }
        var ds = {label: 'overflow rate', data: pts, tauvtaPtrs: ptrs, backgroundColor: colors, borderWidth: 0,
                  pointStyle: 'rect', pointHoverRadius: cellRadius, pointRadius: cellRadius, W: m.W, H: m.H};
        var intTicks = {precision: 0, callback: function (t) { return Number.isInteger(t) ? t : ''; }};
        var scales = {
          x: T.axis('column', 'linear', {min: -0.5, max: m.W - 0.5, grid: {display: false}, ticks: intTicks}),
          y: T.axis('row', 'linear', {min: -0.5, max: m.H - 0.5, reverse: true, grid: {display: false}, ticks: intTicks})
        };
        if (charts[w]) {
          fitBox(charts[w].canvas.parentNode, cols[w], m.W, m.H);
          charts[w].data.datasets = [ds];
          charts[w].options.scales = scales;
          charts[w].resize();
          charts[w].update();
        } else {
          charts[w] = T.chart(cols[w], {
            type: 'scatter', data: {datasets: [ds]},
            options: {scales: scales, plugins: {legend: {display: false}, tooltip: {callbacks: {
              title: function (items) { var p = items[0].raw; return 'row ' + p.y + ', column ' + p.x; },
              label: function (ctx) { return 'overflow rate ' + T.fmt(ctx.raw.v, 'rate'); }
            }}}}
          }, {height: 360});
          fitBox(charts[w].canvas.parentNode, cols[w], m.W, m.H);
          charts[w].resize();
        }
      });
      // per-channel rates: start and tuned side by side
      var cds = [];
      ['start', 'tuned'].forEach(function (w, n) {
        var k = byValue[v][w];
        if (k === undefined) return;
        var cr = T.arr(T.obj((w === 'start' ? ovStart : ovTuned)[k]).channel_rates);
        if (!cr.length) return;
        cds.push({label: w === 'start' ? 'start formats' : 'tuned formats', backgroundColor: n === 0 ? T.color(9) : T.color(0),
                  data: cr.map(function (r) { return T.isNum(r) ? r : null; }),
                  tauvtaPtrs: cr.map(function (r, c) { return T.isNum(r) ? T.ptr('overflow', w, k, 'channel_rates', c) : null; })});
      });
      var nch = cds.reduce(function (a, d) { return Math.max(a, d.data.length); }, 0);
      var clabels = [];
      for (var c = 0; c < nch; c++) clabels.push(String(c));
      if (!cds.length) {
        notes.push('no per-channel rates');
        if (chanChart) { chanChart.destroy(); chanChart = null; chanBox.querySelector('.chart-box').remove(); }
      } else if (chanChart) {
        chanChart.data = {labels: clabels, datasets: cds};
        chanChart.update();
      } else {
        chanChart = T.chart(chanBox, {
          type: 'bar', data: {labels: clabels, datasets: cds},
          options: {scales: {x: T.axis('output channel', 'category', {ticks: {autoSkip: true}}),
                             y: T.axis('overflow rate', 'linear', {beginAtZero: true})},
                    plugins: {tooltip: {callbacks: {
                      title: function (items) { return 'channel ' + items[0].label; },
                      label: function (ctx) { return ctx.dataset.label + ': ' + T.fmt(ctx.parsed.y, 'rate'); }
                    }}}}
        }, {height: 260});
      }
      info.textContent = notes.length ? 'Not shown: ' + notes.join('; ') + '.' : '';
    }

    /* Size a map's box so that its plot area has the map's aspect ratio (square cells): as wide
     * as the column allows, at most 460 px of plot height. The axes take about AX px. */
    var AX_W = 64, AX_H = 58;
    function fitBox(box, col, W, H) {
      var avail = Math.max(160, col.clientWidth - AX_W);
      var plotH = Math.min(460, avail * H / W);
      var plotW = plotH * W / H;
      box.style.height = Math.round(Math.max(120, plotH) + AX_H) + 'px';
      box.style.width = Math.round(Math.min(avail, plotW) + AX_W) + 'px';
    }

    /* Cells drawn as squares filling their grid position: Chart.js 'rect' points are squares of
     * side radius*sqrt(2); the larger of the two cell sides (they are nearly equal after fitBox)
     * leaves no hairline gaps. */
    function cellRadius(ctx) {
      var ch = ctx.chart, ds = ch.data.datasets[0] || {};
      var a = ch.chartArea;
      if (!a || !ds.W) return 3;
      var side = Math.max((a.right - a.left) / ds.W, (a.bottom - a.top) / ds.H);
      return Math.max(0.75, (side + 0.5) * Math.SQRT1_2);
    }

    sel.addEventListener('change', draw);
    draw();
  })();

  // ---- steps table -----------------------------------------------------------------------------
  sec = T.section(root, 'Steps (' + steps.length + ')');
  T.table(sec, [{title: 'step', num: true}, {title: 'accuracy', num: true}, {title: 'correct', num: true},
                {title: 'images', num: true}, {title: 's', num: true}, {title: 'action', cls: 'wrap'}],
    steps.map(function (s, i) {
      s = T.obj(s);
      return [{ptr: S(i, 'step'), kind: 'int'}, {ptr: S(i, 'accuracy'), kind: 'pct'}, {ptr: S(i, 'correct'), kind: 'int'},
              {ptr: S(i, 'images'), kind: 'int'}, {ptr: S(i, 'seconds'), kind: 'num'},
              s.action !== undefined ? {ptr: S(i, 'action'), kind: 'str'} : {text: i === 0 ? 'start formats' : ''}];
    }), {rowClass: function (row) { return T.get(row[0].ptr) === R.best_step ? 'best' : ''; }});

  // ---- per-layer formats -----------------------------------------------------------------------
  if (names.length) {
    sec = T.section(root, 'Layers: start vs best step',
      'Formats, overflow rates and ranges per layer output, with the start formats (step ' + (T.isNum(start.step) ? start.step : 0) +
      ') and the best step (' + (T.isNum(best.step) ? best.step : bestIdx) + ').');
    var rows = names.map(function (v) {
      var a = layerIndex(0, v), b = layerIndex(bestIdx, v);
      function cell(si, j, key, kind) { return j >= 0 ? {ptr: S(si, 'layers', j, key), kind: kind} : {text: T.DASH}; }
      return [
        b >= 0 ? cell(bestIdx, b, 'value', 'str') : cell(0, a, 'value', 'str'),
        b >= 0 ? cell(bestIdx, b, 'node', 'str') : cell(0, a, 'node', 'str'),
        b >= 0 ? cell(bestIdx, b, 'op', 'str') : cell(0, a, 'op', 'str'),
        cell(0, a, 'format', 'str'), cell(bestIdx, b, 'format', 'str'),
        cell(0, a, 'overflow_rate', 'rate'), cell(bestIdx, b, 'overflow_rate', 'rate'),
        cell(bestIdx, b, 'observed_max', 'num'), cell(bestIdx, b, 'format_max', 'num')
      ];
    });
    T.table(sec, [{title: 'output', cls: 'name'}, {title: 'node', cls: 'name'}, {title: 'op'}, {title: 'start format'},
                  {title: 'best format'}, {title: 'start overflow', num: true}, {title: 'best overflow', num: true},
                  {title: 'observed max', num: true}, {title: 'format max', num: true}], rows);
  }
};
