'use strict';
// Shared by the campaign and compare pages. Everything from the data is put into the page as text
// (textContent, attributes), never as HTML: kernel sources and agent summaries hold '<' and '&'.
const K = (() => {
  const data = JSON.parse(document.getElementById('kevo-data').textContent);

  function el(tag, props, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  const fmt = {
    score: s => (s == null ? '-' : s.toFixed(3) + 'x'),
    us: u => (u == null ? '-' : u >= 100 ? u.toFixed(0) : u.toFixed(1)),
    floor: f => (f == null ? '-' : f.toFixed(2)),
    pct: f => (f == null ? '-' : (f * 100).toFixed(1) + '%'),
    min: m => (m == null ? '-' : m.toFixed(1)),
    sci: v => (v == null ? '-' : v.toExponential(1)),
    ratio: r => (r == null ? '-' : r.toFixed(2) + 'x'),
    usd: v => '$' + v.toFixed(v < 1 ? 4 : 2),
    int: v => Number(v).toLocaleString('en-US'),
    island: i => (i < 0 ? 'seed' : String(i)),
  };

  const islandPalette = ['#2f6fdf', '#d9480f', '#2b8a3e', '#9c36b5', '#0c8599', '#e67700', '#c2255c', '#5c7cfa'];
  const islandColor = i => (i < 0 ? '#868e96' : islandPalette[i % islandPalette.length]);
  const seedPalette = ['#adb5bd', '#91a7ff', '#b2f2bb', '#ffc9c9', '#ffe066', '#d0bfff', '#99e9f2', '#ffd8a8'];
  const groupColors = {
    'pass': '#51cf66', 'compile error': '#7048e8', 'wrong result': '#fa5252', 'timeout': '#fd7e14',
    'crash': '#862e2e', 'cheat caught': '#212529', 'agent failure': '#adb5bd',
  };

  // Static pictures: no animation (a screenshot or a print shows the final state), size from the CSS box.
  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.font.size = 12;

  const charts = {};
  function chart(id, config) {
    const c = new Chart(document.getElementById(id), config);
    charts[id] = c;
    return c;
  }

  function diffView(text) {
    const pre = el('pre', { class: 'diff' });
    for (const line of text.split('\n')) {
      let cls = 'ctx';
      if (line.startsWith('+++') || line.startsWith('---')) cls = 'file';
      else if (line.startsWith('@@')) cls = 'hunk';
      else if (line.startsWith('+')) cls = 'add';
      else if (line.startsWith('-')) cls = 'del';
      pre.append(el('span', { class: cls, text: line || ' ' }));
    }
    return pre;
  }

  function table(headers, rows) {
    const head = el('tr', {}, headers.map(h => el('th', { class: h.text ? 'text' : null, text: h.label })));
    const body = rows.map(r => el('tr', r.props || {},
      r.cells.map((c, i) => el('td', { class: headers[i].text ? 'text' : null }, c))));
    return el('table', {}, el('thead', {}, head), el('tbody', {}, body));
  }

  function shapesTable(shapes) {
    const headers = [{ label: 'shape', text: true }, { label: 'plan' }, { label: 'verdict', text: true },
      { label: 'time (us)' }, { label: '+-ci' }, { label: 'baseline (us)' }, { label: 'copy (us)' },
      { label: 'speedup' }, { label: 'floor' }, { label: 'rel. L2' }, { label: 'detail', text: true }];
    return table(headers, shapes.map(s => ({
      cells: [s.shape, s.plan == null ? '-' : s.plan, s.verdict, fmt.us(s.timeUs), fmt.pct(s.ci),
        fmt.us(s.baselineUs), fmt.us(s.copyUs), fmt.ratio(s.speedup), fmt.floor(s.floor), fmt.sci(s.relativeL2),
        s.detail || ''],
    })));
  }

  // One mutant: what it is, then its source, its diff against each parent and its per-shape results as tabs.
  // prefix names the panes (ids), so two panels can live on one page.
  function mutantPanel(container, m, prefix) {
    container.replaceChildren();
    if (!m) {
      container.append(el('p', { class: 'note', text: 'This mutant is not in the page.' }));
      return;
    }
    const passed = m.score != null;
    container.append(el('h3', { id: prefix + '-title' }, m.id, ' ',
      el('span', { class: 'badge ' + (passed ? 'pass' : 'fail'), text: passed ? fmt.score(m.score) : m.verdict })));
    const made = [`generation ${m.generation}`, `island ${fmt.island(m.island)}`, `agent ${m.agent}`, m.operator];
    if (m.parents && m.parents.length) made.push('from ' + m.parents.join(' x '));
    if (m.cachedFrom) made.push('same kernel as ' + m.cachedFrom + ' (result reused)');
    if (passed && m.floor != null) made.push('memory floor ' + fmt.floor(m.floor));
    if (m.deterministic != null) made.push(m.deterministic ? 'deterministic' : 'not deterministic (a repeated launch wrote other bits)');
    container.append(el('p', { class: 'meta', text: made.join(', ') }));
    if (m.summary) container.append(el('p', { class: 'meta', text: m.summary }));
    if (!passed && m.detail) container.append(el('p', { text: m.verdict + ': ' + m.detail }));
    if (m.kernels && m.kernels.length) container.append(el('p', { class: 'meta', text: 'kernels: ' + m.kernels.join(', ') }));
    container.append(el('p', { class: 'meta' }, 'files: ', el('a', { href: m.sourceHref, text: m.id + '.cu' }), ', ',
      el('a', { href: m.jsonHref, text: m.id + '.json' })));

    const panes = [{ key: 'source', label: 'Source', node: el('pre', { id: prefix + '-source', text: m.source }) }];
    for (const d of m.diffs || []) {
      panes.push({ key: 'diff-' + d.against, label: `Diff against ${d.against} (+${d.added} -${d.removed})`,
        node: el('div', { id: prefix + '-diff-' + d.against }, diffView(d.unified)) });
    }
    if (m.shapes && m.shapes.length) {
      panes.push({ key: 'shapes', label: 'Per shape',
        node: el('div', { id: prefix + '-shapes', class: 'scroll' }, shapesTable(m.shapes)) });
    }
    const tabs = el('div', { class: 'tabs' });
    const show = key => {
      for (const p of panes) {
        p.node.hidden = p.key !== key;
        p.button.classList.toggle('active', p.key === key);
      }
    };
    for (const p of panes) {
      p.button = el('button', { type: 'button', 'data-tab': p.key, text: p.label, onclick: () => show(p.key) });
      tabs.append(p.button);
    }
    container.append(tabs, ...panes.map(p => p.node));
    show('source');
  }

  return { data, el, fmt, islandColor, seedPalette, groupColors, charts, chart, diffView, table, shapesTable,
    mutantPanel };
})();
