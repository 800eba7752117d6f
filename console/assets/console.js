// Draws every chart of the page with uPlot from the JSON embedded beside it (console/html.ts `chart`). The uPlot
// instances are kept in window.__consoleCharts by name, so a test can read exactly what was plotted.
(function () {
  'use strict';
  var charts = (window.__consoleCharts = window.__consoleCharts || {});
  var palette = ['#2e5bff', '#f04438', '#12b76a', '#f79009', '#7a5af8', '#06aed4', '#ee46bc', '#667085'];
  function draw(box) {
    var id = box.getAttribute('data-chart');
    var script = document.getElementById(id);
    if (!script) return;
    var spec = JSON.parse(script.textContent);
    var width = Math.max(320, Math.min(box.clientWidth || 900, 1300));
    var bars = spec.kind === 'bars';
    var series = [
      {
        label: spec.time ? 'time' : 'run',
        value: function (u, v) {
          return v == null
            ? ''
            : spec.xLabels
              ? spec.xLabels[v] || ''
              : spec.time
                ? new Date(v * 1000).toISOString().replace('T', ' ').slice(0, 19)
                : v;
        },
      },
    ];
    spec.series.forEach(function (label, i) {
      var color = palette[i % palette.length];
      var s = { label: label, stroke: color, width: 2, spanGaps: true, points: { show: true, size: 6 } };
      // A price holds until the next observation: a step at each change, never a slope between two observations.
      if (spec.kind === 'steps') s.paths = uPlot.paths.stepped({ align: 1 });
      if (bars) {
        s.fill = color + '99';
        s.paths = uPlot.paths.bars({ size: [0.6, 60] });
        s.points = { show: false };
      }
      series.push(s);
    });
    var axes = [
      spec.xLabels
        ? {
            values: function (u, splits) {
              return splits.map(function (v) {
                return spec.xLabels[v] || '';
              });
            },
            space: 60,
          }
        : {},
      { label: spec.yLabel, size: 70 },
    ];
    var opts = {
      width: width,
      height: 260,
      series: series,
      axes: axes,
      scales: {
        x: {
          time: !!spec.time,
          range: bars
            ? function (u, min, max) {
                return [min - 0.5, max + 0.5];
              }
            : undefined,
        },
      },
      legend: { live: true },
    };
    charts[box.getAttribute('data-chart-name') || id] = new uPlot(opts, spec.data, box);
  }
  var boxes = document.querySelectorAll('[data-chart]');
  for (var i = 0; i < boxes.length; i++) {
    try {
      draw(boxes[i]);
    } catch (err) {
      boxes[i].textContent = 'chart failed: ' + err;
    }
  }
  document.documentElement.setAttribute('data-charts-ready', String(boxes.length));
})();
