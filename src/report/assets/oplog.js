/* tauvta HTML report, kind "oplog": every VTA record of an AutoTVM/TopHub log run on the model.
 * report: `tauvta op --log --report` (records[] with the predicted time and, where the log has it,
 * the time recorded on the board; board_comparison with by_kind and by_session; bitstreams;
 * configs). extra: unused. */
tauvta.pages.oplog = function (data, root) {
  var T = tauvta;
  var R = data.report;
  var records = T.arr(R.records);
  var BAND = 0.35;  // the ±35% band the CLI counts records outside of

  function P(i, key) { return T.ptr('records', i, key); }
  function ran(r) { return T.isNum(r.seconds_at_clock) && r.seconds_at_clock > 0; }
  function compared(r) { return ran(r) && T.isNum(r.board_seconds) && r.board_seconds > 0; }
  function lineNo(r, i) { return T.isNum(r.line) ? r.line : i + 1; }

  // ---- summary ---------------------------------------------------------------------------------
  var sec = T.section(root, 'Summary');
  var bc = T.obj(R.board_comparison);
  T.stats(sec, [
    ['records', String(records.length)],
    ['failed', '/failed', 'int'],
    ['timing only', '/timing_only', 'str'],
    ['wall time', '/wall_seconds', 'num', 's'],
    bc.records !== undefined ? ['compared with the board', '/board_comparison/records', 'int'] : null,
    bc.median_abs_error !== undefined ? ['median |error|', '/board_comparison/median_abs_error', 'pct'] : null,
    bc.max_abs_error !== undefined ? ['max |error|', '/board_comparison/max_abs_error', 'pct'] : null,
    bc.above_35_percent !== undefined ? ['records above 35%', '/board_comparison/above_35_percent', 'int'] : null
  ]);
  T.kvTable(sec, [R.log !== undefined ? ['log', '/log', 'str'] : null]);

  // tasks (conv2d_packed.vta, dense_packed.vta, ...) get one color each in the charts
  var taskNames = [];
  records.forEach(function (r) { var t = T.obj(r).task || '?'; if (taskNames.indexOf(t) < 0) taskNames.push(t); });

  // ---- predicted vs recorded -------------------------------------------------------------------
  var cmp = [];
  records.forEach(function (r, i) { if (compared(T.obj(r))) cmp.push(i); });
  sec = T.section(root, 'Predicted vs recorded on the board',
    'Each record\u2019s time from the timing model against the time the log recorded on the board (log-log). ' +
    'On the solid line the model is exact; the dashed lines are \u00b135%. Outliers have a red ring.');
  if (!cmp.length) {
    T.note(sec, 'No record has both a predicted and a recorded time.');
  } else {
    var all = [];
    var ds = taskNames.map(function (t, k) {
      var idx = cmp.filter(function (i) { return (records[i].task || '?') === t; });
      idx.forEach(function (i) { all.push(records[i].board_seconds * 1e3, records[i].seconds_at_clock * 1e3); });
      return {
        label: t, idx: idx,
        data: idx.map(function (i) { return {x: records[i].board_seconds * 1e3, y: records[i].seconds_at_clock * 1e3}; }),
        tauvtaPtrs: idx.map(function (i) { return {x: {ptr: P(i, 'board_seconds'), scale: 1e3}, y: {ptr: P(i, 'seconds_at_clock'), scale: 1e3}}; }),
        backgroundColor: T.color(k, 0.75),
        borderColor: idx.map(function (i) { return Math.abs(records[i].error) > BAND ? '#c0392b' : T.color(k); }),
        borderWidth: idx.map(function (i) { return Math.abs(records[i].error) > BAND ? 2.5 : 1; }),
        pointRadius: 5, pointHoverRadius: 7
      };
    }).filter(function (d) { return d.data.length; });
    var rg = T.posRange(all);
    var lo = T.decadeFloor(rg[0] / 1.5), hi = T.decadeCeil(rg[1] * 1.5);
    function line(label, f, dash, color) {
      return {label: label, data: [{x: lo, y: lo * f}, {x: hi, y: hi * f}], showLine: true, pointRadius: 0,
              borderColor: color, borderWidth: 1.5, borderDash: dash, tauvtaPtrs: [null, null]};
    }
    ds.push(line('model = board', 1, [], '#333'));
    ds.push(line('+35%', 1 + BAND, [6, 4], '#999'));
    ds.push(line('\u221235%', 1 - BAND, [6, 4], '#999'));
    T.chart(sec, {
      type: 'scatter',
      data: {datasets: ds},
      options: {
        scales: {x: T.axis('recorded on the board (ms)', 'logarithmic', {min: lo, max: hi}),
                 y: T.axis('predicted by the timing model (ms)', 'logarithmic', {min: lo, max: hi})},
        plugins: {tooltip: {callbacks: {
          title: function (items) {
            var d = items[0].dataset;
            if (!d.idx) return d.label;
            var r = records[d.idx[items[0].dataIndex]];
            return 'line ' + r.line + ': ' + r.workload;
          },
          label: function (ctx) {
            var d = ctx.dataset;
            if (!d.idx) return d.label;
            var r = records[d.idx[ctx.dataIndex]];
            return ['board ' + T.fmtNum(ctx.parsed.x) + ' ms, model ' + T.fmtNum(ctx.parsed.y) + ' ms',
                    'error ' + T.fmt(r.error, 'spct') + ' (' + r.model + ')'];
          }
        }}}
      }
    }, {height: 480});
  }

  // ---- error per record ------------------------------------------------------------------------
  var withErr = [];
  records.forEach(function (r, i) { if (T.isNum(T.obj(r).error) && compared(r)) withErr.push(i); });
  sec = T.section(root, 'Error per record', '(model \u2212 board) / board for every record with a board time, by line of the log.');
  if (!withErr.length) {
    T.note(sec, 'No record was compared with a board time.');
  } else {
    var labels = withErr.map(function (i) { return String(lineNo(records[i], i)); });
    T.chart(sec, {
      type: 'bar',
      data: {labels: labels, datasets: [
        {label: 'error', data: withErr.map(function (i) { return records[i].error * 100; }),
         tauvtaPtrs: withErr.map(function (i) { return {ptr: P(i, 'error'), scale: 100}; }),
         backgroundColor: withErr.map(function (i) { return Math.abs(records[i].error) > BAND ? '#e15759' : T.color(0); })},
        {type: 'line', label: '+35%', data: labels.map(function () { return BAND * 100; }), tauvtaPtrs: labels.map(function () { return null; }),
         borderColor: '#999', borderDash: [6, 4], pointRadius: 0, borderWidth: 1.5},
        {type: 'line', label: '\u221235%', data: labels.map(function () { return -BAND * 100; }), tauvtaPtrs: labels.map(function () { return null; }),
         borderColor: '#999', borderDash: [6, 4], pointRadius: 0, borderWidth: 1.5}
      ]},
      options: {
        scales: {x: T.axis('line of the log', 'category', {ticks: {autoSkip: true}}), y: T.axis('error (%)', 'linear')},
        plugins: {legend: {display: false}, tooltip: {callbacks: {
          title: function (items) { var r = records[withErr[items[0].dataIndex]]; return 'line ' + r.line + ': ' + r.workload; },
          label: function (ctx) { return ctx.dataset.label + ': ' + (ctx.parsed.y > 0 ? '+' : '') + T.fmtNum(ctx.parsed.y, 3) + '%'; }
        }}}
      }
    }, {height: 300, categories: labels.length, perCategory: 9});
  }

  // without any board time, the predicted time per record is the picture
  if (!cmp.length) {
    var ranIdx = [];
    records.forEach(function (r, i) { if (ran(T.obj(r))) ranIdx.push(i); });
    if (ranIdx.length) {
      sec = T.section(root, 'Predicted time per record');
      T.chart(sec, {
        type: 'bar',
        data: {labels: ranIdx.map(function (i) { return String(lineNo(records[i], i)); }), datasets: [{
          label: 'predicted (ms)', backgroundColor: T.color(0),
          data: ranIdx.map(function (i) { return records[i].seconds_at_clock * 1e3; }),
          tauvtaPtrs: ranIdx.map(function (i) { return {ptr: P(i, 'seconds_at_clock'), scale: 1e3}; })}]},
        options: {scales: {x: T.axis('line of the log', 'category'), y: T.axis('time at clock (ms)', 'logarithmic')},
                  plugins: {legend: {display: false}}}
      }, {height: 300, categories: ranIdx.length, perCategory: 9});
    }
  }

  // ---- error by kind and by session ------------------------------------------------------------
  // board_comparison.by_kind (template, kernel size, config) and .by_session (the day measured,
  // config and the bitstream the record was timed with), so a weak kind of record stands out.
  [['by_kind', 'Error by kind of record', 'Template, kernel size and config: records, median signed and absolute error, worst |error|.'],
   ['by_session', 'Error by session', 'The day each record was measured, its config and the bitstream it was timed with (HLS design unless the bitstream table names another).']
  ].forEach(function (g) {
    var kinds = T.arr(bc[g[0]]);
    if (!kinds.length) return;
    var ks = T.section(root, g[1], g[2]);
    function K(i, key) { return T.ptr('board_comparison', g[0], i, key); }
    T.table(ks, [{title: 'kind', cls: 'wrap'}, {title: 'records', num: true}, {title: 'median error', num: true},
                 {title: 'median |error|', num: true}, {title: 'max |error|', num: true}],
      kinds.map(function (k, i) {
        return [{ptr: K(i, 'kind'), kind: 'str'}, {ptr: K(i, 'records'), kind: 'int'}, {ptr: K(i, 'median_error'), kind: 'spct'},
                {ptr: K(i, 'median_abs_error'), kind: 'pct'}, {ptr: K(i, 'max_abs_error'), kind: 'pct'}];
      }), {compact: true});
  });
  var bitstreams = T.arr(R.bitstreams);
  if (bitstreams.length) {
    var bs = T.section(root, 'Bitstreams', 'Records timed with a bitstream whose hardware differs from the HLS design, what differs and the evidence.');
    T.table(bs, [{title: 'bitstream'}, {title: 'config'}, {title: 'measured from'}, {title: 'to'}, {title: 'records', num: true},
                 {title: 'TIMING'}, {title: 'evidence', cls: 'wrap'}],
      bitstreams.map(function (b, i) {
        function B(key) { return T.ptr('bitstreams', i, key); }
        return [{ptr: B('name'), kind: 'str'}, {ptr: B('config'), kind: 'str'}, {ptr: B('measured_from'), kind: 'str'},
                {ptr: B('measured_to'), kind: 'str'}, {ptr: B('records'), kind: 'int'},
                {text: JSON.stringify(T.obj(b).timing || {})}, {ptr: B('evidence'), kind: 'str'}];
      }), {compact: true});
  }

  // ---- records table ---------------------------------------------------------------------------
  sec = T.section(root, 'Records (' + records.length + ')');
  var cols = [{title: 'line', num: true}, {title: 'task'}, {title: 'config'}, {title: 'workload', cls: 'wrap'},
              {title: 'cycles', num: true}, {title: 'model ms', num: true}, {title: 'board ms', num: true},
              {title: 'error', num: true}, {title: 'GOPS', num: true}, {title: 'util', num: true},
              {title: 'result', cls: 'wrap'}, {title: 'bitstream'}, {title: 'schedule', cls: 'wrap mono'}];
  var blank = {text: '', sort: null};
  var rows = records.map(function (r, i) {
    r = T.obj(r);
    var ok = ran(r);
    return [
      r.line !== undefined ? {ptr: P(i, 'line'), kind: 'int'} : {text: String(i + 1), sort: i + 1},
      {ptr: P(i, 'task'), kind: 'str'},
      {ptr: P(i, 'model'), kind: 'str'},
      {ptr: P(i, 'workload'), kind: 'str'},
      ok ? {ptr: P(i, 'cycles'), kind: 'int'} : blank,
      ok ? {ptr: P(i, 'seconds_at_clock'), kind: 'ms'} : blank,
      T.isNum(r.board_seconds) ? {ptr: P(i, 'board_seconds'), kind: 'ms'} : blank,
      T.isNum(r.error) ? {ptr: P(i, 'error'), kind: 'spct'} : blank,
      ok ? {ptr: P(i, 'gops'), kind: 'num'} : blank,
      ok && r.gemm_utilization !== undefined ? {ptr: P(i, 'gemm_utilization'), kind: 'pct'} : blank,
      {ptr: P(i, 'result'), kind: 'str'},
      r.bitstream !== undefined ? {ptr: P(i, 'bitstream'), kind: 'str'} : blank,
      {ptr: P(i, 'schedule'), kind: 'str'}
    ];
  });
  T.table(sec, cols, rows, {rowClass: function (row) {
    var p = row[10] && row[10].ptr;
    var res = p ? T.get(p) : '';
    return res && res !== 'timed' && res !== 'verified' ? 'failed' : '';
  }});
};
