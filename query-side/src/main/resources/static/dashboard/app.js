// The operator's dashboard: plain JavaScript over the query side's HTTP API, no build step.
// Every call goes through fetch() so that it can carry the bearer token; that includes the live
// stock streams, read as server-sent events from a streaming body (EventSource sends no headers).
'use strict';

(() => {
  const TOKEN_KEY = 'stockade.dashboard.token';
  const SKUS_KEY = 'stockade.dashboard.skus';
  const REPLAY_KEY = 'stockade.dashboard.replay';
  // A browser opens at most 6 connections to one server over HTTP/1.1 and each stream holds one:
  // the first SKUs are streamed, the others polled, so that lookups always find a connection.
  const MAX_STREAMS = 4;
  const POLL_MS = 5000;
  const LEDGER_PAGE_SIZE = 500;
  const LEDGER_MAX_PAGES = 10;
  const RECONCILIATION_MAX_ROWS = 500;
  const DECISIONS_PAGE_SIZE = 50;

  const $ = (id) => document.getElementById(id);
  const enc = encodeURIComponent;

  // ---- HTTP ----

  function token() {
    return sessionStorage.getItem(TOKEN_KEY) || '';
  }

  function headers(accept) {
    const result = { Accept: accept || 'application/json' };
    if (token()) {
      result.Authorization = 'Bearer ' + token();
    }
    return result;
  }

  class ApiError extends Error {
    constructor(status, title, detail) {
      super(detail ? `${title}: ${detail}` : title);
      this.status = status;
      this.title = title;
      this.detail = detail;
    }
  }

  const STATUS_HINTS = {
    401: 'a valid access token is needed',
    403: 'the access token lacks the role this needs',
  };

  /** The problem (RFC 9457) a response carries, or one made of its status. */
  async function problemOf(response) {
    const type = response.headers.get('Content-Type') || '';
    if (type.includes('json')) {
      try {
        const body = await response.json();
        return new ApiError(response.status, body.title || `HTTP ${response.status}`, body.detail || '');
      } catch (ignored) {
        // Not JSON after all: fall through to the status.
      }
    }
    return new ApiError(
      response.status,
      `HTTP ${response.status}`,
      STATUS_HINTS[response.status] || response.statusText || '');
  }

  async function send(method, path, signal) {
    let response;
    try {
      response = await fetch(path, { method, headers: headers(), signal, cache: 'no-store' });
    } catch (error) {
      if (error.name === 'AbortError') {
        throw error;
      }
      throw new ApiError(0, 'Service unreachable', 'the query side did not answer');
    }
    if (!response.ok) {
      throw await problemOf(response);
    }
    return response.status === 204 ? null : response.json();
  }

  const get = (path, signal) => send('GET', path, signal);

  function sleep(ms, signal) {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      if (signal) {
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        }, { once: true });
      }
    });
  }

  /**
   * Reads a text/event-stream body and calls onEvent({type, data}) for each event: the fields
   * `event` and `data` (several data lines joined by newlines); comments and other fields ignored.
   */
  async function readEvents(body, onEvent) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let type = '';
    let data = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        return;
      }
      buffer += value;
      // A trailing CR may be the first half of a CRLF split across chunks: keep it for later.
      const held = buffer.endsWith('\r') ? '\r' : '';
      const lines = buffer.slice(0, buffer.length - held.length).replace(/\r\n?/g, '\n').split('\n');
      buffer = lines.pop() + held;
      for (const line of lines) {
        if (line === '') {
          if (data.length > 0) {
            onEvent({ type: type || 'message', data: data.join('\n') });
          }
          type = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) {
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let text = colon < 0 ? '' : line.slice(colon + 1);
        if (text.startsWith(' ')) {
          text = text.slice(1);
        }
        if (field === 'event') {
          type = text;
        } else if (field === 'data') {
          data.push(text);
        }
      }
    }
  }

  // ---- helpers for the page ----

  function say(element, text, isError) {
    element.textContent = text || '';
    element.classList.toggle('error', Boolean(isError));
  }

  function cell(row, text, className) {
    const td = document.createElement('td');
    td.textContent = text === null || text === undefined ? '—' : String(text);
    if (className) {
      td.className = className;
    }
    row.appendChild(td);
    return td;
  }

  function numbers(n) {
    return n ? `${n.total} / ${n.available} / ${n.reserved} / ${n.sold}` : '—';
  }

  /** An instant as the API gives it, to the second, in UTC. */
  function formatInstant(iso) {
    return iso ? iso.replace('T', ' ').replace(/\.\d+/, '') : '—';
  }

  /** Seconds since the epoch; Date.parse is given milliseconds at most. */
  function epochSeconds(iso) {
    return Date.parse(iso.replace(/(\.\d{3})\d+/, '$1')) / 1000;
  }

  function skuList(text) {
    return [...new Set(text.split(',').map((s) => s.trim()).filter((s) => s.length > 0))];
  }

  // ---- token ----

  function showTokenState() {
    say($('token-state'), token() ? 'Token in use.' : 'No token: calls go without one.');
  }

  $('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const value = $('token').value.trim();
    if (value) {
      sessionStorage.setItem(TOKEN_KEY, value);
    } else {
      sessionStorage.removeItem(TOKEN_KEY);
    }
    showTokenState();
    stock.restart();
    sale.restart();
  });

  $('token-forget').addEventListener('click', () => {
    sessionStorage.removeItem(TOKEN_KEY);
    $('token').value = '';
    showTokenState();
    stock.restart();
    sale.restart();
  });

  // ---- the sale: the first screen ----

  // What an operator sees on opening the page with a token: the gate's state, the gate's
  // admissions and refusals per second, and every SKU with its sale, the busiest first, with the
  // sale's commands sent to the command side (its address from /dashboard/settings).
  const sale = (() => {
    const SALES_PAGE_SIZE = 50;
    const REFRESH_MS = 5000;
    const RATE_MINUTES = 5;
    const ADMITTED_COLOUR = '#1b7f3b';
    const REFUSED_COLOUR = '#b3261e';
    const body = $('sales-table').tBodies[0];
    const message = $('sales-message');
    const result = $('commands-result');
    const figure = $('rate-figure');
    // The SKUs of the page as last shown (each command's "before"), and each SKU's last change.
    const shown = new Map();
    const changes = new Map();
    let page = 0;
    let pages = 1;
    let stop = new AbortController();
    let plot = null;
    let commandSide = null;
    let selected = null;

    // ---- the gate ----

    function showGate(gate) {
      const line = $('gate-line');
      line.dataset.state = gate.state;
      const facts = [];
      if (gate.epoch !== null && gate.epoch !== undefined) {
        facts.push(gate.state === 'REBUILDING' ? `building epoch ${gate.epoch}` : `epoch ${gate.epoch}`);
      }
      if (gate.partitions > 0) {
        facts.push(`${gate.partitions} partition${gate.partitions === 1 ? '' : 's'}`);
      }
      line.textContent = `Gate ${gate.state}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}` +
        `${gate.reason ? `: ${gate.reason}` : ''}; checked ${formatInstant(gate.checkedAt)}`;
    }

    async function loadGate(signal) {
      try {
        showGate(await get('/api/gate', signal));
      } catch (error) {
        if (!signal.aborted) {
          $('gate-line').dataset.state = 'UNKNOWN';
          $('gate-line').textContent = `Gate: not known (${error.message})`;
        }
      }
    }

    // ---- admissions and refusals per second ----

    function rateWidth() {
      return Math.max(320, Math.min(1100, figure.parentElement.clientWidth - 8));
    }

    function drawRate(rates) {
      const x = rates.seconds.map((second) => epochSeconds(second.at));
      const admitted = rates.seconds.map((second) => second.admitted);
      const refused = rates.seconds.map((second) => second.refused);
      const data = [x, admitted, refused];
      if (plot) {
        plot.setData(data);
      } else {
        plot = new uPlot({
          width: rateWidth(),
          height: 220,
          scales: { x: { time: true } },
          series: [
            { label: 'Time' },
            { label: 'Admitted per second', stroke: ADMITTED_COLOUR, width: 2 },
            { label: 'Refused per second', stroke: REFUSED_COLOUR, width: 2 },
          ],
          axes: [{}, { label: 'per second' }],
        }, data, $('rate-chart'));
      }
      const sum = (list) => list.reduce((a, b) => a + b, 0);
      figure.dataset.admitted = String(sum(admitted));
      figure.dataset.refused = String(sum(refused));
      $('rate-caption').textContent =
        `The gate's decisions per second, the last ${RATE_MINUTES} minutes to ${formatInstant(rates.to)}: ` +
        `${sum(admitted)} admitted (at most ${Math.max(0, ...admitted)} in a second), ` +
        `${sum(refused)} refused (at most ${Math.max(0, ...refused)} in a second).`;
    }

    async function loadRate(signal) {
      try {
        drawRate(await get(`/api/decisions/rate?minutes=${RATE_MINUTES}`, signal));
      } catch (error) {
        if (!signal.aborted) {
          $('rate-caption').textContent = `Decisions per second: ${error.message}`;
        }
      }
    }

    // ---- every SKU, paged ----

    /** Time until an instant, as "2 d 3:04:05" or "3:04:05"; "now" once it is past. */
    function countdown(iso) {
      const left = Math.floor(epochSeconds(iso) - Date.now() / 1000);
      if (left <= 0) {
        return 'now';
      }
      const days = Math.floor(left / 86400);
      const h = Math.floor((left % 86400) / 3600);
      const m = String(Math.floor((left % 3600) / 60)).padStart(2, '0');
      const s = String(left % 60).padStart(2, '0');
      return `${days > 0 ? `${days} d ` : ''}${h}:${m}:${s}`;
    }

    function tick() {
      for (const span of body.querySelectorAll('[data-field="countdown"]')) {
        span.textContent = `opens in ${countdown(span.dataset.opensAt)}`;
      }
    }

    function row(sku) {
      const s = sku.sale || {};
      const tr = document.createElement('tr');
      tr.dataset.sku = sku.skuId;
      tr.classList.toggle('selected', sku.skuId === selected);
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = sku.skuId;
      tr.appendChild(th);
      const state = cell(tr, s.state, `sale-state sale-state-${s.state}`);
      state.dataset.field = 'state';
      if (s.pausedReason) {
        state.title = `paused: ${s.pausedReason}`;
        state.textContent = `${s.state} (${s.pausedReason})`;
      }
      const opens = cell(tr, s.opensAt ? formatInstant(s.opensAt) : 'on sale since registration');
      opens.dataset.field = 'opens';
      if (s.opensAt && (s.state === 'SCHEDULED' || s.state === 'PREQUEUE')) {
        const span = document.createElement('span');
        span.dataset.field = 'countdown';
        span.dataset.opensAt = s.opensAt;
        span.className = 'countdown';
        span.textContent = `opens in ${countdown(s.opensAt)}`;
        opens.append(document.createElement('br'), span);
        if (s.prequeueSeconds > 0) {
          opens.append(document.createElement('br'), `pre-queue ${s.prequeueSeconds} s`);
        }
      }
      cell(tr, s.closesAt ? formatInstant(s.closesAt) : 'no end').dataset.field = 'closes';
      for (const name of ['available', 'reserved', 'sold', 'total']) {
        cell(tr, sku[name], 'num').dataset.field = name;
      }
      cell(tr, sku.perUserLimit ?? 'none', 'num').dataset.field = 'perUserLimit';
      cell(tr, s.queued ?? 0, 'num').dataset.field = 'queued';
      const commands = cell(tr, '');
      commands.dataset.field = 'commands';
      if (commandSide) {
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = 'Commands';
        button.setAttribute('aria-label', `Commands for ${sku.skuId}`);
        button.addEventListener('click', () => select(sku.skuId));
        commands.replaceChildren(button);
      } else {
        commands.textContent = '—';
        commands.title = 'no command side configured (stockade.dashboard.command-side-url)';
      }
      cell(tr, changes.get(sku.skuId) || '').dataset.field = 'change';
      return tr;
    }

    function render(answer) {
      shown.clear();
      answer.skus.forEach((sku) => shown.set(sku.skuId, sku));
      body.replaceChildren(...answer.skus.map(row));
      $('sales-page').textContent = `Page ${answer.page + 1} of ${pages}`;
      $('sales-caption').textContent = answer.skus.length > 0
        ? `SKUs ${answer.page * answer.size + 1} to ${answer.page * answer.size + answer.skus.length} of ${answer.totalEntries}, the busiest first; read every ${REFRESH_MS / 1000} s.`
        : 'No SKU registered yet.';
      $('sales-previous').disabled = page <= 0;
      $('sales-next').disabled = page + 1 >= pages;
    }

    async function loadSales(signal) {
      try {
        const answer = await get(`/api/sales?page=${page}&size=${SALES_PAGE_SIZE}`, signal);
        pages = Math.max(1, Math.ceil(answer.totalEntries / answer.size));
        if (page >= pages && page > 0) {
          // Fewer SKUs than when the page was chosen.
          page = pages - 1;
          return loadSales(signal);
        }
        render(answer);
        say(message, '');
      } catch (error) {
        if (!signal.aborted) {
          say(message, `SKUs: ${error.message}`, true);
        }
      }
      return undefined;
    }

    $('sales-previous').addEventListener('click', () => {
      page = Math.max(0, page - 1);
      loadSales(stop.signal);
    });
    $('sales-next').addEventListener('click', () => {
      page = Math.min(pages - 1, page + 1);
      loadSales(stop.signal);
    });

    // ---- the sale's commands, sent to the command side ----

    function select(skuId) {
      selected = skuId;
      $('commands-sku').textContent = skuId;
      $('commands').hidden = false;
      $('draw').hidden = true;
      say(result, '');
      for (const tr of body.rows) {
        tr.classList.toggle('selected', tr.dataset.sku === skuId);
      }
    }

    async function command(method, path, payload) {
      const requestHeaders = headers();
      requestHeaders['Content-Type'] = 'application/json';
      let response;
      try {
        response = await fetch(commandSide + path, {
          method,
          headers: requestHeaders,
          body: payload === undefined ? undefined : JSON.stringify(payload),
          cache: 'no-store',
        });
      } catch (error) {
        throw new ApiError(0, 'Command side unreachable',
          `${commandSide} did not answer, or does not let this page's origin call it (stockade.cors.allowed-origins)`);
      }
      if (!response.ok) {
        throw await problemOf(response);
      }
      return response.json();
    }

    /** A value as shown in a change: instants to the second in UTC, null as "none". */
    function shownValue(value) {
      if (value === null || value === undefined) {
        return 'none';
      }
      if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value)) {
        return formatInstant(new Date(epochSeconds(value) * 1000).toISOString());
      }
      return String(value);
    }

    function facts(sku) {
      const s = (sku && sku.sale) || {};
      return {
        state: s.state,
        opensAt: s.opensAt,
        closesAt: s.closesAt,
        prequeueSeconds: s.prequeueSeconds,
        pausedReason: s.pausedReason,
        total: sku && sku.total,
        available: sku && sku.available,
        reserved: sku && sku.reserved,
        sold: sku && sku.sold,
        perUserLimit: sku && sku.perUserLimit,
      };
    }

    /** What a command changed: each fact of the SKU that differs, before → after. */
    function difference(before, after) {
      const was = facts(before);
      const now = facts(after);
      const changed = Object.keys(now)
        .filter((name) => shownValue(was[name]) !== shownValue(now[name]))
        .map((name) => `${name} ${shownValue(was[name])} → ${shownValue(now[name])}`);
      return changed.length > 0 ? changed.join('; ') : 'nothing changed (a repeat)';
    }

    /** Whole numbers as numbers; anything else as typed, for the command side to refuse. */
    function number(text) {
      const trimmed = text.trim();
      return /^-?\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
    }

    async function run(label, method, suffix, payload, form) {
      const skuId = selected;
      say(result, `${label}…`);
      // Before and after from the same source, the command side's view of the SKU: the row shows
      // the query side's, which may not have caught up with the last command yet.
      let before = shown.get(skuId);
      try {
        before = await command('GET', `/api/skus/${enc(skuId)}`);
      } catch (error) {
        // The row's numbers, then.
      }
      try {
        const after = await command(method, `/api/skus/${enc(skuId)}${suffix}`, payload);
        const change = `${label}: ${difference(before, after)}`;
        changes.set(skuId, change);
        say(result, `${skuId} — ${change}`);
        if (form) {
          delete form.dataset.adjustmentId;
        }
        // The query side follows the command's event within about a second.
        loadSales(stop.signal);
        sleep(1000, stop.signal).then(() => loadSales(stop.signal));
      } catch (error) {
        // An adjustment keeps its id until it is answered, so that sending it again after a
        // lost answer or a 503 cannot apply it twice.
        if (form && error.status >= 400 && error.status < 500) {
          delete form.dataset.adjustmentId;
        }
        changes.set(skuId, `${label} refused: ${error.message}`);
        say(result, `${skuId} — ${label} refused: ${error.message}`, true);
        const td = body.querySelector(`tr[data-sku="${CSS.escape(skuId)}"] [data-field="change"]`);
        if (td) {
          td.textContent = changes.get(skuId);
        }
      }
    }

    $('schedule-form').addEventListener('submit', (event) => {
      event.preventDefault();
      run('Schedule', 'PUT', '/sale', {
        opensAt: $('schedule-opens').value.trim(),
        closesAt: $('schedule-closes').value.trim() || null,
        prequeueSeconds: number($('schedule-prequeue').value || '0'),
      });
    });

    $('pause-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const reason = $('pause-reason').value.trim();
      run('Pause', 'POST', '/pause', reason ? { reason } : {});
    });

    $('resume-send').addEventListener('click', () => run('Resume', 'POST', '/resume', {}));

    $('adjust-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const form = $('adjust-form');
      if (!form.dataset.adjustmentId) {
        form.dataset.adjustmentId = `dash-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      }
      const note = $('adjust-note').value.trim();
      run('Adjust', 'POST', '/adjustments', {
        adjustmentId: form.dataset.adjustmentId,
        quantity: number($('adjust-quantity').value),
        reason: $('adjust-reason').value,
        ...(note ? { note } : {}),
      }, form);
    });

    $('limit-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const value = $('limit-value').value.trim();
      run('Limit', 'PUT', '/limit', { perUserLimit: value === '' ? null : number(value) });
    });

    // ---- the pre-queue's draw, from the command side, checked here ----

    const bytesOf = (hex) => Uint8Array.from(hex.match(/../g) || [], (b) => parseInt(b, 16));
    const hexOf = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');

    /**
     * Whether a revealed draw holds (api.md 1.2, "Fair start"): SHA-256 of the seed's bytes is the
     * commitment, and the order is its ids sorted by their tickets, the lowercase hex
     * HMAC-SHA256 of the id (UTF-8) keyed by the seed's bytes (equal tickets: by id).
     */
    async function verifyDraw(draw) {
      if (!/^[0-9a-fA-F]{64}$/.test(draw.seed)) {
        return false;
      }
      const seed = bytesOf(draw.seed);
      if (hexOf(await crypto.subtle.digest('SHA-256', seed)) !== String(draw.drawCommitment).toLowerCase()) {
        return false;
      }
      const key = await crypto.subtle.importKey('raw', seed, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      const utf8 = new TextEncoder();
      const tickets = await Promise.all(draw.order.map(async (id) =>
        ({ id, ticket: hexOf(await crypto.subtle.sign('HMAC', key, utf8.encode(id))) })));
      const before = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
      tickets.sort((a, b) => before(a.ticket, b.ticket) || before(a.id, b.id));
      return tickets.every((t, i) => t.id === draw.order[i]);
    }

    async function loadDraw() {
      const skuId = selected;
      const verify = $('draw-verify');
      say(verify, 'reading…');
      $('draw').hidden = false;
      try {
        const draw = await command('GET', `/api/skus/${enc(skuId)}/draw`);
        const order = draw.order || [];
        $('draw-opens').textContent = formatInstant(draw.opensAt);
        $('draw-commitment').textContent = draw.drawCommitment || '—';
        $('draw-seed').textContent = draw.seed || 'not revealed before the draw';
        $('draw-counts').textContent = `${draw.queued ?? 0} queued, ${draw.admitted ?? 0} admitted`;
        $('draw-order').textContent = order.length === 0 ? '—'
          : order.slice(0, 20).join(', ') + (order.length > 20 ? `, … (${order.length} in all)` : '');
        verify.dataset.verified = '';
        if (!draw.seed) {
          say(verify, 'not decided yet: nothing to check until the seed is revealed');
        } else if (!window.crypto || !crypto.subtle) {
          say(verify, 'cannot check here: WebCrypto needs https or localhost', true);
        } else {
          const holds = await verifyDraw({ ...draw, order });
          verify.dataset.verified = String(holds);
          say(verify, holds ? 'verified' : 'does not verify', !holds);
        }
      } catch (error) {
        say(verify, `Draw: ${error.message}`, true);
      }
    }

    $('draw-load').addEventListener('click', loadDraw);

    // ---- start and stop ----

    async function start() {
      stop.abort();
      stop = new AbortController();
      const signal = stop.signal;
      if (!token()) {
        $('gate-line').dataset.state = '';
        $('gate-line').textContent = 'Gate: type an access token (reader role; admin for the commands) to see the sale.';
        body.replaceChildren();
        return;
      }
      try {
        commandSide = (await get('/dashboard/settings', signal)).commandSideUrl || null;
      } catch (error) {
        commandSide = null;
      }
      while (!signal.aborted) {
        await Promise.all([loadGate(signal), loadRate(signal), loadSales(signal)]);
        await sleep(REFRESH_MS, signal);
      }
    }

    setInterval(tick, 1000);

    return { restart: start };
  })();

  // ---- stock per SKU, live ----

  const stock = (() => {
    const body = $('stock-table').tBodies[0];
    const message = $('stock-message');
    const rows = new Map();
    let skus = [];
    let stop = new AbortController();

    function row(skuId) {
      const tr = document.createElement('tr');
      tr.dataset.sku = skuId;
      tr.dataset.updates = '0';
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = skuId;
      tr.appendChild(th);
      for (const field of ['total', 'available', 'reserved', 'sold', 'perUserLimit']) {
        cell(tr, '', 'num').dataset.field = field;
      }
      cell(tr, '').dataset.field = 'updatedAt';
      cell(tr, '').dataset.field = 'stream';
      const chart = document.createElement('button');
      chart.type = 'button';
      chart.textContent = 'Chart';
      chart.setAttribute('aria-label', `Chart of ${skuId} over time`);
      chart.addEventListener('click', () => overTime.draw(skuId, ''));
      cell(tr, '').replaceChildren(chart);
      body.appendChild(tr);
      rows.set(skuId, tr);
      return tr;
    }

    function field(tr, name) {
      return tr.querySelector(`[data-field="${name}"]`);
    }

    function fill(level) {
      const tr = rows.get(level.skuId);
      if (!tr) {
        return;
      }
      for (const name of ['total', 'available', 'reserved', 'sold']) {
        const td = field(tr, name);
        const text = String(level[name]);
        if (td.textContent !== text && td.textContent !== '—' && td.textContent !== '') {
          td.classList.remove('changed');
          // Restart the highlight's animation.
          void td.offsetWidth;
          td.classList.add('changed');
        }
        td.textContent = text;
      }
      field(tr, 'perUserLimit').textContent = level.perUserLimit ?? 'none';
      field(tr, 'updatedAt').textContent = formatInstant(level.updatedAt);
      tr.dataset.updates = String(Number(tr.dataset.updates) + 1);
    }

    function state(tr, text, isError) {
      const td = field(tr, 'stream');
      td.textContent = text;
      td.classList.toggle('error', Boolean(isError));
    }

    /** Follows one SKU's stream until stopped; reconnects when it ends or breaks. */
    async function follow(skuId, tr, signal) {
      let failures = 0;
      while (!signal.aborted) {
        let wait = Math.min(30000, 1000 * 2 ** Math.min(failures, 5));
        try {
          const response = await fetch(`/api/stock/${enc(skuId)}/stream`, {
            headers: headers('text/event-stream'),
            signal,
            cache: 'no-store',
          });
          if (!response.ok) {
            const problem = await problemOf(response);
            if (response.status !== 503) {
              state(tr, `stopped: ${problem.message}`, true);
              return;
            }
            const retryAfter = Number(response.headers.get('Retry-After'));
            wait = retryAfter > 0 ? retryAfter * 1000 : wait;
            state(tr, `${problem.message}; trying again`, true);
          } else {
            state(tr, 'live');
            failures = 0;
            await readEvents(response.body, (event) => {
              if (event.type === 'stock') {
                fill(JSON.parse(event.data));
              }
            });
            // The service ends a stream after its timeout: open the next one.
            wait = 0;
          }
        } catch (error) {
          if (signal.aborted) {
            return;
          }
          state(tr, 'connection lost; reconnecting', true);
        }
        failures++;
        await sleep(wait, signal);
      }
    }

    /** SKUs beyond the streamed ones: one request for all of them now and then. */
    async function poll(polled, signal) {
      while (!signal.aborted) {
        try {
          const levels = await get(`/api/stock?skuIds=${polled.map(enc).join(',')}`, signal);
          levels.forEach(fill);
          const known = new Set(levels.map((level) => level.skuId));
          for (const skuId of polled) {
            state(rows.get(skuId), known.has(skuId) ? `polled every ${POLL_MS / 1000} s` : 'unknown SKU',
              !known.has(skuId));
          }
        } catch (error) {
          if (signal.aborted) {
            return;
          }
          polled.forEach((skuId) => state(rows.get(skuId), error.message, true));
        }
        await sleep(POLL_MS, signal);
      }
    }

    async function watch(list) {
      stop.abort();
      stop = new AbortController();
      const signal = stop.signal;
      skus = list;
      rows.clear();
      body.replaceChildren();
      if (list.length === 0) {
        say(message, '');
        return;
      }
      list.forEach(row);
      say(message, 'Loading…');
      let known;
      try {
        const levels = await get(`/api/stock?skuIds=${list.map(enc).join(',')}`, signal);
        levels.forEach(fill);
        known = new Set(levels.map((level) => level.skuId));
      } catch (error) {
        if (!signal.aborted) {
          say(message, error.message, true);
        }
        return;
      }
      const unknown = list.filter((skuId) => !known.has(skuId));
      unknown.forEach((skuId) => state(rows.get(skuId), 'unknown SKU', true));
      const streamed = list.filter((skuId) => known.has(skuId)).slice(0, MAX_STREAMS);
      const polled = list.filter((skuId) => known.has(skuId) && !streamed.includes(skuId));
      streamed.forEach((skuId) => follow(skuId, rows.get(skuId), signal));
      if (polled.length > 0) {
        poll(polled, signal);
      }
      say(message, unknown.length > 0 ? `Unknown SKUs: ${unknown.join(', ')}` : '', unknown.length > 0);
    }

    $('stock-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const list = skuList($('stock-skus').value);
      sessionStorage.setItem(SKUS_KEY, list.join(','));
      watch(list);
    });

    return {
      restart: () => watch(skus),
      watch,
    };
  })();

  // ---- stock over time ----

  const overTime = (() => {
    const message = $('history-message');
    const figure = $('history-figure');
    const container = $('history-chart');
    let plot = null;

    function auditPath(skuId, at, page) {
      const query = new URLSearchParams({ page: String(page), size: String(LEDGER_PAGE_SIZE) });
      if (at) {
        query.set('at', at);
      }
      return `/api/audit/skus/${enc(skuId)}?${query}`;
    }

    /**
     * The latest entries of the SKU's ledger up to `at` (at most LEDGER_MAX_PAGES pages), with
     * the numbers after each: worked back from the numbers as of `at`, so that a long ledger
     * needs only its last pages.
     */
    async function ledger(skuId, at) {
      const first = await get(auditPath(skuId, at, 0));
      // Later pages at the instant the first one answered for, so that the pages fit together.
      const pages = Math.ceil(first.totalEntries / LEDGER_PAGE_SIZE);
      const from = Math.max(0, pages - LEDGER_MAX_PAGES);
      const entries = [];
      for (let page = from; page < pages; page++) {
        const answer = page === 0 ? first : await get(auditPath(skuId, first.at, page));
        entries.push(...answer.ledger);
      }
      let after = { total: first.total, available: first.available, reserved: first.reserved, sold: first.sold };
      for (let i = entries.length - 1; i >= 0; i--) {
        entries[i].after = after;
        const change = entries[i].change;
        after = {
          total: after.total - change.total,
          available: after.available - change.available,
          reserved: after.reserved - change.reserved,
          sold: after.sold - change.sold,
        };
      }
      return { audit: first, entries };
    }

    function render({ audit, entries }) {
      const x = [];
      const series = { total: [], available: [], reserved: [], sold: [] };
      let last = -Infinity;
      for (const entry of entries) {
        // Never backwards: entries are in event-store order, stamped by their writers' clocks.
        last = Math.max(last, epochSeconds(entry.timestamp));
        x.push(last);
        for (const name of Object.keys(series)) {
          series[name].push(entry.after[name]);
        }
      }
      figure.hidden = false;
      if (plot) {
        plot.destroy();
      }
      const stepped = uPlot.paths.stepped({ align: 1 });
      const line = (label, stroke) => ({ label, stroke, width: 2, paths: stepped, points: { show: x.length < 60 } });
      plot = new uPlot({
        width: chartWidth(),
        height: 280,
        scales: { x: { time: true } },
        series: [
          { label: 'Time' },
          line('Total', '#555555'),
          line('Available', '#1b7f3b'),
          line('Reserved', '#b85c00'),
          line('Sold', '#1f5fbf'),
        ],
        axes: [{}, { label: 'units' }],
      }, [x, series.total, series.available, series.reserved, series.sold], container);
      const shown = entries.length < audit.totalEntries ? `the last ${entries.length} of ${audit.totalEntries}` : `${entries.length}`;
      $('history-caption').textContent =
        `${audit.skuId} as of ${formatInstant(audit.at)}: total ${audit.total}, available ${audit.available}, ` +
        `reserved ${audit.reserved}, sold ${audit.sold}; after each of ${shown} ledger entries.`;
    }

    function chartWidth() {
      return Math.max(320, Math.min(1100, figure.parentElement.clientWidth - 8));
    }

    async function draw(skuId, at) {
      $('history-sku').value = skuId;
      $('history-at').value = at;
      say(message, 'Loading…');
      try {
        render(await ledger(skuId, at));
        say(message, '');
      } catch (error) {
        say(message, error.message, true);
      }
    }

    $('history-form').addEventListener('submit', (event) => {
      event.preventDefault();
      draw($('history-sku').value.trim(), $('history-at').value.trim());
    });

    window.addEventListener('resize', () => {
      if (plot) {
        plot.setSize({ width: chartWidth(), height: 280 });
      }
    });

    return { draw };
  })();

  // ---- reservation and its audit timeline ----

  (() => {
    const message = $('reservation-message');
    const details = $('reservation-details');
    const timeline = $('timeline');

    function describeLines(lines) {
      return (lines || []).map((line) => `${line.quantity} × ${line.skuId}`).join(', ');
    }

    /** The units a partial confirmation gave back: each line's reserved units less those sold. */
    function givenBack(view) {
      if (!view.confirmedLines || view.releaseReason !== 'NOT_CONFIRMED') {
        return [];
      }
      const sold = new Map();
      for (const line of view.confirmedLines) {
        sold.set(line.skuId, (sold.get(line.skuId) || 0) + line.quantity);
      }
      return view.lines
        .map((line) => ({ skuId: line.skuId, quantity: line.quantity - (sold.get(line.skuId) || 0) }))
        .filter((line) => line.quantity > 0);
    }

    function showDetails(view) {
      const back = givenBack(view);
      const items = [
        ['Reservation', view.reservationId],
        ['User', view.userId],
        ['Status', view.status],
        ['Lines', describeLines(view.lines)],
        ['Created', formatInstant(view.createdAt)],
        ['Expires', formatInstant(view.expiresAt)],
        ['Confirmed', formatInstant(view.confirmedAt)],
        ['Sold', view.confirmedLines ? describeLines(view.confirmedLines) || 'nothing' : '—'],
        ['Given back', back.length > 0 ? describeLines(back) : '—'],
        ['Released', formatInstant(view.releasedAt)],
        ['Release reason', view.releaseReason || '—'],
      ];
      details.replaceChildren();
      for (const [name, value] of items) {
        const dt = document.createElement('dt');
        dt.textContent = name;
        const dd = document.createElement('dd');
        dd.textContent = value;
        dd.dataset.field = name;
        details.append(dt, dd);
      }
      details.hidden = false;
    }

    /** What an event did, in words: the units it moved, and an extension's new end of hold. */
    function summary(type, payload) {
      const parts = [`user ${payload.userId}`];
      if (type === 'ReservationExtended') {
        parts.push(`hold extended to ${formatInstant(payload.expiresAt)}`);
      } else if (type === 'StockConfirmed') {
        parts.push(`sold ${describeLines(payload.lines) || 'nothing'}`);
      } else if (type === 'StockReleased' && payload.reason === 'NOT_CONFIRMED') {
        parts.push(`given back ${describeLines(payload.lines)} (not confirmed)`);
      } else {
        parts.push(describeLines(payload.lines));
        if (payload.expiresAt) {
          parts.push(`expires ${formatInstant(payload.expiresAt)}`);
        }
        if (payload.reason) {
          parts.push(`reason ${payload.reason}`);
        }
      }
      return parts.filter(Boolean).join('; ');
    }

    function showTimeline(events) {
      timeline.replaceChildren();
      for (const event of events) {
        const li = document.createElement('li');
        li.dataset.type = event.type;
        const time = document.createElement('time');
        time.dateTime = event.timestamp;
        time.textContent = formatInstant(event.timestamp);
        const type = document.createElement('strong');
        type.className = 'event-type';
        type.textContent = event.type;
        const sequence = document.createElement('span');
        sequence.className = 'help';
        sequence.textContent = ` (sequence ${event.sequenceNumber})`;
        const what = document.createElement('div');
        what.className = 'event-summary';
        what.textContent = summary(event.type, event.payload || {});
        li.append(time, ' ', type, sequence, what);
        timeline.appendChild(li);
      }
      $('timeline-heading').hidden = false;
    }

    $('reservation-form').addEventListener('submit', async (event) => {
      event.preventDefault();
      const id = $('reservation-id').value.trim();
      details.hidden = true;
      $('timeline-heading').hidden = true;
      timeline.replaceChildren();
      say(message, 'Looking up…');
      // The view comes from the read model, the timeline from the event store: either may answer
      // without the other (a replay in progress, a projection behind).
      const [view, audit] = await Promise.allSettled([
        get(`/api/reservations/${enc(id)}`),
        get(`/api/audit/reservations/${enc(id)}`),
      ]);
      const problems = [];
      if (view.status === 'fulfilled') {
        showDetails(view.value);
      } else {
        problems.push(`Reservation: ${view.reason.message}`);
      }
      if (audit.status === 'fulfilled') {
        showTimeline(audit.value);
      } else {
        problems.push(`Timeline: ${audit.reason.message}`);
      }
      say(message, problems.join(' — '), problems.length > 0);
    });
  })();

  // ---- gate decisions ----

  (() => {
    const message = $('decisions-message');
    const body = $('decisions-table').tBodies[0];
    // What the table shows: a SKU's decisions (in a window) or a user's, its page and total, and
    // the position of the SKU's first sell-out once asked for (-1: none or not asked).
    let shown = null;

    function path(view, page, around) {
      const query = new URLSearchParams({ size: String(DECISIONS_PAGE_SIZE) });
      if (around) {
        query.set('around', 'sellout');
      } else {
        query.set('page', String(page));
      }
      if (view.from) {
        query.set('from', view.from);
      }
      if (view.to) {
        query.set('to', view.to);
      }
      const base = view.kind === 'sku' ? 'skus' : 'users';
      return `/api/audit/${base}/${enc(view.id)}/decisions?${query}`;
    }

    /** A decision's time to the millisecond, in UTC: decisions a millisecond apart differ. */
    function formatMillis(iso) {
      return new Date(iso.replace(/(\.\d{3})\d+/, '$1')).toISOString().replace('T', ' ').replace('Z', '');
    }

    function render(view, answer, soldOut) {
      shown = { ...view, page: answer.page, size: answer.size, total: answer.total, soldOut };
      body.replaceChildren();
      answer.decisions.forEach((decision, i) => {
        const position = answer.page * answer.size + i;
        const tr = document.createElement('tr');
        tr.dataset.sequence = String(decision.sequence);
        tr.dataset.position = String(position);
        if (position === soldOut) {
          tr.classList.add('sellout');
        }
        const th = document.createElement('th');
        th.scope = 'row';
        th.className = 'num';
        th.textContent = String(position + 1);
        tr.appendChild(th);
        cell(tr, formatMillis(decision.at)).dataset.field = 'at';
        cell(tr, decision.skuId || view.id).dataset.field = 'skuId';
        cell(tr, decision.bucket, 'num');
        cell(tr, decision.sequence, 'num').dataset.field = 'sequence';
        cell(tr, decision.reservationId);
        cell(tr, decision.userId).dataset.field = 'userId';
        cell(tr, decision.quantity, 'num');
        const outcome = cell(tr, decision.outcome, `outcome outcome-${decision.outcome}`);
        outcome.dataset.field = 'outcome';
        cell(tr, decision.availableAfter, 'num').dataset.field = 'availableAfter';
        body.appendChild(tr);
      });
      const pages = Math.max(1, Math.ceil(answer.total / answer.size));
      const window = [view.from ? `from ${view.from}` : '', view.to ? `to ${view.to}` : ''].filter(Boolean).join(' ');
      let summary = view.kind === 'sku'
        ? `${answer.total} decisions of SKU ${view.id}${window ? ` ${window}` : ''}`
        : `${answer.total} attempts of user ${view.id}${window ? ` ${window}` : ''}, every SKU's`;
      if (view.kind === 'sku' && view.sellout) {
        summary += soldOut >= 0
          ? `; first sell-out at decision #${soldOut + 1} (highlighted)`
          : '; no decision left it sold out';
      }
      $('decisions-summary').textContent = `${summary}.`;
      $('decisions-page').textContent = `Page ${answer.page + 1} of ${pages}`;
      $('decisions-caption').textContent = answer.decisions.length > 0
        ? `Decisions ${answer.page * answer.size + 1} to ${answer.page * answer.size + answer.decisions.length} of ${answer.total}, oldest first`
        : 'No decision on this page';
      $('decisions-previous').disabled = answer.page <= 0;
      $('decisions-next').disabled = answer.page + 1 >= pages;
      $('decisions-result').hidden = false;
    }

    async function load(view, page, around) {
      say(message, 'Loading…');
      try {
        const answer = await get(path(view, page, around));
        let soldOut = shown && shown.kind === view.kind && shown.id === view.id ? shown.soldOut : -1;
        if (around) {
          soldOut = answer.sellout === null || answer.sellout === undefined ? -1 : answer.sellout;
        }
        render(view, answer, soldOut);
        say(message, '');
      } catch (error) {
        say(message, error.message, true);
      }
    }

    function skuView(sellout) {
      return {
        kind: 'sku',
        id: $('decisions-sku').value.trim(),
        from: $('decisions-from').value.trim(),
        to: $('decisions-to').value.trim(),
        sellout,
      };
    }

    $('decisions-sku-form').addEventListener('submit', (event) => {
      event.preventDefault();
      shown = null;
      load(skuView(true), 0, true);
    });

    $('decisions-first').addEventListener('click', () => {
      if (!$('decisions-sku-form').reportValidity()) {
        return;
      }
      shown = null;
      load(skuView(false), 0, false);
    });

    $('decisions-user-form').addEventListener('submit', (event) => {
      event.preventDefault();
      shown = null;
      load({ kind: 'user', id: $('decisions-user').value.trim() }, 0, false);
    });

    $('decisions-previous').addEventListener('click', () => load(shown, shown.page - 1, false));
    $('decisions-next').addEventListener('click', () => load(shown, shown.page + 1, false));
  })();

  // ---- reconciliation ----

  (() => {
    const message = $('reconciliation-message');
    const SEVERITY = { DRIFT: 0, UNKNOWN: 1, IN_FLIGHT: 2, CONSISTENT: 3 };

    function statusCell(tr, status) {
      cell(tr, status, `status status-${status}`);
    }

    function show(report) {
      const s = report.summary;
      const gate = report.gate || {};
      $('reconciliation-summary').textContent =
        `Checked ${formatInstant(report.generatedAt)} up to event ${report.events ? report.events.position : '—'}. ` +
        `Gate ${gate.status}${gate.marker ? ` (${gate.marker})` : ''}` +
        `${gate.pendingAdmissions !== null && gate.pendingAdmissions !== undefined ? `, ${gate.pendingAdmissions} admissions pending` : ''}` +
        `${gate.error ? `: ${gate.error}` : ''}. ` +
        `${s.skus} SKUs: ${s.consistent} consistent, ${s.inFlight} in flight, ${s.drift} drift, ${s.unknown} unknown; ` +
        `${s.reservationMismatches === null ? 'reservations not compared' : `${s.reservationMismatches} reservation mismatches`}.`;
      const skus = [...report.skus].sort(
        (a, b) => (SEVERITY[a.status] ?? 4) - (SEVERITY[b.status] ?? 4) || a.skuId.localeCompare(b.skuId));
      const body = $('reconciliation-skus').tBodies[0];
      body.replaceChildren();
      for (const sku of skus.slice(0, RECONCILIATION_MAX_ROWS)) {
        const tr = document.createElement('tr');
        tr.dataset.sku = sku.skuId;
        const th = document.createElement('th');
        th.scope = 'row';
        th.textContent = sku.skuId;
        tr.appendChild(th);
        statusCell(tr, sku.status);
        cell(tr, numbers(sku.gate));
        cell(tr, numbers(sku.events));
        cell(tr, numbers(sku.readModel));
        cell(tr, numbers(sku.difference && sku.difference.unexplained));
        cell(tr, formatInstant(sku.since));
        body.appendChild(tr);
      }
      const mismatches = $('reconciliation-mismatches').tBodies[0];
      mismatches.replaceChildren();
      for (const mismatch of report.reservationMismatches.slice(0, RECONCILIATION_MAX_ROWS)) {
        const tr = document.createElement('tr');
        const th = document.createElement('th');
        th.scope = 'row';
        th.textContent = mismatch.reservationId;
        tr.appendChild(th);
        cell(tr, mismatch.intent);
        cell(tr, mismatch.readModel);
        cell(tr, mismatch.skuIds.join(', '));
        statusCell(tr, mismatch.status);
        cell(tr, formatInstant(mismatch.since));
        mismatches.appendChild(tr);
      }
      $('reconciliation-mismatches').hidden = report.reservationMismatches.length === 0;
      $('reconciliation-report').hidden = false;
      const cut = report.skus.length > RECONCILIATION_MAX_ROWS || report.reservationMismatches.length > RECONCILIATION_MAX_ROWS;
      say(message, cut ? `Showing the first ${RECONCILIATION_MAX_ROWS} rows of each table, the worst first.` : '');
    }

    $('reconciliation-run').addEventListener('click', async () => {
      say(message, 'Checking…');
      try {
        show(await get('/api/reconciliation'));
      } catch (error) {
        say(message, error.message, true);
      }
    });
  })();

  // ---- replay ----

  (() => {
    const message = $('replay-message');
    const box = $('replay-progress-box');
    const progress = $('replay-progress');
    let following = null;

    function show(replay) {
      box.hidden = false;
      progress.value = replay.percent;
      $('replay-label').textContent = `Replay ${replay.replayId}: ${replay.status}`;
      $('replay-percent').textContent =
        `${replay.percent} % (${replay.processed} of ${replay.total} events)`;
      const ended = replay.status === 'DONE' || replay.status === 'FAILED';
      say(message, replay.status === 'FAILED' ? `Failed: ${replay.failure || 'no reason given'}` : '',
        replay.status === 'FAILED');
      return ended;
    }

    async function follow(replayId) {
      following?.abort();
      following = new AbortController();
      const signal = following.signal;
      sessionStorage.setItem(REPLAY_KEY, replayId);
      let seenRunning = false;
      while (!signal.aborted) {
        try {
          if (show(await get(`/api/replays/${enc(replayId)}`, signal))) {
            if (seenRunning) {
              // Streams that paused or failed during the replay start again on the rebuilt model.
              stock.restart();
            }
            return;
          }
          seenRunning = true;
        } catch (error) {
          if (signal.aborted) {
            return;
          }
          say(message, error.message, true);
          if (error.status === 404 || error.status === 401 || error.status === 403) {
            return;
          }
        }
        await sleep(1000, signal);
      }
    }

    $('replay-start').addEventListener('click', async () => {
      if (!window.confirm('Rebuild the read models from the event store? They keep answering meanwhile and are replaced at once when it is done.')) {
        return;
      }
      say(message, 'Starting…');
      try {
        const started = await send('POST', '/api/replays');
        follow(started.replayId);
      } catch (error) {
        say(message, error.message, true);
      }
    });

    const last = sessionStorage.getItem(REPLAY_KEY);
    if (last) {
      follow(last);
    }
  })();

  // ---- start ----

  $('token').value = token();
  showTokenState();
  sale.restart();
  const saved = sessionStorage.getItem(SKUS_KEY);
  if (saved) {
    $('stock-skus').value = saved;
    stock.watch(skuList(saved));
  }
})();
