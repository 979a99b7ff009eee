(function () {
  'use strict';
  // Text longer than this is cut, with a button that shows all of it: inline text, and the
  // body of a folded record (rendered only when it is opened).
  var LIMIT = 20000;
  var FOLDED_LIMIT = 200000;
  // Records rendered per step (and at most this many milliseconds per step).
  var STEP = 150;
  var STEP_MS = 40;
  // How far ahead a call's result is looked for when the call is rendered.
  var RESULT_LOOKAHEAD = 4000;

  var doc = document;
  function $(id) { return doc.getElementById(id); }
  // Every string from the session reaches the page through textContent.
  function el(tag, cls, text) {
    var node = doc.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  var blocks = Array.prototype.map.call(doc.querySelectorAll('script.th-block'), function (node) {
    return { node: node, first: Number(node.getAttribute('data-first')), records: null };
  });
  var facts = JSON.parse($('th-session').textContent);
  var total = facts.records;
  var log = $('log'), more = $('more'), status = $('status'), input = $('q');

  function blockAt(i) {
    var lo = 0, hi = blocks.length - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (blocks[mid].first <= i) lo = mid; else hi = mid - 1;
    }
    return blocks[lo];
  }
  // A block's JSON is parsed the first time one of its records is needed.
  function record(i) {
    var block = blockAt(i);
    if (!block.records) block.records = JSON.parse(block.node.textContent);
    return block.records[i - block.first];
  }

  function size(bytes) {
    if (bytes >= 1 << 20) return (bytes / (1 << 20)).toFixed(1) + ' MiB';
    if (bytes >= 1 << 10) return (bytes / (1 << 10)).toFixed(1) + ' KiB';
    return bytes + ' bytes';
  }
  function shortTs(ts) { return String(ts).slice(0, 19).replace('T', ' '); }
  function oneLine(text, max) {
    var line = String(text).replace(/\s+/g, ' ').trim();
    return line.length > max ? line.slice(0, max) + '…' : line;
  }
  function pretty(value) {
    if (typeof value === 'string') return value;
    try { return JSON.stringify(value, null, 2); } catch (e) { return String(value); }
  }

  // ---- the header: facts, diagnostics, fidelity notes ----
  function renderHeader() {
    var top = $('top');
    top.textContent = '';
    top.appendChild(el('h1', null, facts.meta_title || facts.title || 'session ' + facts.native_id));
    var kinds = Object.keys(facts.kinds || {}).map(function (k) { return facts.kinds[k] + ' ' + k; }).join(', ');
    var rows = [
      ['harness', facts.harness + (facts.native_version ? ' ' + facts.native_version : '')],
      ['codec', facts.codec],
      ['session', facts.native_id],
      ['cwd', facts.cwd || facts.meta_cwd],
      ['git branch', facts.git_branch],
      ['started', facts.meta_started_at || facts.started_at],
      ['updated', facts.updated_at],
      ['file', facts.path + ' (' + size(facts.size || 0) + ')'],
      ['records', total + (kinds ? ' (' + kinds + ')' : '')],
      ['ending', facts.ending],
      ['snapshot', facts.snapshot_id],
    ];
    var dl = el('dl', 'facts');
    rows.forEach(function (row) {
      if (row[1] === undefined || row[1] === null || row[1] === '') return;
      dl.appendChild(el('dt', null, row[0]));
      dl.appendChild(el('dd', null, row[1]));
    });
    top.appendChild(dl);

    var diags = facts.diagnostics || [];
    var panel = el('section', 'panel diagnostics');
    panel.appendChild(el('h2', null, diags.length ? 'Diagnostics (' + diags.length + ')' : 'Diagnostics: none'));
    if (diags.length) {
      var ul = el('ul');
      diags.forEach(function (d) {
        var li = el('li');
        li.appendChild(el('span', 'sev-' + d.severity, d.severity));
        var place = d.file ? ' (first in ' + d.file + (d.offset !== null && d.offset !== undefined ? ' at byte ' + d.offset : '') + ')' : '';
        li.appendChild(doc.createTextNode(' ' + d.code + ' ' + d.detail + ' ×' + d.count + place));
        ul.appendChild(li);
      });
      panel.appendChild(ul);
    }
    top.appendChild(panel);

    var notes = facts.notes || [];
    var fidelity = el('section', 'panel notes');
    fidelity.appendChild(el('h2', null, notes.length ? 'Fidelity notes' : 'Fidelity notes: none (every record read is shown)'));
    if (notes.length) {
      var list = el('ul');
      notes.forEach(function (note) { list.appendChild(el('li', null, note)); });
      fidelity.appendChild(list);
    }
    top.appendChild(fidelity);
  }

  // ---- text, with the search query marked ----
  var query = '';
  function put(node, text) {
    if (!query) { node.textContent = text; return; }
    var lower = text.toLowerCase();
    if (lower.length !== text.length) { node.textContent = text; return; }
    var at = 0, k, marks = 0;
    while ((k = lower.indexOf(query, at)) !== -1 && marks < 1000) {
      if (k > at) node.appendChild(doc.createTextNode(text.slice(at, k)));
      node.appendChild(el('mark', null, text.slice(k, k + query.length)));
      at = k + query.length;
      marks++;
    }
    node.appendChild(doc.createTextNode(text.slice(at)));
  }
  // Appends a <pre> with text (cut at a limit, with a button for the rest).
  function textInto(parent, cls, text) {
    text = text === undefined || text === null ? '' : String(text);
    var pre = el('pre', cls);
    parent.appendChild(pre);
    var limit = parent.classList.contains('body') ? FOLDED_LIMIT : LIMIT;
    if (text.length <= limit) { put(pre, text); return pre; }
    put(pre, text.slice(0, limit));
    var button = el('button', 'more', 'show all ' + text.length.toLocaleString('en') + ' characters');
    button.type = 'button';
    button.addEventListener('click', function () {
      pre.textContent = '';
      put(pre, text);
      button.remove();
    });
    parent.appendChild(button);
    return pre;
  }

  // ---- records ----
  var calls = new Map();
  function who(label, r, extra) {
    var line = el('div', 'who');
    line.appendChild(el('b', null, label));
    if (extra) line.appendChild(el('span', null, extra));
    if (r.agent) line.appendChild(el('span', 'badge', 'agent ' + r.agent));
    if (r.ts) line.appendChild(el('span', null, shortTs(r.ts)));
    return line;
  }
  function box(tag, cls, r, i) {
    var node = el(tag, 'rec ' + cls + (r.agent ? ' agent' : ''));
    node.id = 'r' + i;
    node.setAttribute('data-i', String(i));
    node.setAttribute('data-kind', r.kind);
    return node;
  }
  function fold(cls, r, i, label, preview, fill) {
    var details = box('details', 'fold ' + cls, r, i);
    var summary = el('summary');
    summary.appendChild(el('span', 'name', label));
    var state = el('span', 'state');
    summary.appendChild(state);
    if (preview) summary.appendChild(el('span', 'preview', ' ' + preview));
    if (r.agent) { summary.appendChild(doc.createTextNode(' ')); summary.appendChild(el('span', 'badge', 'agent ' + r.agent)); }
    details.appendChild(summary);
    var filled = false;
    details.filler = function (force) {
      if (filled && !force) return;
      var old = details.querySelector(':scope > .body');
      if (old) old.remove();
      filled = true;
      var body = el('div', 'body');
      fill(body);
      details.appendChild(body);
    };
    details.isFilled = function () { return filled; };
    details.state = state;
    details.addEventListener('toggle', function () { if (details.open) details.filler(false); });
    return details;
  }

  function argPreview(args) {
    if (args && typeof args === 'object' && !Array.isArray(args)) {
      var keys = ['command', 'cmd', 'file_path', 'filePath', 'path', 'pattern', 'query', 'url', 'description', 'prompt'];
      for (var k = 0; k < keys.length; k++) {
        if (typeof args[keys[k]] === 'string') return oneLine(args[keys[k]], 140);
      }
    }
    return oneLine(typeof args === 'string' ? args : JSON.stringify(args), 140);
  }
  function findResult(callId, from) {
    var end = Math.min(total, from + RESULT_LOOKAHEAD);
    for (var j = from; j < end; j++) {
      var r = record(j);
      if (r.kind === 'tool_result' && r.call_id === callId) return r;
    }
    return null;
  }
  function setState(details, result) {
    var s = details.state;
    if (!result) { s.className = 'state pending'; s.textContent = ' · no result'; return; }
    if (result.ok === false) { s.className = 'state fail'; s.textContent = ' · failed'; }
    else if (result.ok === true) { s.className = 'state ok'; s.textContent = ' · ok'; }
    else { s.className = 'state'; s.textContent = ' · result'; }
  }
  function toolCall(r, i) {
    var entry = { call: r, result: findResult(r.call_id, i + 1), node: null };
    entry.node = fold('tool', r, i, r.name, argPreview(r.arguments), function (body) {
      body.appendChild(el('h3', null, 'arguments'));
      textInto(body, 'code', pretty(r.arguments));
      body.appendChild(el('h3', null, entry.result ? 'result' : 'result: none recorded'));
      if (entry.result) textInto(body, 'code', entry.result.content);
    });
    entry.node.classList.add('tool-call');
    entry.node.setAttribute('data-call', r.call_id);
    setState(entry.node, entry.result);
    calls.set(r.call_id, entry);
    return entry.node;
  }
  function render(i, r) {
    switch (r.kind) {
      case 'meta': {
        if (i === 0) return null;
        var d = box('div', 'divider', r, i);
        d.textContent = 'subagent transcript ' + r.native_id + (r.title ? ' — ' + r.title : '');
        return d;
      }
      case 'user': {
        var u = box('div', 'user', r, i);
        u.appendChild(who('user', r));
        textInto(u, 'text', r.text);
        (r.attachments || []).forEach(function (a) {
          u.appendChild(el('div', 'obs', 'attachment: ' + a.kind + (a.media_type ? ' (' + a.media_type + ')' : '') + ' — not embedded'));
        });
        return u;
      }
      case 'assistant': {
        if (!r.text) return null;
        var a = box('div', 'assistant', r, i);
        a.appendChild(who('assistant', r, r.model || ''));
        textInto(a, 'text', r.text);
        if (r.usage) {
          var parts = [];
          if (r.usage.input !== undefined && r.usage.input !== null) parts.push('in ' + r.usage.input);
          if (r.usage.output !== undefined && r.usage.output !== null) parts.push('out ' + r.usage.output);
          if (r.usage.cache_read) parts.push('cache read ' + r.usage.cache_read);
          if (parts.length) a.appendChild(el('div', 'obs', 'tokens: ' + parts.join(' · ')));
        }
        return a;
      }
      case 'reasoning': {
        if (typeof r.text !== 'string') {
          var opaque = box('div', 'obs', r, i);
          opaque.textContent = '· reasoning (' + (r.encrypted ? 'encrypted' : 'opaque') + ': not readable)';
          return opaque;
        }
        return fold('reasoning', r, i, 'reasoning', r.text.length.toLocaleString('en') + ' characters', function (body) {
          textInto(body, 'text', r.text);
        });
      }
      case 'tool_call':
        return toolCall(r, i);
      case 'tool_result': {
        var owner = calls.get(r.call_id);
        if (owner && !order) {
          if (owner.result !== r) {
            owner.result = r;
            setState(owner.node, r);
            if (owner.node.isFilled()) owner.node.filler(true);
          }
          return null;
        }
        var t = fold('tool', r, i, 'tool result', oneLine(r.content, 140), function (body) {
          body.appendChild(el('h3', null, 'result of ' + r.call_id));
          textInto(body, 'code', r.content);
        });
        setState(t, r);
        return t;
      }
      case 'system':
        return fold('system', r, i, 'system', oneLine(r.text, 140), function (body) { textInto(body, 'text', r.text); });
      case 'compaction':
        return fold('compaction', r, i, 'compaction summary', r.trigger || '', function (body) { textInto(body, 'text', r.summary); });
      case 'observation': {
        var text = r.text === undefined || r.text === null ? '' : String(r.text);
        if (text.length > 200 || text.indexOf('\n') !== -1) {
          return fold('observation', r, i, r.subtype, oneLine(text, 140), function (body) { textInto(body, 'text', text); });
        }
        var o = box('div', 'obs', r, i);
        o.textContent = '· ' + r.subtype + (text ? ': ' + text : '') + (r.ts ? '  ' + shortTs(r.ts) : '');
        return o;
      }
      default: {
        var x = box('div', 'obs', r, i);
        x.textContent = '· ' + r.kind;
        return x;
      }
    }
  }

  // ---- progressive rendering over all records, or over the matches ----
  var order = null;      // null: every record; else the indices of the matches so far
  var matchSet = null;
  var callAt = null;     // call id → index, while searching
  var pos = 0;           // next position in the order
  var scanning = false;
  var ended = false;
  function length() { return order ? order.length : total; }

  function renderMore() {
    if (pos >= length()) { finishIfDone(); return; }
    var started = performance.now(), n = 0;
    var frag = doc.createDocumentFragment();
    while (pos < length() && n < STEP && performance.now() - started < STEP_MS) {
      var i = order ? order[pos] : pos;
      pos++;
      n++;
      var node = order ? renderMatch(i) : render(i, record(i));
      if (node) frag.appendChild(node);
    }
    log.appendChild(frag);
    updateStatus();
    finishIfDone();
    kick();
  }
  function finishIfDone() {
    if (ended || scanning || pos < length()) return;
    ended = true;
    var text = order
      ? (order.length ? 'end of the ' + order.length + ' matches' : 'no record matches')
      : 'end of the session: ' + total + ' records, ending ' + facts.ending;
    log.appendChild(el('div', 'end', text));
  }
  var observer = new IntersectionObserver(function (entries) {
    if (entries.some(function (e) { return e.isIntersecting; })) renderMore();
  }, { rootMargin: '0px 0px 1500px 0px' });
  // Observing again reports the sentinel's current intersection: more is
  // rendered until it is out of reach.
  function kick() { observer.unobserve(more); observer.observe(more); }

  var scanned = 0;        // records searched so far
  function updateStatus() {
    if (!order) {
      status.textContent = 'showing ' + Math.min(pos, total) + ' of ' + total + ' records';
    } else if (scanning) {
      status.textContent = order.length + ' matches (searched ' + Math.floor(100 * scanned / Math.max(total, 1)) + '%)';
    } else {
      status.textContent = order.length + (order.length === 1 ? ' match' : ' matches') + ' in ' + total + ' records';
    }
  }

  // ---- search ----
  function haystack(r) {
    switch (r.kind) {
      case 'user': case 'system': case 'assistant': return r.text || '';
      case 'reasoning': return r.text || '';
      case 'tool_call': return r.name + '\n' + (typeof r.arguments === 'string' ? r.arguments : JSON.stringify(r.arguments));
      case 'tool_result': return r.content || '';
      case 'observation': return r.subtype + '\n' + (r.text || '');
      case 'compaction': return r.summary || '';
      case 'meta': return (r.title || '') + '\n' + r.native_id;
      default: return '';
    }
  }
  function matches(r) { return haystack(r).toLowerCase().indexOf(query) !== -1; }

  function renderMatch(i) {
    var r = record(i);
    var node;
    if (r.kind === 'tool_result' && callAt.has(r.call_id)) {
      var callIndex = callAt.get(r.call_id);
      if (matchSet.has(callIndex)) return null;
      node = render(callIndex, record(callIndex));
    } else {
      node = render(i, r);
    }
    if (!node) return null;
    if (node.filler) { node.open = true; node.filler(false); }
    var wrap = el('div', 'match');
    wrap.appendChild(node);
    var jump = el('button', 'jump', 'show in the transcript (record ' + (i + 1) + ')');
    jump.type = 'button';
    jump.addEventListener('click', function () { showInTranscript(Number(node.getAttribute('data-i'))); });
    wrap.appendChild(jump);
    return wrap;
  }

  var generation = 0;
  function reset() {
    generation++;
    log.textContent = '';
    calls.clear();
    pos = 0;
    ended = false;
    scanning = false;
  }
  function search(text) {
    reset();
    query = text.trim().toLowerCase();
    if (!query) { order = null; matchSet = null; callAt = null; renderMore(); return; }
    order = [];
    matchSet = new Set();
    callAt = new Map();
    scanned = 0;
    scanning = true;
    var mine = generation, i = 0;
    (function scan() {
      if (mine !== generation) return;
      var started = performance.now();
      while (i < total && performance.now() - started < 30) {
        var r = record(i);
        if (r.kind === 'tool_call') callAt.set(r.call_id, i);
        if (matches(r)) { order.push(i); matchSet.add(i); }
        i++;
      }
      scanned = i;
      scanning = i < total;
      updateStatus();
      renderMore();
      if (scanning) setTimeout(scan, 0);
    })();
  }
  function showInTranscript(i) {
    input.value = '';
    search('');
    while (pos <= i && pos < total) renderMore();
    var target = $('r' + i);
    if (target) {
      target.scrollIntoView({ block: 'center' });
      target.classList.add('flash');
      setTimeout(function () { target.classList.remove('flash'); }, 1500);
    }
  }

  var pending = null;
  input.addEventListener('input', function () {
    clearTimeout(pending);
    pending = setTimeout(function () { search(input.value); }, 200);
  });
  input.addEventListener('keydown', function (e) {
    if (e.key === 'Enter') { clearTimeout(pending); search(input.value); }
    if (e.key === 'Escape') { input.value = ''; clearTimeout(pending); search(''); }
  });
  doc.addEventListener('keydown', function (e) {
    if (e.key === '/' && doc.activeElement !== input) { e.preventDefault(); input.focus(); }
  });

  renderHeader();
  renderMore();
  doc.body.setAttribute('data-ready', 'true');
  window.trajhostView = { readyAt: performance.now(), records: total, blocks: blocks.length };
})();
