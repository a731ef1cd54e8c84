/* tauvta HTML report, kind "dse": hardware design-space exploration across precisions.
 * report: DIR/summary.json of `tauvta dse` (options; precisions[] with the best design,
 * counts, feature importance and the strategy's summary).
 * extra: {evaluations: [every line of DIR/evaluations.jsonl]} — each design evaluated, in order.
 * Numbers from the evaluations point into data.extra (data-root="extra"). */
tauvta.pages.dse = function (data, root) {
  var T = tauvta;
  var R = data.report;
  var precs = T.arr(R.precisions);
  var evals = T.arr(T.obj(data.extra).evaluations);
  var opts = T.obj(R.options);

  var RESOURCES = [['lut', 'LUT'], ['dsp', 'DSP'], ['bram36', 'BRAM36'], ['ff', 'FF'], ['uram', 'URAM']];
  function Pp(i) { return T.ptr.apply(null, ['precisions', i].concat(Array.prototype.slice.call(arguments, 1))); }
  function Pe(k) { return T.ptr.apply(null, ['evaluations', k].concat(Array.prototype.slice.call(arguments, 1))); }
  function precLabel(p) { return T.isNum(p) ? 'W' + p + 'A' + p : String(p); }

  // precision -> color index, in the order the summary lists them (evaluations may add others)
  var precOrder = [];
  precs.forEach(function (p) { var v = T.obj(p).precision; if (precOrder.indexOf(v) < 0) precOrder.push(v); });
  evals.forEach(function (e) { var v = T.obj(e).precision; if (v !== undefined && precOrder.indexOf(v) < 0) precOrder.push(v); });
  function precColor(p, a) { return T.color(Math.max(0, precOrder.indexOf(p)), a); }

  // ---- summary ---------------------------------------------------------------------------------
  var sec = T.section(root, 'Exploration');
  var optRows = [];
  Object.keys(opts).forEach(function (k) {
    var v = opts[k];
    if (v === null || typeof v !== 'object') optRows.push([k.replace(/_/g, ' '), T.ptr('options', k), typeof v === 'number' && !Number.isInteger(v) ? 'num' : 'int']);
    else if (Array.isArray(v) && v.every(function (x) { return typeof x !== 'object'; })) optRows.push([k.replace(/_/g, ' '), v.join(', ')]);
  });
  var statItems = [['precisions', String(precs.length)]];
  precs.forEach(function (p, i) {
    statItems.push([precLabel(T.obj(p).precision) + ': designs evaluated', Pp(i, 'evaluated'), 'int']);
    statItems.push([precLabel(T.obj(p).precision) + ': best GOPS', Pp(i, 'best', 'gops'), 'num']);
  });
  statItems.push(['designs timed (evaluations.jsonl)', String(evals.length)]);
  T.stats(sec, statItems);
  T.kvTable(sec, optRows);
  if (opts.board && typeof opts.board === 'object') {
    T.details(sec, 'Board memory side the designs were timed with' + (opts.board.NAME ? ' (' + opts.board.NAME + ')' : ''), function (d) {
      T.kvTable(d, T.flatten(opts.board).map(function (r) {
        var v = r.value;
        return [r.key, T.ptr.apply(null, ['options', 'board'].concat(r.path)), typeof v === 'number' && !Number.isInteger(v) ? 'num' : 'int'];
      })).classList.add('config');
    });
  }

  // ---- best design per precision ---------------------------------------------------------------
  sec = T.section(root, 'Best design per precision');
  if (!precs.length) {
    T.note(sec, 'The summary lists no precision.');
  } else {
    // one column per precision (there are few), one row per figure
    var FIG = [
      ['design', ['best', 'config', 'NAME'], 'str'], ['GOPS', ['best', 'gops'], 'num'], ['latency (ms)', ['best', 'latency_ms'], 'num'],
      ['peak GOPS', ['best', 'peak_gops'], 'num'], ['clock (MHz)', ['best', 'clock_mhz'], 'num'], ['fmax (MHz)', ['best', 'fmax_mhz'], 'num'],
      ['critical stage', ['best', 'critical_stage'], 'str'],
      ['LUT', ['best', 'resources', 'lut'], 'int'], ['FF', ['best', 'resources', 'ff'], 'int'], ['DSP', ['best', 'resources', 'dsp'], 'int'],
      ['BRAM36', ['best', 'resources', 'bram36'], 'num'], ['URAM', ['best', 'resources', 'uram'], 'num'],
      ['verdict', ['best', 'reason'], 'str'], ['tuning budget', ['best', 'budget'], 'int'],
      ['evaluations to 95% of the best', ['best', 'evaluations_to_95pct'], 'int'],
      ['designs evaluated', ['evaluated'], 'int'], ['performance evaluations', ['performance_evaluations'], 'int'],
      ['feasible designs', ['feasible'], 'int'], ['pruned space', ['pruned_size'], 'int'], ['raw space', ['raw_size'], 'num'],
      ['search wall time (s)', ['wall_seconds'], 'num']
    ];
    var cols = [{title: 'precision'}].concat(precs.map(function (p) { return {title: precLabel(T.obj(p).precision)}; }));
    var rows = FIG.filter(function (f) {
      return precs.some(function (p, i) { return T.get(Pp.apply(null, [i].concat(f[1]))) !== undefined; });
    }).map(function (f) {
      return [{text: f[0]}].concat(precs.map(function (p, i) {
        var ptr = Pp.apply(null, [i].concat(f[1]));
        if (f[1][0] === 'best' && !(T.obj(p).best && typeof p.best === 'object')) return {text: f[0] === 'design' ? 'no feasible design' : T.DASH};
        if (f[0] === 'design' && T.get(ptr) === undefined && T.obj(p.best).key !== undefined) ptr = Pp(i, 'best', 'key');
        return {ptr: ptr, kind: f[2]};
      }));
    });
    T.table(sec, cols, rows, {compact: true});
    // the tasks of each best design with their schedules
    precs.forEach(function (p, i) {
      var tasks = T.arr(T.obj(T.obj(p).best).tasks);
      if (!tasks.length) return;
      T.details(sec, precLabel(p.precision) + ': the best design\u2019s ' + tasks.length + ' task(s) and schedules', function (d) {
        T.table(d, [{title: 'task', cls: 'wrap'}, {title: 'layers', num: true}, {title: 'cycles', num: true}, {title: 'MACs', num: true},
                     {title: 'tuned'}, {title: 'schedule', cls: 'wrap mono'}],
          tasks.map(function (t, k) {
            return [{ptr: Pp(i, 'best', 'tasks', k, 'name'), kind: 'str'}, {ptr: Pp(i, 'best', 'tasks', k, 'layers'), kind: 'int'},
                    {ptr: Pp(i, 'best', 'tasks', k, 'cycles'), kind: 'int'}, {ptr: Pp(i, 'best', 'tasks', k, 'macs'), kind: 'int'},
                    {ptr: Pp(i, 'best', 'tasks', k, 'tuned'), kind: 'str'}, {ptr: Pp(i, 'best', 'tasks', k, 'schedule'), kind: 'str'}];
          }), {compact: true});
      });
    });
  }

  // ---- accuracy per numeric format (dse --images/--labels and a bound) ---------------------------
  var A = T.obj(R.accuracy);
  var formats = T.arr(A.formats);
  if (formats.length) {
    sec = T.section(root, 'Accuracy per format',
      'Each numeric format the space contains (input and weight bits, accumulator bits): held-out top-1 of the float model, of ' +
      'the calibrated formats and of the tuned per-layer formats (the format\u2019s accuracy, through the integer reference, ' +
      'bit-exact with the accelerator), and the accumulator wraps counted on the held-out images. A format below the bound ' +
      'makes all its designs infeasible.');
    T.stats(sec, [['float held-out top-1', T.ptr('accuracy', 'float_accuracy'), 'num'], ['bound', T.ptr('accuracy', 'bound'), 'num']]);
    var F = function (k, f) { return T.ptr('accuracy', 'formats', k, f); };
    T.table(sec, [{title: 'format', cls: 'mono'}, {title: 'float', num: true}, {title: 'calibrated', num: true},
                  {title: 'tuned', num: true}, {title: 'tuning evaluations', num: true}, {title: 'accumulator wrap rate', num: true},
                  {title: 'worst-case warnings', num: true}, {title: 'keeps the bound'}, {title: 'reason', cls: 'wrap'}],
      formats.map(function (f, k) {
        return [{ptr: F(k, 'key'), kind: 'str'}, {ptr: F(k, 'float_accuracy'), kind: 'num'}, {ptr: F(k, 'calibrated_accuracy'), kind: 'num'},
                {ptr: F(k, 'tuned_accuracy'), kind: 'num'}, {ptr: F(k, 'tune_evaluations'), kind: 'int'},
                {ptr: F(k, 'wrap_rate'), kind: 'num'}, {text: String(T.arr(T.obj(f).compile_warnings).length)},
                {ptr: F(k, 'meets_bound'), kind: 'str'}, {ptr: F(k, 'reason'), kind: 'str'}];
      }), {compact: true, rowClass: function (row) { return T.get(row[7].ptr) === false ? 'failed' : ''; }});
    // Per format: the tuned binary point of every layer with its overflow rate, and the wraps per layer.
    formats.forEach(function (f, k) {
      var names = T.obj(T.obj(f).tuned_format_names);
      var values = Object.keys(names);
      if (!values.length) return;
      T.details(sec, String(f.key) + ': tuned per-layer formats and accumulator wraps', function (d) {
        T.table(d, [{title: 'value', cls: 'mono wrap'}, {title: 'format'}, {title: 'frac bits', num: true},
                    {title: 'overflow rate (tuning split)', num: true}],
          values.map(function (v) {
            return [{text: v}, {ptr: T.ptr('accuracy', 'formats', k, 'tuned_format_names', v), kind: 'str'},
                    {ptr: T.ptr('accuracy', 'formats', k, 'tuned_formats', v), kind: 'int'},
                    T.isNum(T.obj(f.overflow_rate)[v]) ? {ptr: T.ptr('accuracy', 'formats', k, 'overflow_rate', v), kind: 'num'} : {text: T.DASH}];
          }), {compact: true});
        var wraps = T.arr(f.accumulator_wraps);
        T.table(d, [{title: 'layer (integer graph node)', cls: 'mono wrap'}, {title: 'wrapped sums', num: true},
                    {title: 'sums', num: true}, {title: 'rate', num: true}],
          wraps.map(function (w, j) {
            var b = T.ptr('accuracy', 'formats', k, 'accumulator_wraps', j);
            return [{ptr: b + '/node', kind: 'str'}, {ptr: b + '/wrapped', kind: 'int'}, {ptr: b + '/elements', kind: 'int'},
                    {ptr: b + '/rate', kind: 'num'}];
          }), {compact: true});
      });
    });
    var keys = formats.map(function (f) { return String(T.obj(f).key); });
    T.chart(sec, {
      type: 'bar',
      data: {labels: keys, datasets: [
        {label: 'tuned (held-out)', data: formats.map(function (f) { return T.obj(f).tuned_accuracy; }),
         tauvtaPtrs: formats.map(function (f, k) { return F(k, 'tuned_accuracy'); }),
         backgroundColor: formats.map(function (f) { return T.obj(f).meets_bound === false ? 'rgba(200,60,60,0.7)' : 'rgba(60,140,80,0.7)'; })},
        {label: 'calibrated (held-out)', data: formats.map(function (f) { return T.obj(f).calibrated_accuracy; }),
         tauvtaPtrs: formats.map(function (f, k) { return F(k, 'calibrated_accuracy'); }), backgroundColor: 'rgba(120,120,120,0.5)'},
        {type: 'line', label: 'bound', data: keys.map(function () { return A.bound; }),
         tauvtaPtrs: keys.map(function () { return T.ptr('accuracy', 'bound'); }), borderColor: '#222', borderDash: [6, 3],
         pointRadius: 0, fill: false}]},
      options: {scales: {x: T.axis('format', 'category'), y: T.axis('held-out top-1', 'linear', {min: 0, max: 1})}}
    }, {height: 300});
    // The designs not dominated in accuracy, latency and LUTs, across precisions.
    var front = T.arr(T.obj(R.pareto_accuracy).lut);
    if (front.length) {
      T.chart(sec, {
        type: 'scatter',
        data: {datasets: [{label: 'accuracy/speed/LUT front', data: front.map(function (e) { return {x: e.gops, y: e.accuracy}; }),
                           tauvtaPtrs: front.map(function (e, k) { return {x: T.ptr('pareto_accuracy', 'lut', k, 'gops'), y: T.ptr('pareto_accuracy', 'lut', k, 'accuracy')}; }),
                           names: front.map(function (e) { return precLabel(e.precision) + ': ' + e.key; }),
                           pointRadius: 5, backgroundColor: 'rgba(60,100,200,0.7)'}]},
        options: {scales: {x: T.axis('GOPS', 'linear', {beginAtZero: true}), y: T.axis('held-out top-1', 'linear', {min: 0, max: 1})},
                  plugins: {tooltip: {callbacks: {title: function (items) { return items[0].dataset.names[items[0].dataIndex]; }}}}}
      }, {height: 300});
    }
  }

  // ---- GOPS vs resources -----------------------------------------------------------------------
  sec = T.section(root, 'Performance vs resources',
    'Every evaluated design: GOPS against the FPGA resource chosen below, one color per precision; filled points fit the device, ' +
    'crosses do not. The line is each precision\u2019s Pareto front (no design is both faster and smaller); the star is the best design.');
  var timedEvals = [];
  evals.forEach(function (e, k) { e = T.obj(e); if (T.isNum(e.gops) && T.obj(e.resources)) timedEvals.push(k); });
  if (!timedEvals.length) {
    T.note(sec, 'No evaluations in the page (extra.evaluations).');
  } else {
    var present = RESOURCES.filter(function (r) { return evals.some(function (e) { return T.isNum(T.obj(T.obj(e).resources)[r[0]]); }); });
    var sel = T.el('select', {id: 'dse-resource'});
    present.forEach(function (r) { sel.appendChild(T.el('option', {value: r[0], text: r[1]})); });
    sec.appendChild(T.el('div', {class: 'controls'}, T.el('label', {for: 'dse-resource', text: 'resource'}), sel));
    var scatter = null;
    var drawScatter = function () {
      var res = sel.value;
      var resName = present.filter(function (r) { return r[0] === res; })[0][1];
      var ds = [];
      precOrder.forEach(function (p) {
        var feas = [], infeas = [];
        timedEvals.forEach(function (k) {
          var e = evals[k];
          if (e.precision !== p || !T.isNum(T.obj(e.resources)[res])) return;
          (e.feasible === true ? feas : infeas).push(k);
        });
        function pts(list) { return list.map(function (k) { return {x: evals[k].resources[res], y: evals[k].gops}; }); }
        function ptrs(list) { return list.map(function (k) { return {x: {ptr: Pe(k, 'resources', res), root: 'extra'}, y: {ptr: Pe(k, 'gops'), root: 'extra'}}; }); }
        if (feas.length) {
          ds.push({label: precLabel(p) + ' feasible', data: pts(feas), tauvtaPtrs: ptrs(feas), idx: feas,
                   backgroundColor: precColor(p, 0.7), borderColor: precColor(p), pointRadius: 4, pointHoverRadius: 6});
        }
        if (infeas.length) {
          ds.push({label: precLabel(p) + ' does not fit', data: pts(infeas), tauvtaPtrs: ptrs(infeas), idx: infeas,
                   pointStyle: 'crossRot', borderColor: precColor(p), backgroundColor: precColor(p), borderWidth: 1.5,
                   pointRadius: 5, pointHoverRadius: 7});
        }
        // Pareto front: the summary's (dse_report.cpp, as pareto.csv), listed fastest first, i.e. by
        // decreasing resource; drawn from the least resource up.
        var pi = -1;
        precs.forEach(function (q, i) { if (T.obj(q).precision === p) pi = i; });
        var front = pi < 0 ? [] : T.arr(T.obj(T.obj(precs[pi]).pareto)[res]);
        if (front.length > 1) {
          var order = front.map(function (_, k) { return k; }).reverse();
          ds.push({label: precLabel(p) + ' Pareto front',
                   data: order.map(function (k) { return {x: front[k].value, y: front[k].gops}; }),
                   tauvtaPtrs: order.map(function (k) { return {x: Pp(pi, 'pareto', res, k, 'value'), y: Pp(pi, 'pareto', res, k, 'gops')}; }),
                   names: order.map(function (k) { return precLabel(p) + ' Pareto: ' + front[k].key; }), showLine: true,
                   stepped: 'before', pointRadius: 0, borderColor: precColor(p), borderWidth: 1.5, borderDash: [5, 3], fill: false});
        }
      });
      // the best design of each precision, from the summary
      var bestPts = [], bestPtrs = [], bestNames = [];
      precs.forEach(function (p, i) {
        var b = T.obj(T.obj(p).best);
        if (!T.isNum(b.gops) || !T.isNum(T.obj(b.resources)[res])) return;
        bestPts.push({x: b.resources[res], y: b.gops});
        bestPtrs.push({x: Pp(i, 'best', 'resources', res), y: Pp(i, 'best', 'gops')});
        bestNames.push(precLabel(p.precision) + ' best: ' + (T.obj(b.config).NAME || b.key || ''));  // NAME absent for a screened design
      });
      if (bestPts.length) {
        ds.push({label: 'best design', data: bestPts, tauvtaPtrs: bestPtrs, names: bestNames, pointStyle: 'star', pointRadius: 11,
                 pointHoverRadius: 13, borderWidth: 2, borderColor: '#222', backgroundColor: 'rgba(255,215,0,0.8)'});
      }
      var cfg = {datasets: ds};
      var scales = {x: T.axis(resName + ' (used)', 'linear', {beginAtZero: true}), y: T.axis('GOPS', 'linear', {beginAtZero: true})};
      if (scatter) { scatter.data = cfg; scatter.options.scales = scales; scatter.update(); return; }
      scatter = T.chart(sec, {
        type: 'scatter', data: cfg,
        options: {scales: scales, plugins: {tooltip: {callbacks: {
          title: function (items) {
            var d = items[0].dataset;
            if (d.names) return d.names[items[0].dataIndex];
            var e = d.idx ? evals[d.idx[items[0].dataIndex]] : null;
            return e ? (T.obj(e.config).NAME || e.key) : d.label;
          },
          label: function (ctx) {
            var d = ctx.dataset;
            var e = d.idx ? evals[d.idx[ctx.dataIndex]] : null;
            var lines = [T.fmtNum(ctx.parsed.y) + ' GOPS, ' + T.fmtInt(Math.round(ctx.parsed.x)) + ' ' + sel.value.toUpperCase()];
            if (e) lines.push((e.verdict || '') + (e.reason ? ': ' + e.reason : ''));
            return lines;
          }
        }}}}
      }, {height: 460});
    };
    sel.addEventListener('change', drawScatter);
    drawScatter();
  }

  // ---- convergence -----------------------------------------------------------------------------
  sec = T.section(root, 'Convergence',
    'Best GOPS of a feasible design after each performance evaluation, per precision (as convergence.csv: ' +
    'designs screened without timing are not counted).');
  var convDs = [];
  // The summary's series (precisions[i].convergence: convergence.csv's rows).
  precs.forEach(function (p, i) {
    var c = T.arr(T.obj(p).convergence);
    var pts = [], ptrs = [];
    c.forEach(function (e, k) {
      if (!T.isNum(T.obj(e).best_gops) || !(e.best_gops > 0)) return;
      pts.push({x: T.isNum(e.evaluation) ? e.evaluation : k + 1, y: e.best_gops});
      ptrs.push({x: T.isNum(e.evaluation) ? Pp(i, 'convergence', k, 'evaluation') : null, y: Pp(i, 'convergence', k, 'best_gops')});
    });
    if (pts.length) {
      convDs.push({label: precLabel(p.precision), data: pts, tauvtaPtrs: ptrs, showLine: true, stepped: 'before', pointRadius: 2,
                   borderColor: precColor(p.precision), backgroundColor: precColor(p.precision), borderWidth: 2});
    }
  });
  if (!convDs.length) {
    T.note(sec, 'No feasible evaluated design.');
  } else {
    T.chart(sec, {
      type: 'scatter', data: {datasets: convDs},
      options: {scales: {x: T.axis('designs evaluated', 'linear', {min: 0, ticks: {precision: 0}}),
                         y: T.axis('best GOPS so far', 'linear', {beginAtZero: true})},
                plugins: {tooltip: {callbacks: {label: function (ctx) {
                  return ctx.dataset.label + ': ' + T.fmtNum(ctx.parsed.y) + ' GOPS after ' + ctx.parsed.x + ' designs';
                }}}}}
    }, {height: 320});
  }

  // ---- feature importance ----------------------------------------------------------------------
  var withImp = [];
  precs.forEach(function (p, i) { if (T.arr(T.obj(T.obj(p).importance).targets).length) withImp.push(i); });
  if (withImp.length) {
    sec = T.section(root, 'What drives each figure',
      'Feature importances of the models fitted to the evaluated designs (per precision; features of no importance left out), ' +
      'and how well each model predicts held-out designs.');
    withImp.forEach(function (i) {
      var targets = T.arr(precs[i].importance.targets).map(T.obj);
      sec.appendChild(T.el('h3', {text: precLabel(precs[i].precision)}));
      var feats = [];
      targets.forEach(function (t) {
        Object.keys(T.obj(T.obj(t).importance)).forEach(function (f) {
          if (T.isNum(t.importance[f]) && t.importance[f] > 0 && feats.indexOf(f) < 0) feats.push(f);
        });
      });
      // most important first (summed over the targets)
      var total = function (f) { return targets.reduce(function (a, t) { var v = T.obj(t.importance)[f]; return a + (T.isNum(v) ? v : 0); }, 0); };
      feats.sort(function (a, b) { return total(b) - total(a); });
      if (feats.length) {
        var ds = targets.map(function (t, k) {
          return {label: String(T.obj(t).target), backgroundColor: T.color(k),
                  data: feats.map(function (f) { var v = T.obj(t.importance)[f]; return T.isNum(v) ? v : null; }),
                  tauvtaPtrs: feats.map(function (f) { return T.isNum(T.obj(t.importance)[f]) ? Pp(i, 'importance', 'targets', k, 'importance', f) : null; })};
        });
        T.chart(sec, {
          type: 'bar', data: {labels: feats, datasets: ds},
          options: {indexAxis: 'y', scales: {x: T.axis('importance (share)', 'linear', {beginAtZero: true}), y: T.axis('design knob', 'category', {ticks: {autoSkip: false}})}}
        }, {height: 90 + feats.length * Math.max(14, 6 * targets.length)});
      } else {
        T.note(sec, 'No feature has any importance (too few designs, or every design alike).');
      }
      T.table(sec, [{title: 'target'}, {title: 'train', num: true}, {title: 'held out', num: true},
                    {title: 'held out within 10%', num: true}, {title: 'held-out median error', num: true}],
        targets.map(function (t, k) {
          var b = Pp(i, 'importance', 'targets', k);
          return [{ptr: b + '/target', kind: 'str'}, {ptr: b + '/train', kind: 'int'}, {ptr: b + '/heldout', kind: 'int'},
                  {ptr: b + '/heldout_within_10pct', kind: 'pct'}, {ptr: b + '/heldout_median_error', kind: 'pct'}];
        }), {compact: true});
    });
  }

  // ---- evaluations table -----------------------------------------------------------------------
  if (evals.length) {
    var LIMIT = 2000;  // beyond this a table stops being read; the charts above show them all
    sec = T.section(root, 'Evaluated designs (' + evals.length + ')',
      evals.length > LIMIT ? 'The ' + LIMIT + ' fastest designs; the charts show all of them.' : 'In the order they were evaluated.');
    var order = evals.map(function (e, k) { return k; });
    if (evals.length > LIMIT) {
      order.sort(function (a, b) { return (T.obj(evals[b]).gops || 0) - (T.obj(evals[a]).gops || 0); });
      order = order.slice(0, LIMIT);
    }
    var ecols = [{title: '#', num: true}, {title: 'precision'}, {title: 'design', cls: 'mono'}, {title: 'budget', num: true},
                 {title: 'fits'}, {title: 'GOPS', num: true}, {title: 'latency ms', num: true}, {title: 'clock MHz', num: true},
                 {title: 'LUT', num: true}, {title: 'DSP', num: true}, {title: 'BRAM36', num: true}, {title: 'critical stage'}, {title: 'reason', cls: 'wrap'}];
    var X = function (ptr, kind) { return {ptr: ptr, kind: kind, root: 'extra'}; };
    T.table(sec, ecols, order.map(function (k) {
      var e = T.obj(evals[k]);
      return [{text: String(k + 1), sort: k}, {text: precLabel(e.precision), sort: e.precision},
              T.obj(e.config).NAME !== undefined ? X(Pe(k, 'config', 'NAME'), 'str') : X(Pe(k, 'key'), 'str'),
              X(Pe(k, 'budget'), 'int'), X(Pe(k, 'feasible'), 'str'), X(Pe(k, 'gops'), 'num'), X(Pe(k, 'latency_ms'), 'num'),
              X(Pe(k, 'clock_mhz'), 'num'), X(Pe(k, 'resources', 'lut'), 'int'), X(Pe(k, 'resources', 'dsp'), 'int'),
              X(Pe(k, 'resources', 'bram36'), 'num'), X(Pe(k, 'critical_stage'), 'str'), X(Pe(k, 'reason'), 'str')];
    }), {compact: true, rowClass: function (row) { return T.obj(evals[row[0].sort]).feasible === false ? 'failed' : ''; }});
  }

  // ---- strategy --------------------------------------------------------------------------------
  precs.forEach(function (p, i) {
    if (p && p.strategy && typeof p.strategy === 'object' && Object.keys(p.strategy).length) {
      T.details(root, precLabel(p.precision) + ': search strategy details (' + (opts.strategy || 'strategy') + ')', function (d) {
        d.appendChild(T.pre(JSON.stringify(p.strategy, null, 1)));
      });
    }
  });
};
