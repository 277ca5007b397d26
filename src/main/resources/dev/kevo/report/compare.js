// The compare page: two campaigns, or two mutants, side by side (see CompareData.java).
(() => {
  const { data, el, fmt } = K;
  const { a, b } = data;
  const colors = { A: '#2f6fdf', B: '#d9480f' };
  const sides = [['A', a], ['B', b]];

  document.getElementById('summary').append(el('p', { class: 'big', text: `${a.label}  vs  ${b.label}` }));
  const notes = document.getElementById('notes');
  for (const n of data.notes) notes.append(el('li', { text: n }));
  document.getElementById('repeatability').textContent = `${Math.round(data.repeatability * 100)}%`;

  const row = (label, f) => ({ cells: [label, f(a), f(b)] });
  const mutantScore = side => (side.mutant ? (side.mutant.score != null ? fmt.score(side.mutant.score) : side.mutant.verdict) : '-');
  document.getElementById('overview-table').append(K.table(
    [{ label: '', text: true }, { label: a.label, text: true }, { label: b.label, text: true }], [
      row('kernel', side => (side.mutant ? side.mutant.id + (side.campaign ? ' (champion)' : '') : '-')),
      row('score', mutantScore),
      row('memory floor', side => (side.mutant ? fmt.floor(side.mutant.floor) : '-')),
      row('campaign', side => side.summary.campaign),
      row('op, suite, dtype, baseline', side => `${side.summary.op}, ${side.summary.suite}, ${side.summary.dtype}, ${side.summary.baseline}`),
      row('evaluations', side => side.summary.evaluations),
      row('wall time (min)', side => fmt.min(side.summary.minutes)),
      row('generations', side => (side.summary.generation == null ? '-' : side.summary.generation)),
      row('islands x population', side => `${side.summary.islands} x ${side.summary.population}`),
      row('agents', side => side.summary.agents.join(', ')),
      row('rejected mutants', side => `${side.summary.rejected} of ${side.summary.mutants}`),
    ]));

  if (a.campaign && b.campaign) {
    document.getElementById('progress').hidden = false;
    const progress = (id, x, title) => K.chart(id, { type: 'line', data: { datasets: sides.map(([name, side]) => ({
      label: side.label, stepped: 'before', borderColor: colors[name], backgroundColor: colors[name], pointStyle: 'star',
      pointRadius: side.progress.map((p, i) => (i === side.progress.length - 1 ? 0 : 7)),
      data: side.progress.map(p => ({ x: p[x], y: p.score, id: p.id })) })) },
      options: { scales: { x: { type: 'linear', title: { display: true, text: title } },
        y: { title: { display: true, text: 'best score (x over baseline)' } } },
        plugins: { legend: { position: 'bottom' }, tooltip: { callbacks: {
          label: ctx => `${ctx.dataset.label}: ${fmt.score(ctx.parsed.y)} ${ctx.raw.id}` } } } } });
    progress('chart-evals', 'evaluation', 'evaluations');
    progress('chart-time', 'minutes', 'wall time (minutes)');

    document.getElementById('verdicts').hidden = false;
    const groups = Object.keys(K.groupColors).filter(g => a.groups[g] || b.groups[g]);
    const share = (side, g) => (side.groups[g] || 0) / Math.max(1, side.summary.mutants);
    K.chart('chart-verdicts', { type: 'bar', data: { labels: groups, datasets: sides.map(([name, side]) => ({
      label: side.label, backgroundColor: colors[name], data: groups.map(g => share(side, g)) })) },
      options: { scales: { y: { beginAtZero: true, title: { display: true, text: 'share of mutants' } } },
        plugins: { legend: { position: 'bottom' }, tooltip: { callbacks: { label: ctx => {
          const side = sides[ctx.datasetIndex][1];
          const n = side.groups[groups[ctx.dataIndex]] || 0;
          return `${side.label}: ${n} of ${side.summary.mutants} (${fmt.pct(ctx.parsed.y)})`;
        } } } } } });
  }

  const shapes = data.shapes;
  const labels = shapes.map(s => s.shape);
  K.chart('chart-shape-time', { type: 'bar', data: { labels, datasets: [
    { label: a.label, data: shapes.map(s => s.aUs), backgroundColor: colors.A },
    { label: b.label, data: shapes.map(s => s.bUs), backgroundColor: colors.B },
    { type: 'line', label: 'memory floor (fastest copy of the same bytes)', data: shapes.map(s => s.copyUs), showLine: false,
      pointStyle: 'line', pointRadius: 14, borderWidth: 3, borderColor: '#000', backgroundColor: '#000' }] },
    options: { scales: { y: { type: 'logarithmic', title: { display: true, text: 'median time (us, log scale)' } } },
      plugins: { legend: { position: 'bottom' }, tooltip: { callbacks: { label: ctx => `${ctx.dataset.label}: ${fmt.us(ctx.parsed.y)} us` } } } } });
  K.chart('chart-shape-floor', { type: 'bar', data: { labels, datasets: [
    { label: a.label, data: shapes.map(s => s.aFloor), backgroundColor: colors.A },
    { label: b.label, data: shapes.map(s => s.bFloor), backgroundColor: colors.B },
    { type: 'line', label: 'memory floor = 1.0', data: shapes.map(() => 1), pointRadius: 0, borderDash: [6, 4],
      borderWidth: 2, borderColor: '#000' }] },
    options: { scales: { y: { beginAtZero: true, title: { display: true, text: 'fraction of the memory floor' } } },
      plugins: { legend: { position: 'bottom' } } } });
  document.getElementById('shape-table').append(K.table(
    [{ label: 'shape', text: true }, { label: 'A (us)' }, { label: 'B (us)' }, { label: 'A/B' }, { label: 'A floor' },
      { label: 'B floor' }, { label: 'A speedup' }, { label: 'B speedup' }],
    shapes.map(s => ({ cells: [s.shape, fmt.us(s.aUs), fmt.us(s.bUs), fmt.ratio(s.ratio), fmt.floor(s.aFloor),
      fmt.floor(s.bFloor), fmt.ratio(s.aSpeedup), fmt.ratio(s.bSpeedup)] }))));

  const diff = document.getElementById('diff');
  if (data.diff) {
    diff.append(el('p', { class: 'note', text: `${data.diff.added} lines added, ${data.diff.removed} removed` }),
      data.diff.unified ? K.diffView(data.diff.unified) : el('p', { text: 'The sources are identical.' }));
  } else {
    diff.append(el('p', { class: 'note', text: 'Nothing to diff: a side has no kernel.' }));
  }
  K.mutantPanel(document.getElementById('panel-a'), a.mutant, 'mutant-a');
  K.mutantPanel(document.getElementById('panel-b'), b.mutant, 'mutant-b');
  window.kevo = { data, charts: K.charts };
})();
