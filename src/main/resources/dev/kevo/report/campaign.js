// The campaign page: draws every section from K.data (see ReportData.java for what each field means).
(() => {
  const { data, el, fmt } = K;
  const s = data.summary;

  document.getElementById('summary').append(
    el('p', { class: 'big', text: s.championId
      ? `champion ${s.championId}: score ${fmt.score(s.championScore)}`
        + (s.championScoreCi ? ` (95% CI ${fmt.score(s.championScoreCi[0])}-${fmt.score(s.championScoreCi[1])})` : '')
        + ` over ${s.baseline}, ${s.op} in ${s.dtype}, memory floor ${fmt.floor(s.championFloor)} (geometric means over the suite)`
      : 'no champion yet: no mutant has passed' }),
    ...(s.championStanding ? [el('p', { class: 'standing', text: s.championStanding })] : []),
    ...(s.championId ? [el('p', { text: 'compute-sanitizer: ' + (s.championSanitized
      || 'not run on the champion (kevo eval --sanitize FILE records it; kevo export asks for it)') })] : []),
    ...(s.championConfirmed ? [el('p', { text: s.championConfirmed })] : []),
    el('p', { text: `op ${s.op}, suite ${s.suite} (${s.shapes.length} shapes), dtype ${s.dtype}, baseline ${s.baseline}, ${s.islands} islands x ${s.population}, `
      + `agents ${s.agents.join(', ')}; ${s.generation == null ? 0 : s.generation} generations, ${s.evaluations} evaluations `
      + `(${s.mutants} mutants: ${s.cacheHits} cache hits, ${s.rejected} rejected) in ${fmt.min(s.minutes)} min; `
      + `started ${s.createdAt} with kevo ${s.kevoVersion}` }));

  // --- Score against evaluations and against wall time, per island ---
  function progressChart(id, x, xTitle) {
    const datasets = [];
    // Best so far: stepped 'before' holds the last value flat until the next point, then steps.
    for (const island of data.islands) {
      const color = K.islandColor(island.island);
      datasets.push({ label: `island ${island.island} best`, borderColor: color, backgroundColor: color,
        stepped: 'before', pointRadius: 0, borderWidth: 2,
        data: island.points.filter(p => p.best != null).map(p => ({ x: p[x], y: p.best, g: p.generation })) });
      // A generation with no passing child has no median: a gap in the line, not a line across it.
      datasets.push({ label: `island ${island.island} median`, borderColor: color, backgroundColor: color,
        borderDash: [5, 4], pointRadius: 2, borderWidth: 1,
        data: island.points.map(p => ({ x: p[x], y: p.median, g: p.generation })) });
    }
    datasets.push({ label: 'every passing mutant', showLine: false, pointRadius: 2,
      borderColor: 'rgba(90,90,90,0.35)', backgroundColor: 'rgba(90,90,90,0.2)',
      data: data.evaluations.filter(e => e.score != null && e.island >= 0)
        .map(e => ({ x: e[x], y: e.score, id: e.id, g: e.generation })) });
    datasets.push({ label: 'new champion', showLine: false, pointStyle: 'star', pointRadius: 9, borderWidth: 1.5,
      borderColor: '#000', backgroundColor: '#ffd43b',
      data: data.champions.map(c => ({ x: c[x], y: c.score, id: c.id, g: c.generation })) });
    K.chart(id, { type: 'line', data: { datasets }, options: {
      scales: { x: { type: 'linear', title: { display: true, text: xTitle } },
        y: { title: { display: true, text: `score (x over ${s.baseline})` } } },
      plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } },
        tooltip: { callbacks: { label: ctx => `${ctx.dataset.label}: ${fmt.score(ctx.parsed.y)}`
          + (ctx.raw.id ? ` ${ctx.raw.id}` : '') + (ctx.raw.g != null ? ` (generation ${ctx.raw.g})` : '') } } } } });
  }
  progressChart('chart-evals', 'evaluation', 'evaluations');
  progressChart('chart-time', 'minutes', 'wall time (minutes)');
  // The seeds score far below what evolution reaches, which flattens the later curves; a zoom to the range of
  // the children's scores (from their 10th percentile up) shows how the islands converge.
  const children = data.evaluations.filter(e => e.score != null && e.island >= 0).map(e => e.score).sort((p, q) => p - q);
  if (children.length) {
    const low = children[Math.floor(children.length * 0.1)];
    let zoomed = false;
    const button = el('button', { type: 'button', id: 'zoom-progress', text: 'Zoom to the children\'s scores' });
    button.addEventListener('click', () => {
      zoomed = !zoomed;
      for (const id of ['chart-evals', 'chart-time']) {
        K.charts[id].options.scales.y.min = zoomed ? low : undefined;
        K.charts[id].update();
      }
      button.textContent = zoomed ? 'Show the whole range' : 'Zoom to the children\'s scores';
    });
    document.getElementById('progress-tools').append(button);
  }

  // --- Per shape: time and fraction of the memory floor ---
  const bars = data.shapes;
  let seedIndex = 0;
  const style = series => {
    if (series.role === 'champion') return { backgroundColor: '#2f6fdf', borderColor: '#2f6fdf' };
    if (series.role === 'baseline') return { backgroundColor: '#495057', borderColor: '#495057' };
    if (series.role === 'floor') return { backgroundColor: '#000', borderColor: '#000' };
    const c = K.seedPalette[seedIndex++ % K.seedPalette.length];
    return { backgroundColor: c, borderColor: c };
  };
  const styles = bars.series.map(style);
  const shapeTooltip = unit => ({ callbacks: { label: ctx => `${ctx.dataset.label}: ${unit(ctx.parsed.y)}` } });
  K.chart('chart-shape-time', { type: 'bar', data: { labels: bars.shapes, datasets: bars.series.map((series, i) =>
    series.role === 'floor'
      ? { type: 'line', label: series.name, data: series.timeUs, showLine: false, pointStyle: 'line',
          pointRadius: 14, borderWidth: 3, ...styles[i] }
      : { label: series.name, data: series.timeUs, ...styles[i] }) },
    options: { scales: { y: { type: 'logarithmic', title: { display: true, text: 'median time (us, log scale)' } } },
      plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } }, tooltip: shapeTooltip(v => fmt.us(v) + ' us') } } });
  K.chart('chart-shape-floor', { type: 'bar', data: { labels: bars.shapes, datasets: bars.series.map((series, i) =>
    series.role === 'floor'
      ? { type: 'line', label: 'memory floor = 1.0', data: series.floor, pointRadius: 0, borderDash: [6, 4],
          borderWidth: 2, ...styles[i] }
      : { label: series.name, data: series.floor, ...styles[i] }) },
    options: { scales: { y: { beginAtZero: true, title: { display: true, text: 'fraction of the memory floor (copy time / time)' } } },
      plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } }, tooltip: shapeTooltip(fmt.floor) } } });

  // --- Lineage graph and the mutant panel ---
  const panel = document.getElementById('mutant-panel');
  let cy = null;
  const topRows = {};
  function show(id) {
    K.mutantPanel(panel, data.mutants[id], 'mutant');
    if (cy) {
      cy.nodes().unselect();
      cy.getElementById(id).select();
    }
    for (const [rowId, row] of Object.entries(topRows)) row.classList.toggle('selected', rowId === id);
  }
  const lineage = data.lineage;
  if (lineage.nodes.length) {
    // One row per step from the seeds (the longest path, as the layout puts them): size the box so the graph
    // fits at about its natural size instead of shrinking a long lineage into a fixed box.
    const depth = Object.fromEntries(lineage.nodes.map(n => [n.id, 0]));
    for (let pass = 0; pass < lineage.nodes.length; pass++) {
      for (const e of lineage.edges) depth[e.target] = Math.max(depth[e.target], depth[e.source] + 1);
    }
    const rows = Math.max(...Object.values(depth)) + 1;
    const perRow = {};
    for (const d of Object.values(depth)) perRow[d] = (perRow[d] || 0) + 1;
    const widest = Math.max(...Object.values(perRow));
    const box = document.getElementById('lineage');
    box.style.height = Math.min(1600, Math.max(320, rows * 84 + 90)) + 'px';
    cy = cytoscape({
      container: document.getElementById('lineage'),
      elements: [
        ...lineage.nodes.map(n => ({ data: { id: n.id, role: n.role, color: K.islandColor(n.island),
          label: `${n.id}\n${n.score != null ? fmt.score(n.score) : n.verdict}  ${n.agent}` } })),
        ...lineage.edges.map((e, i) => ({ data: { id: 'edge' + i, source: e.source, target: e.target, kind: e.kind } })),
      ],
      style: [
        { selector: 'node', style: { label: 'data(label)', 'text-wrap': 'wrap', 'text-valign': 'center',
          'text-halign': 'center', shape: 'round-rectangle', width: 150, height: 42, 'font-size': 12,
          'background-color': 'data(color)', 'background-opacity': 0.22, 'border-width': 1, 'border-color': '#555',
          color: '#111' } },
        { selector: 'node[role = "seed"]', style: { shape: 'rectangle', 'background-color': '#adb5bd' } },
        { selector: 'node[role = "champion"]', style: { 'border-width': 4, 'border-color': '#f08c00' } },
        { selector: 'node:selected', style: { 'border-width': 4, 'border-color': '#2f6fdf', 'background-opacity': 0.45 } },
        { selector: 'edge', style: { width: 2, 'line-color': '#777', 'target-arrow-color': '#777',
          'target-arrow-shape': 'triangle', 'curve-style': 'bezier', label: 'data(kind)', 'font-size': 9,
          color: '#555', 'text-rotation': 'autorotate', 'text-background-color': '#fff',
          'text-background-opacity': 0.85 } },
        { selector: 'edge[kind = "crossover"]', style: { 'line-style': 'dashed', 'line-color': '#2f6fdf',
          'target-arrow-color': '#2f6fdf' } },
        { selector: 'edge[kind = "repair"]', style: { 'line-style': 'dotted', width: 3, 'line-color': '#d9480f',
          'target-arrow-color': '#d9480f' } },
        { selector: 'edge[kind = "tuning"]', style: { 'line-color': '#2b8a3e', 'target-arrow-color': '#2b8a3e' } },
      ],
      autounselectify: false,
      boxSelectionEnabled: false,
      minZoom: 0.1,
      maxZoom: 2,
    });
    // Seeds on top, each later step one row down; maximal keeps every edge pointing down in a DAG.
    // Rows 84 px apart and columns 175 px (a node is 150 x 42): the layout's own overlap avoidance would space
    // rows by the node's width too.
    cy.layout({ name: 'breadthfirst', directed: true, roots: cy.nodes('[role = "seed"]'), maximal: true,
      avoidOverlap: false, padding: 20,
      boundingBox: { x1: 0, y1: 0, w: widest * 175, h: rows * 84 } }).run();
    cy.on('tap', 'node', evt => show(evt.target.id()));
  } else {
    document.getElementById('lineage').append(el('p', { class: 'note', text: 'No champion yet, so no lineage.' }));
  }

  // --- Verdicts per generation ---
  const bins = data.verdicts;
  const groups = Object.keys(K.groupColors).filter(g => bins.some(b => b.groups[g]));
  K.chart('chart-verdicts', { type: 'bar', data: {
    labels: bins.map(b => (b.generation === 0 ? 'seeds' : String(b.generation))),
    datasets: groups.map(g => ({ label: g, data: bins.map(b => b.groups[g] || 0), backgroundColor: K.groupColors[g] })) },
    options: { scales: { x: { stacked: true, title: { display: true, text: 'generation' } },
      y: { stacked: true, title: { display: true, text: 'mutants' }, ticks: { precision: 0 } } },
      plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } },
        tooltip: { callbacks: { footer: items => Object.entries(bins[items[0].dataIndex].verdicts)
          .map(([v, n]) => `${v}: ${n}`).join('\n') } } } } });
  if (groups.length === 1 && groups[0] === 'pass') {
    document.getElementById('verdict-note').append(' Every mutant of this campaign passed.');
  }
  const verdictGroup = {};
  for (const e of data.evaluations) verdictGroup[e.verdict] = e.group;
  document.getElementById('verdict-table').append(K.table(
    [{ label: 'verdict', text: true }, { label: 'group', text: true }, { label: 'mutants' }],
    Object.entries(s.verdicts).map(([v, n]) => ({ cells: [v, verdictGroup[v], n] }))));

  // --- LLM tokens and cost, only when some record carries them ---
  if (data.usage.length) {
    document.getElementById('usage').hidden = false;
    const usageChart = (id, key, title, format) => K.chart(id, { type: 'line', data: {
      datasets: data.usage.map((u, i) => ({ label: u.model, stepped: 'before', pointRadius: 2,
        borderColor: K.islandColor(i), backgroundColor: K.islandColor(i),
        data: u.points.map(p => ({ x: p.minutes, y: p[key], id: p.id })) })) },
      options: { scales: { x: { type: 'linear', title: { display: true, text: 'wall time (minutes)' } },
        y: { beginAtZero: true, title: { display: true, text: title } } },
        plugins: { legend: { position: 'bottom' }, tooltip: { callbacks: {
          label: ctx => `${ctx.dataset.label}: ${format(ctx.parsed.y)} (after ${ctx.raw.id})` } } } } });
    usageChart('chart-tokens', 'totalTokens', 'tokens (running total)', fmt.int);
    usageChart('chart-cost', 'totalCostUsd', 'cost in USD (running total)', fmt.usd);
  }

  // --- Top mutants ---
  const headers = [{ label: '#' }, { label: 'mutant', text: true }, { label: 'score' }, { label: 'floor' },
    { label: 'worst shape (floor)', text: true }, { label: 'gen' }, { label: 'island' }, { label: 'agent', text: true },
    { label: 'operator', text: true }, { label: 'what changed', text: true }, { label: 'files', text: true }];
  const topTable = K.table(headers, data.top.map(r => ({
    props: { class: 'clickable', 'data-id': r.id, onclick: () => { show(r.id); panel.scrollIntoView({ block: 'nearest' }); } },
    cells: [r.rank, r.id, fmt.score(r.score), fmt.floor(r.floor),
      r.worstShape ? `${r.worstShape} (${fmt.floor(r.worstFloor)})` : '-', r.generation, fmt.island(r.island), r.agent,
      r.operator, r.summary || '',
      el('span', {}, el('a', { href: r.sourceHref, text: '.cu', onclick: e => e.stopPropagation() }), ' ',
        el('a', { href: r.jsonHref, text: '.json', onclick: e => e.stopPropagation() }))],
  })));
  for (const row of topTable.querySelectorAll('tbody tr')) topRows[row.getAttribute('data-id')] = row;
  document.getElementById('top-table').append(topTable);

  const first = s.championId || (data.top.length ? data.top[0].id : null);
  if (first) show(first);
  // For people poking at the page from the console, and for the browser test.
  window.kevo = { data, cy, charts: K.charts, show };
})();
