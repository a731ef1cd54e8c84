/* tauvta HTML report, kind "run": a network on the simulated accelerator.
 * report: `tauvta run --report` (layers[], total{}, config, quantization, passes, ...);
 * extra: {peak_gops, dram_gbps, clock_mhz} — the roofs (falls back to report.config). */
tauvta.pages.run = function (data, root) {
  var T = tauvta;
  var R = data.report;
  var extra = T.obj(data.extra);
  var cfg = T.obj(R.config || data.config);
  var timing = T.obj(cfg.TIMING);
  var layers = T.arr(R.layers);

  var peak = T.isNum(extra.peak_gops) ? extra.peak_gops : cfg.PEAK_GOPS;
  var dram = T.isNum(extra.dram_gbps) ? extra.dram_gbps : timing.DRAM_BANDWIDTH_GBPS;
  var clock = T.isNum(extra.clock_mhz) ? extra.clock_mhz : timing.CLOCK_MHZ;

  function L(i, key) { return T.ptr('layers', i, key); }
  function isVta(l) { return l && l.placement === 'vta'; }
  function timed(l) { return isVta(l) && T.isNum(l.cycles) && l.cycles > 0 && T.isNum(l.seconds_at_clock); }
  function label(l, i) { return '#' + i + ' ' + T.shortName(l.name, 24); }

  // ---- totals ----------------------------------------------------------------------------------
  var sec = T.section(root, 'Totals');
  T.stats(sec, [
    ['cycles', '/total/cycles', 'int'],
    ['time at clock', '/total/seconds_at_clock', 'ms', 'ms'],
    ['GOPS (accelerator layers)', '/total/gops', 'num'],
    ['GOPS (conv/dense)', '/total/conv_gops', 'num'],
    ['ceiling of these instructions', '/total/conv_ceiling_gops', 'num', 'GOPS'],
    T.get('/config/PEAK_GOPS') !== undefined ? ['peak', '/config/PEAK_GOPS', 'num', 'GOPS'] :
      ['peak', T.fmtNum(peak) + ' GOPS'],
    T.get('/config/TIMING/CLOCK_MHZ') !== undefined ? ['clock', '/config/TIMING/CLOCK_MHZ', 'num', 'MHz'] :
      ['clock', T.fmtNum(clock) + ' MHz'],
    T.get('/config/TIMING/DRAM_BANDWIDTH_GBPS') !== undefined ? ['DRAM bandwidth', '/config/TIMING/DRAM_BANDWIDTH_GBPS', 'num', 'GB/s'] :
      ['DRAM bandwidth', T.fmtNum(dram) + ' GB/s'],
    ['accelerator layers', '/total/vta_layers', 'int'],
    ['CPU layers', '/total/cpu_layers', 'int'],
    ['instructions', '/total/insns', 'int'],
    ['CPU layers\u2019 host time', '/total/cpu_seconds', 'ms', 'ms'],
    ['compile', '/total/compile_seconds', 'ms', 'ms'],
    ['simulation wall time', '/total/sim_wall_seconds', 'ms', 'ms'],
    ['timing only', '/total/timing_only', 'str']
  ]);
  var q = T.obj(R.quantization);
  T.kvTable(sec, [
    ['model', '/model', 'str'],
    ['config', '/config_name', 'str'],
    ['batch', '/batch', 'int'],
    q.activation_bits !== undefined ? ['activation bits', '/quantization/activation_bits', 'int'] : null,
    q.calibration_source !== undefined ? ['calibration', '/quantization/calibration_source', 'str'] : null,
    q.calibration_samples !== undefined ? ['calibration samples', '/quantization/calibration_samples', 'int'] : null,
    q.calibration_statistic !== undefined ? ['calibration statistic', '/quantization/calibration_statistic', 'str'] : null
  ]);

  // ---- per-layer table -------------------------------------------------------------------------
  sec = T.section(root, 'Layers (' + layers.length + ')',
    'Time is at the configured clock for accelerator layers and measured host time for CPU layers. ' +
    'op/B is the arithmetic intensity (2\u00d7MACs per DRAM byte); bound is the roofline side.');
  var cols = [
    {title: '#', num: true}, {title: 'layer', cls: 'name'}, {title: 'op'}, {title: 'on'},
    {title: 'schedule / reason', cls: 'wrap'}, {title: 'cycles', num: true}, {title: 'ms', num: true},
    {title: 'GOPS', num: true}, {title: 'util', num: true, tip: 'GEMM core utilization'},
    {title: 'DRAM bytes', num: true}, {title: 'op/B', num: true, tip: 'ops per DRAM byte'}, {title: 'bound'}
  ];
  var rows = layers.map(function (l, i) {
    l = T.obj(l);
    var t = timed(l);
    var blank = {text: '', sort: null};
    var sched = l.schedule ? {ptr: L(i, 'schedule'), kind: 'str', title: l.schedule_source ? 'source: ' + l.schedule_source : undefined}
      : {ptr: L(i, 'reason'), kind: 'str'};
    var time = t ? {ptr: L(i, 'seconds_at_clock'), kind: 'ms'}
      : (l.placement === 'cpu' && T.isNum(l.cpu_seconds) ? {ptr: L(i, 'cpu_seconds'), kind: 'ms', title: 'host time'} : blank);
    return [
      {text: String(i), sort: i},
      {ptr: L(i, 'name'), kind: 'str', title: l.workload || undefined},
      {ptr: L(i, 'op'), kind: 'str'},
      {ptr: L(i, 'placement'), kind: 'str'},
      sched,
      t ? {ptr: L(i, 'cycles'), kind: 'int'} : blank,
      time,
      t ? {ptr: L(i, 'gops'), kind: 'num'} : blank,
      t ? {ptr: L(i, 'gemm_utilization'), kind: 'pct'} : blank,
      t ? {ptr: L(i, 'bytes'), kind: 'int'} : blank,
      t && T.isNum(l.intensity) && l.intensity > 0 ? {ptr: L(i, 'intensity'), kind: 'num3'} : blank,
      t && l.bound ? {ptr: L(i, 'bound'), kind: 'str'} : blank
    ];
  });
  T.table(sec, cols, rows, {rowClass: function (row) {
    var l = T.obj(layers[row[0].sort]);
    return l.placement === 'cpu' ? 'cpu' : '';
  }});

  // ---- roofline --------------------------------------------------------------------------------
  sec = T.section(root, 'Roofline',
    'One point per accelerator layer that moves DRAM bytes and does GEMM work; the roofs are the ' +
    'peak compute rate and DRAM bandwidth \u00d7 intensity. Layers left of the ridge are bandwidth-bound.');
  var groups = {};
  var order = [];
  layers.forEach(function (l, i) {
    if (!timed(l) || !(l.intensity > 0) || !(l.gops > 0)) return;
    var g = l.bound || 'other';
    if (!groups[g]) { groups[g] = {data: [], ptrs: [], names: []}; order.push(g); }
    groups[g].data.push({x: l.intensity, y: l.gops});
    groups[g].ptrs.push({x: L(i, 'intensity'), y: L(i, 'gops')});
    groups[g].names.push('#' + i + ' ' + l.name + (l.op ? ' (' + l.op + ')' : ''));
  });
  if (!order.length) {
    T.note(sec, 'No accelerator layer with GEMM work and DRAM traffic: nothing to place on the roofline.');
  } else {
    var xs = [];
    order.forEach(function (g) { groups[g].data.forEach(function (p) { xs.push(p.x); }); });
    var xr = T.posRange(xs);
    var boundColor = {compute: T.color(0), bandwidth: T.color(1)};
    var datasets = order.map(function (g, k) {
      return {label: g + '-bound layers', data: groups[g].data, tauvtaPtrs: groups[g].ptrs, names: groups[g].names,
              backgroundColor: boundColor[g] || T.color(2 + k), borderColor: boundColor[g] || T.color(2 + k),
              pointRadius: 5, pointHoverRadius: 7};
    });
    var ys = [];
    order.forEach(function (g) { groups[g].data.forEach(function (p) { ys.push(p.y); }); });
    var lo = T.decadeFloor(xr[0] / 1.5);
    var hi = xr[1] * 2;
    if (T.isNum(peak) && peak > 0 && T.isNum(dram) && dram > 0) {
      var ridge = peak / dram;
      hi = T.decadeCeil(Math.max(hi, ridge * 4));
      lo = Math.min(lo, T.decadeFloor(ridge / 10));
      datasets.push({label: 'DRAM roof (' + T.fmtNum(dram) + ' GB/s \u00d7 op/B)', data: [{x: lo, y: lo * dram}, {x: ridge, y: peak}],
                     showLine: true, pointRadius: 0, borderColor: '#888', borderWidth: 2, borderDash: [6, 4], tauvtaPtrs: [null, null]});
      datasets.push({label: 'compute roof (' + T.fmtNum(peak) + ' GOPS)', data: [{x: ridge, y: peak}, {x: hi, y: peak}],
                     showLine: true, pointRadius: 0, borderColor: '#333', borderWidth: 2, tauvtaPtrs: [null, null]});
      ys.push(peak, lo * dram);
    } else {
      T.note(sec, 'Peak GOPS or DRAM bandwidth unknown: roofs not drawn.');
    }
    var yr = T.posRange(ys);
    T.chart(sec, {
      type: 'scatter',
      data: {datasets: datasets},
      options: {
        scales: {
          x: T.axis('arithmetic intensity (ops per DRAM byte)', 'logarithmic', {min: lo, max: hi}),
          y: T.axis('attained GOPS', 'logarithmic', {min: T.decadeFloor(yr[0] / 1.5), max: T.decadeCeil(yr[1] * 1.2)})
        },
        plugins: {tooltip: {callbacks: {
          title: function (items) {
            var it = items[0];
            return it.dataset.names ? it.dataset.names[it.dataIndex] : it.dataset.label;
          },
          label: function (ctx) {
            return T.fmtNum(ctx.parsed.y) + ' GOPS at ' + T.fmtNum(ctx.parsed.x) + ' op/B';
          }
        }}}
      }
    }, {height: 420, label: 'roofline'});
  }

  // ---- time per layer --------------------------------------------------------------------------
  sec = T.section(root, 'Time per layer', 'Accelerator layers at the configured clock; CPU layers are measured host time.');
  var timeLabels = [], accMs = [], accPtrs = [], cpuMs = [], cpuPtrs = [], timeNames = [];
  layers.forEach(function (l, i) {
    l = T.obj(l);
    var hasCpu = l.placement === 'cpu' && T.isNum(l.cpu_seconds) && l.cpu_seconds > 0;
    if (!timed(l) && !hasCpu) return;
    timeLabels.push(label(l, i));
    timeNames.push('#' + i + ' ' + l.name + ' (' + l.op + ')');
    accMs.push(timed(l) ? l.seconds_at_clock * 1e3 : null);
    accPtrs.push(timed(l) ? {ptr: L(i, 'seconds_at_clock'), scale: 1e3} : null);
    cpuMs.push(hasCpu ? l.cpu_seconds * 1e3 : null);
    cpuPtrs.push(hasCpu ? {ptr: L(i, 'cpu_seconds'), scale: 1e3} : null);
  });
  if (!timeLabels.length) {
    T.note(sec, 'No layer has a time.');
  } else {
    var tds = [{label: 'accelerator (at clock)', data: accMs, tauvtaPtrs: accPtrs, backgroundColor: T.color(0)}];
    if (cpuMs.some(function (v) { return v !== null; })) {
      tds.push({label: 'CPU (host)', data: cpuMs, tauvtaPtrs: cpuPtrs, backgroundColor: T.color(1)});
    }
    T.chart(sec, {
      type: 'bar',
      data: {labels: timeLabels, datasets: tds},
      options: {
        scales: {x: T.axis('layer', 'category', {stacked: true, ticks: {autoSkip: true, maxRotation: 60}}),
                 y: T.axis('time (ms)', 'linear', {stacked: true, beginAtZero: true})},
        plugins: {tooltip: {callbacks: {
          title: function (items) { return timeNames[items[0].dataIndex]; },
          label: T.tooltipValue('ms')
        }}}
      }
    }, {height: 340, categories: timeLabels.length, perCategory: 10});
  }

  // ---- modules: busy vs stalled ----------------------------------------------------------------
  sec = T.section(root, 'Load, compute and store modules per layer',
    'Cycles of each module per accelerator layer, split by what it was doing: busy, stalled on DRAM, ' +
    'on a dependency token or on a full command queue, or idle. One bar per module (load | compute | store).');
  var timedIdx = [];
  layers.forEach(function (l, i) { if (timed(l) && l.modules && typeof l.modules === 'object') timedIdx.push(i); });
  if (!timedIdx.length) {
    T.note(sec, 'No accelerator layer has module cycles.');
  } else {
    var modNames = [];
    var reasonSet = {};
    timedIdx.forEach(function (i) {
      var mods = T.obj(layers[i].modules);
      Object.keys(mods).forEach(function (m) {
        if (modNames.indexOf(m) < 0) modNames.push(m);
        Object.keys(T.obj(mods[m])).forEach(function (k) { if (/_cycles$/.test(k)) reasonSet[k] = true; });
      });
    });
    var pref = ['load', 'compute', 'store'];
    modNames.sort(function (a, b) {
      var x = pref.indexOf(a), y = pref.indexOf(b);
      return (x < 0 ? 99 : x) - (y < 0 ? 99 : y) || (a < b ? -1 : a > b ? 1 : 0);
    });
    var reasonOrder = ['busy_cycles', 'stall_dram_cycles', 'stall_token_cycles', 'stall_queue_cycles', 'idle_cycles'];
    var reasons = reasonOrder.filter(function (r) { return reasonSet[r]; })
      .concat(Object.keys(reasonSet).filter(function (r) { return reasonOrder.indexOf(r) < 0; }).sort());
    var reasonColor = {busy_cycles: '#59a14f', stall_dram_cycles: '#e15759', stall_token_cycles: '#f28e2b',
                       stall_queue_cycles: '#b07aa1', idle_cycles: '#d7dbe0'};
    var reasonLabel = function (r) { return r.replace(/_cycles$/, '').replace(/^stall_(.*)$/, '$1 stall'); };
    var mds = [];
    modNames.forEach(function (m) {
      reasons.forEach(function (r, ri) {
        mds.push({
          label: reasonLabel(r), module: m, reason: r, stack: m,
          data: timedIdx.map(function (i) { var v = T.obj(T.obj(layers[i].modules)[m])[r]; return T.isNum(v) ? v : null; }),
          tauvtaPtrs: timedIdx.map(function (i) {
            return T.isNum(T.obj(T.obj(layers[i].modules)[m])[r]) ? T.ptr('layers', i, 'modules', m, r) : null;
          }),
          backgroundColor: reasonColor[r] || T.color(ri + 5)
        });
      });
    });
    var modLabels = timedIdx.map(function (i) { return label(layers[i], i); });
    T.chart(sec, {
      type: 'bar',
      data: {labels: modLabels, datasets: mds},
      options: {
        scales: {x: T.axis('layer (bars: ' + modNames.join(' | ') + ')', 'category', {stacked: true, ticks: {autoSkip: true, maxRotation: 60}}),
                 y: T.axis('cycles', 'linear', {stacked: true, beginAtZero: true})},
        plugins: {
          legend: {labels: {
            // one legend entry per reason (the datasets of the first module stand for all modules)
            filter: function (item, chartData) { return chartData.datasets[item.datasetIndex].module === modNames[0]; }
          }, onClick: function (e, item, legend) {
            var ch = legend.chart;
            var reason = ch.data.datasets[item.datasetIndex].reason;
            var hide = ch.isDatasetVisible(item.datasetIndex);
            ch.data.datasets.forEach(function (ds, k) { if (ds.reason === reason) ch.setDatasetVisibility(k, !hide); });
            ch.update();
          }},
          tooltip: {mode: 'nearest', callbacks: {
            title: function (items) { var i = timedIdx[items[0].dataIndex]; return '#' + i + ' ' + layers[i].name; },
            label: function (ctx) { return ctx.dataset.module + ' ' + ctx.dataset.label + ': ' + T.fmtInt(ctx.parsed.y) + ' cycles'; }
          }}
        }
      }
    }, {height: 380, categories: timedIdx.length * modNames.length, perCategory: 9});
  }

  // ---- placement -------------------------------------------------------------------------------
  sec = T.section(root, 'Placement', 'Where each layer runs; a CPU layer says why it is not on the accelerator.');
  var row = T.el('div', {class: 'row'});
  sec.appendChild(row);
  var left = row.appendChild(T.el('div', {class: 'col'}));
  var right = row.appendChild(T.el('div', {class: 'col'}));
  var pl = [], plData = [], plPtrs = [];
  if (T.isNum(T.get('/total/vta_layers'))) { pl.push('accelerator'); plData.push(R.total.vta_layers); plPtrs.push('/total/vta_layers'); }
  if (T.isNum(T.get('/total/cpu_layers'))) { pl.push('CPU'); plData.push(R.total.cpu_layers); plPtrs.push('/total/cpu_layers'); }
  if (!pl.length) {  // no totals: count the table
    var c = {vta: 0, cpu: 0};
    layers.forEach(function (l) { if (l && c[l.placement] !== undefined) c[l.placement]++; });
    pl = ['accelerator', 'CPU'];
    plData = [c.vta, c.cpu];
    plPtrs = [null, null];
  }
  T.chart(left, {
    type: 'bar',
    data: {labels: pl, datasets: [{label: 'layers', data: plData, tauvtaPtrs: plPtrs, backgroundColor: [T.color(0), T.color(1)]}]},
    options: {indexAxis: 'y', plugins: {legend: {display: false}},
              scales: {x: T.axis('layers', 'linear', {beginAtZero: true, ticks: {precision: 0}}), y: T.axis('placement', 'category')}}
  }, {height: 160});
  T.note(left, 'Counts from the report\u2019s totals (layers folded into a neighbour, such as a reshape, are not counted).');
  var cpuRows = [];
  layers.forEach(function (l, i) {
    if (!l || l.placement !== 'cpu') return;
    cpuRows.push([{ptr: L(i, 'name'), kind: 'str'}, {ptr: L(i, 'op'), kind: 'str'}, {ptr: L(i, 'reason'), kind: 'str'}]);
  });
  right.appendChild(T.el('h3', {text: 'CPU layers (' + cpuRows.length + ')'}));
  if (cpuRows.length) T.table(right, [{title: 'layer', cls: 'name'}, {title: 'op'}, {title: 'reason', cls: 'wrap'}], cpuRows, {compact: true});
  else T.note(right, 'Every layer runs on the accelerator.');
  var fallbacks = T.arr(q.cpu_fallbacks);
  if (fallbacks.length) {
    right.appendChild(T.el('h3', {text: 'Float fallbacks'}));
    var ul = right.appendChild(T.el('ul'));
    fallbacks.forEach(function (f, k) { ul.appendChild(T.val(T.ptr('quantization', 'cpu_fallbacks', k), 'str', 'li')); });
  }

  // ---- passes ----------------------------------------------------------------------------------
  var passes = T.arr(R.passes);
  if (passes.length) {
    sec = T.section(root, 'Compiler passes');
    T.table(sec, [{title: 'pass'}, {title: 'ms', num: true}], passes.map(function (p, i) {
      return [{ptr: T.ptr('passes', i, 'pass'), kind: 'str'}, {ptr: T.ptr('passes', i, 'seconds'), kind: 'ms'}];
    }), {compact: true});
  }
};
