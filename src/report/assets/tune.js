/* tauvta HTML report, kind "tune": schedule tuning of a model's (or one workload's) tasks.
 * report: `tauvta tune --report` (tasks[] with default/best measures and best_so_far[],
 * totals, tune options, end_to_end when a model was tuned). extra: unused. */
tauvta.pages.tune = function (data, root) {
  var T = tauvta;
  var R = data.report;
  var tasks = T.arr(R.tasks);

  function P(i) { return T.ptr.apply(null, ['tasks', i].concat(Array.prototype.slice.call(arguments, 1))); }
  function tag(t, i) {  // "T3": the task's number as the CLI prints it
    var m = /^(T\d+)\b/.exec(String(T.obj(t).name || ''));
    return m ? m[1] : 'T' + (i + 1);
  }
  function gopsOf(t, which) { var v = T.obj(T.obj(T.obj(t)[which]).measure).gops; return T.isNum(v) ? v : null; }

  /* A workload object as the CLI's one-line form, or the task name without its "T1 " prefix. */
  function workloadText(t) {
    var w = T.obj(t.workload);
    var name = String(t.name || '').replace(/^T\d+\s+/, '');
    if (name) return name;
    if (!w.kind) return typeof t.workload === 'string' ? t.workload : '';
    return w.kind + ' ' + [w.batch, w.in_channels, w.height, w.width].join('x') + ' -> ' + w.out_channels +
      (w.kernel ? ' k' + T.arr(w.kernel).join('x') : '');
  }

  // ---- summary ---------------------------------------------------------------------------------
  var sec = T.section(root, 'Summary');
  var tune = T.obj(R.tune);
  T.stats(sec, [
    ['tasks', String(tasks.length)],
    ['trials', '/totals/trials', 'int'],
    ['measured in this run', '/totals/measured', 'int'],
    ['wall time', '/totals/wall_seconds', 'num', 's'],
    ['trials per second', '/totals/trials_per_second', 'num'],
    ['trials/s in measurement', '/totals/measure_trials_per_second', 'num']
  ]);
  T.kvTable(sec, [
    R.model !== undefined ? ['model', '/model', 'str'] : null,
    R.config_name !== undefined ? ['config', '/config_name', 'str'] : null,
    tune.tuner !== undefined ? ['tuner', '/tune/tuner', 'str'] : null,
    tune.trials !== undefined ? ['trials per task', '/tune/trials', 'int'] : null,
    tune.batch !== undefined ? ['candidates per round', '/tune/batch', 'int'] : null,
    tune.seed !== undefined ? ['seed', '/tune/seed', 'int'] : null,
    tune.early_stopping !== undefined ? ['early stopping', '/tune/early_stopping', 'int'] : null,
    tune.threads !== undefined ? ['threads', '/tune/threads', 'int'] : null,
    tune.log !== undefined ? ['log', '/tune/log', 'str'] : null
  ]);

  // ---- end to end ------------------------------------------------------------------------------
  var e2e = R.end_to_end;
  if (e2e && typeof e2e === 'object') {
    sec = T.section(root, 'End to end', 'The whole network with the heuristic schedules (before) and the tuned ones (after).');
    var row = sec.appendChild(T.el('div', {class: 'row'}));
    var left = row.appendChild(T.el('div', {class: 'col'}));
    var right = row.appendChild(T.el('div', {class: 'col'}));
    var before = T.obj(e2e.before), after = T.obj(e2e.after);
    var speed = T.isNum(before.cycles) && T.isNum(after.cycles) && after.cycles > 0 ? before.cycles / after.cycles : null;
    T.stats(left, [
      ['cycles before', '/end_to_end/before/cycles', 'int'],
      ['cycles after', '/end_to_end/after/cycles', 'int'],
      ['speedup', speed === null ? T.DASH : T.fmtNum(speed, 3) + '\u00d7'],
      ['GOPS before', '/end_to_end/before/gops', 'num'],
      ['GOPS after', '/end_to_end/after/gops', 'num'],
      ['conv/dense GOPS before', '/end_to_end/before/conv_gops', 'num'],
      ['conv/dense GOPS after', '/end_to_end/after/conv_gops', 'num'],
      e2e.conv_ceiling_gops !== undefined ? ['ceiling of the instructions', '/end_to_end/conv_ceiling_gops', 'num', 'GOPS'] : null
    ]);
    var labels = [], bd = [], bp = [], ad = [], ap = [];
    [['GOPS', 'gops'], ['conv/dense GOPS', 'conv_gops']].forEach(function (k) {
      if (!T.isNum(before[k[1]]) && !T.isNum(after[k[1]])) return;
      labels.push(k[0]);
      bd.push(T.isNum(before[k[1]]) ? before[k[1]] : null);
      bp.push(T.isNum(before[k[1]]) ? T.ptr('end_to_end', 'before', k[1]) : null);
      ad.push(T.isNum(after[k[1]]) ? after[k[1]] : null);
      ap.push(T.isNum(after[k[1]]) ? T.ptr('end_to_end', 'after', k[1]) : null);
    });
    if (labels.length) {
      T.chart(right, {
        type: 'bar',
        data: {labels: labels, datasets: [
          {label: 'heuristic schedules', data: bd, tauvtaPtrs: bp, backgroundColor: T.color(9)},
          {label: 'tuned schedules', data: ad, tauvtaPtrs: ap, backgroundColor: T.color(0)}
        ]},
        options: {scales: {x: T.axis('network', 'category'), y: T.axis('GOPS', 'linear', {beginAtZero: true})},
                  plugins: {tooltip: {callbacks: {label: T.tooltipValue('GOPS')}}}}
      }, {height: 260});
    }
  }

  if (!tasks.length) {
    T.section(root, 'Tasks', 'The report has no tasks.');
    return;
  }

  // ---- convergence -----------------------------------------------------------------------------
  sec = T.section(root, 'Convergence',
    'Best GOPS found after each trial, one line per task; or, relative, as a share of the task\u2019s final best ' +
    '(how soon each task got there).');
  var series = [];
  var allY = [], maxTrial = 1;
  tasks.forEach(function (t, i) {
    var bsf = T.arr(T.obj(t).best_so_far);
    var pts = [], ptrs = [];
    bsf.forEach(function (v, j) {
      if (!T.isNum(v)) return;
      pts.push({x: j + 1, y: v});
      ptrs.push({y: P(i, 'best_so_far', j)});
      allY.push(v);
      maxTrial = Math.max(maxTrial, j + 1);
    });
    if (pts.length) series.push({i: i, pts: pts, ptrs: ptrs});
  });
  if (!series.length) {
    T.note(sec, 'The report\u2019s tasks have no best_so_far series.');
  } else {
    var yr = T.posRange(allY);
    var logY = yr && yr[1] / yr[0] > 30;  // tasks of very different speeds: keep the slow ones visible
    var modeSel = T.el('select', {id: 'tune-conv-mode'},
      T.el('option', {value: 'abs', text: 'GOPS' + (logY ? ' (log scale)' : '')}),
      T.el('option', {value: 'rel', text: 'share of the task\u2019s final best (%)'}));
    sec.appendChild(T.el('div', {class: 'controls'}, T.el('label', {for: 'tune-conv-mode', text: 'y axis'}), modeSel));
    var convChart = null;
    var drawConv = function () {
      var rel = modeSel.value === 'rel';
      var ds = series.map(function (s, k) {
        var t = tasks[s.i];
        var last = s.pts[s.pts.length - 1].y;
        return {
          label: tag(t, s.i), fullName: t.name, borderColor: T.color(k), backgroundColor: T.color(k),
          pointRadius: 0, pointHitRadius: 4, borderWidth: 2, stepped: 'before', showLine: true,
          data: rel ? s.pts.map(function (p) { return {x: p.x, y: last > 0 ? 100 * p.y / last : null}; }) : s.pts,
          tauvtaPtrs: rel ? s.pts.map(function () { return null; }) : s.ptrs  // relative values are derived
        };
      });
      var y = rel ? T.axis('best so far (% of final)', 'linear', {max: 100.5}) :
        (logY ? T.axis('best GOPS so far', 'logarithmic', {min: T.decadeFloor(yr[0]), max: yr[1] * 1.5}) :
          T.axis('best GOPS so far', 'linear', {beginAtZero: true}));
      var scales = {x: T.axis('trial', 'linear', {min: 1, max: maxTrial, ticks: {precision: 0}}), y: y};
      if (convChart) { convChart.data.datasets = ds; convChart.options.scales = scales; convChart.update(); return; }
      convChart = T.chart(sec, {
        type: 'scatter',
        data: {datasets: ds},
        options: {
          scales: scales,
          plugins: {tooltip: {mode: 'nearest', intersect: false, callbacks: {
            title: function (items) { return items[0].dataset.fullName || items[0].dataset.label; },
            label: function (ctx) {
              return 'trial ' + ctx.parsed.x + ': ' + T.fmtNum(ctx.parsed.y) + (modeSel.value === 'rel' ? '% of final' : ' GOPS');
            }
          }}}
        }
      }, {height: 380});
    };
    modeSel.addEventListener('change', drawConv);
    drawConv();
  }

  // ---- tasks table -----------------------------------------------------------------------------
  sec = T.section(root, 'Tasks (' + tasks.length + ')',
    'Heuristic: the default schedule; tuned: the best one found. to 95%: trials until the tuned GOPS were within 5% of the best.');
  var cols = [{title: 'task'}, {title: 'workload', cls: 'wrap'}, {title: 'layers', num: true}, {title: 'space', num: true},
              {title: 'trials', num: true}, {title: 'heuristic GOPS', num: true}, {title: 'tuned GOPS', num: true},
              {title: 'speedup', num: true}, {title: 'ceiling GOPS', num: true}, {title: 'to 95%', num: true},
              {title: 'trials/s', num: true}, {title: 'errors', num: true}, {title: 'tuned schedule', cls: 'wrap mono'}];
  var rows = tasks.map(function (t, i) {
    t = T.obj(t);
    var h = gopsOf(t, 'default'), b = gopsOf(t, 'best');
    var sp = h !== null && b !== null && h > 0 ? b / h : null;
    return [
      {text: tag(t, i), title: t.name, sort: i},
      {text: workloadText(t), title: T.arr(t.layers).join('\n')},
      {text: String(T.arr(t.layers).length), sort: T.arr(t.layers).length},
      {ptr: P(i, 'space'), kind: 'int'},
      {ptr: P(i, 'trials'), kind: 'int'},
      {ptr: P(i, 'default', 'measure', 'gops'), kind: 'num'},
      {ptr: P(i, 'best', 'measure', 'gops'), kind: 'num'},
      {text: sp === null ? T.DASH : T.fmtNum(sp, 3) + '\u00d7', sort: sp},
      {ptr: P(i, 'best', 'measure', 'ceiling_gops'), kind: 'num'},
      {ptr: P(i, 'trials_to_95'), kind: 'int'},
      {ptr: P(i, 'trials_per_second'), kind: 'num'},
      {ptr: P(i, 'errors'), kind: 'int'},
      {ptr: P(i, 'best', 'schedule'), kind: 'str'}
    ];
  });
  T.table(sec, cols, rows);

  // ---- heuristic vs tuned ----------------------------------------------------------------------
  sec = T.section(root, 'Heuristic vs tuned', 'GOPS of each task\u2019s default schedule and of the best schedule found.');
  var labels2 = tasks.map(function (t, i) { return tag(t, i); });
  var hv = tasks.map(function (t) { return gopsOf(t, 'default'); });
  var tv = tasks.map(function (t) { return gopsOf(t, 'best'); });
  var range = T.posRange(hv.concat(tv));
  if (!range) {
    T.note(sec, 'No task has a measured GOPS.');
  } else {
    var logB = range[1] / range[0] > 30;
    T.chart(sec, {
      type: 'bar',
      data: {labels: labels2, datasets: [
        {label: 'heuristic', data: hv, backgroundColor: T.color(9),
         tauvtaPtrs: hv.map(function (v, i) { return v === null ? null : P(i, 'default', 'measure', 'gops'); })},
        {label: 'tuned', data: tv, backgroundColor: T.color(0),
         tauvtaPtrs: tv.map(function (v, i) { return v === null ? null : P(i, 'best', 'measure', 'gops'); })}
      ]},
      options: {
        scales: {x: T.axis('task', 'category'),
                 y: logB ? T.axis('GOPS', 'logarithmic', {min: T.decadeFloor(range[0]), max: range[1] * 1.5}) :
                   T.axis('GOPS', 'linear', {beginAtZero: true})},
        plugins: {tooltip: {callbacks: {
          title: function (items) { return T.obj(tasks[items[0].dataIndex]).name; },
          label: T.tooltipValue('GOPS')
        }}}
      }
    }, {height: 320, categories: tasks.length * 2, perCategory: 14});
  }

  // ---- feature importance of the cost model (xgb) ----------------------------------------------
  var withImp = [];
  tasks.forEach(function (t, i) { if (T.arr(T.obj(t).feature_importance).length) withImp.push(i); });
  if (withImp.length) {
    sec = T.section(root, 'Cost model features', 'The features the XGBoost cost model leaned on most, per task (gain).');
    var sel = T.el('select', {id: 'tune-imp-task'});
    withImp.forEach(function (i) { sel.appendChild(T.el('option', {value: String(i), text: T.obj(tasks[i]).name || tag(tasks[i], i)})); });
    sec.appendChild(T.el('div', {class: 'controls'}, T.el('label', {for: 'tune-imp-task', text: 'task'}), sel));
    var impChart = null;
    var draw = function () {
      var i = Number(sel.value);
      var imp = T.arr(tasks[i].feature_importance).slice(0, 20);
      var cfg = {
        labels: imp.map(function (p) { return String(T.arr(p)[0]); }),
        datasets: [{label: 'importance', backgroundColor: T.color(4),
                    data: imp.map(function (p) { return T.isNum(T.arr(p)[1]) ? p[1] : null; }),
                    tauvtaPtrs: imp.map(function (p, k) { return T.isNum(T.arr(p)[1]) ? P(i, 'feature_importance', k, 1) : null; })}]
      };
      if (impChart) { impChart.data = cfg; impChart.update(); return; }
      impChart = T.chart(sec, {
        type: 'bar', data: cfg,
        options: {indexAxis: 'y', plugins: {legend: {display: false}},
                  scales: {x: T.axis('importance (gain)', 'linear', {beginAtZero: true}), y: T.axis('feature', 'category')}}
      }, {height: 60 + 18 * Math.max(5, Math.min(20, T.arr(tasks[withImp[0]].feature_importance).length))});
    };
    sel.addEventListener('change', draw);
    draw();
  }
};
