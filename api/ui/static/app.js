// scand console: the one script. Everything here is an enhancement; every
// page works without it. It never builds HTML from data: text goes in
// through textContent only.
(function () {
  'use strict';

  // Times arrive in UTC (the title keeps the UTC value); show them in the
  // viewer's locale and time zone.
  document.querySelectorAll('time[datetime]').forEach(function (el) {
    var d = new Date(el.getAttribute('datetime'));
    if (!isNaN(d.getTime())) {
      el.textContent = d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
    }
  });

  // Destructive forms ask first.
  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (ev) {
      if (!window.confirm(form.getAttribute('data-confirm'))) {
        ev.preventDefault();
      }
    });
  });

  // One-time secrets: select on focus, and a copy button where the
  // clipboard is available.
  document.querySelectorAll('input[data-select-on-focus]').forEach(function (el) {
    el.addEventListener('focus', function () { el.select(); });
  });
  document.querySelectorAll('button[data-copy]').forEach(function (btn) {
    var target = document.getElementById(btn.getAttribute('data-copy'));
    if (!target || !navigator.clipboard) { return; }
    btn.hidden = false;
    btn.addEventListener('click', function () {
      navigator.clipboard.writeText(target.value).then(function () {
        btn.textContent = 'Copied';
      }, function () {
        target.select();
      });
    });
  });

  // Live progress of a pending or running scan from the API's event
  // stream; the page reloads once the scan has ended, and the server
  // renders the finished page.
  var progress = document.getElementById('progress');
  if (!progress || !window.EventSource) { return; }
  var url = progress.getAttribute('data-events');
  var expected = parseInt(progress.getAttribute('data-expected'), 10) || 0;
  var log = progress.querySelector('[data-progress-log]');
  var text = progress.querySelector('[data-progress-text]');
  var bar = progress.querySelector('[data-progress-bar]');
  var done = 0;
  function add(line) {
    var li = document.createElement('li');
    li.textContent = line;
    log.appendChild(li);
  }
  function parse(ev) {
    try { return JSON.parse(ev.data) || {}; } catch (e) { return {}; }
  }
  function finished() {
    done += 1;
    if (bar) { bar.value = Math.min(done, bar.max); }
    if (text) { text.textContent = done + (expected ? ' of ' + expected : '') + ' scanners finished.'; }
  }
  var es = new EventSource(url);
  es.addEventListener('scan.start', function () { add('Scan started.'); });
  es.addEventListener('scanner.start', function (ev) { add(parse(ev).name + ': running…'); });
  es.addEventListener('scanner.complete', function (ev) {
    var d = parse(ev);
    add(d.name + ': done, ' + d.findings_count + ' findings in ' + d.duration_s + ' s.');
    finished();
  });
  es.addEventListener('scanner.skipped', function (ev) {
    var d = parse(ev);
    add(d.name + ': skipped (' + d.reason + ').');
    finished();
  });
  es.addEventListener('scanner.failed', function (ev) {
    var d = parse(ev);
    add(d.name + ': failed: ' + d.error);
    finished();
  });
  ['scan.complete', 'scan.failed', 'scan.cancelled'].forEach(function (name) {
    es.addEventListener(name, function () {
      es.close();
      add('Scan ended (' + name + '); loading the results…');
      window.location.reload();
    });
  });
  es.onerror = function () {
    // A closed stream (its 5-minute token expired on a reconnect, or the
    // daemon restarted): fetch the page again, which mints a new token.
    if (es.readyState === EventSource.CLOSED) {
      if (text) { text.textContent = 'Live updates paused; reloading…'; }
      window.setTimeout(function () { window.location.reload(); }, 5000);
    }
  };
}());
