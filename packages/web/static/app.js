// shop serve's only script: live updates and friendlier form checks. Every page works without
// it (forms are plain posts). No dependencies, no build step; the CSP allows only this file.
'use strict';
(function () {
  var live = document.getElementById('live');

  // Times: the server writes its own local time; show the reader's.
  function pad(n) {
    return (n < 10 ? '0' : '') + n;
  }
  function localise(root) {
    var times = root.querySelectorAll('time[datetime]');
    for (var i = 0; i < times.length; i++) {
      var t = new Date(times[i].getAttribute('datetime'));
      var local = times[i].nextElementSibling;
      if (isNaN(t.getTime()) || !local || !local.classList.contains('local')) continue;
      local.textContent =
        t.getFullYear() +
        '-' +
        pad(t.getMonth() + 1) +
        '-' +
        pad(t.getDate()) +
        ' ' +
        pad(t.getHours()) +
        ':' +
        pad(t.getMinutes());
    }
  }

  // "3 min ago" ages while the page stays open: recount it now and then (the server's words).
  function ago(ms) {
    var diff = Math.round((Date.now() - ms) / 1000),
      s = Math.abs(diff);
    if (s < 45) return 'just now';
    var span =
      s < 3600 ? Math.round(s / 60) + ' min' : s < 86400 ? Math.round(s / 3600) + ' h' : Math.round(s / 86400) + ' d';
    return diff < 0 ? 'in ' + span : span + ' ago';
  }
  function recount() {
    var times = document.querySelectorAll('time[datetime]');
    for (var i = 0; i < times.length; i++) {
      var t = Date.parse(times[i].getAttribute('datetime'));
      if (!isNaN(t)) times[i].textContent = ago(t);
    }
  }
  setInterval(recount, 30000);

  // Structured decisions: check in the page first, with one clear message naming each problem.
  // The same words the server uses, rather than each browser's own.
  function why(f) {
    var v = f.validity;
    if (v.valueMissing) return f.type === 'radio' ? 'choose one' : 'required';
    if (v.badInput) return f.type === 'number' ? 'must be a number' : 'must be a date (YYYY-MM-DD)';
    if (v.rangeUnderflow) return 'must be ≥ ' + f.min;
    if (v.rangeOverflow) return 'must be ≤ ' + f.max;
    if (v.tooShort) return 'must be at least ' + f.minLength + ' characters';
    if (v.tooLong) return 'must be at most ' + f.maxLength + ' characters';
    if (v.patternMismatch && f.title) return f.title;
    return f.validationMessage;
  }

  // A decision's pattern, checked as the server checks it: a JavaScript RegExp (no flags) found
  // anywhere in the text. Not an HTML pattern attribute: browsers anchor it and compile it with
  // the v flag, where the README's own ^[a-z-]+$ is invalid (and then silently not checked).
  function checkPattern(f) {
    var source = f.getAttribute('data-pattern');
    if (source === null) return;
    var ok = true;
    try {
      ok = f.value === '' || new RegExp(source).test(f.value);
    } catch {
      /* the server checks it */
    }
    f.setCustomValidity(ok ? '' : 'must match /' + source + '/');
  }
  function checkPatterns(root) {
    var fields = root.querySelectorAll('[data-pattern]');
    for (var i = 0; i < fields.length; i++) checkPattern(fields[i]);
  }

  function problemsOf(form) {
    checkPatterns(form);
    var problems = [];
    var sets = form.querySelectorAll('fieldset.decision');
    for (var i = 0; i < sets.length; i++) {
      var set = sets[i];
      var prompt = set.getAttribute('data-prompt') || 'answer';
      if (set.classList.contains('t-multi_choice')) {
        var n = set.querySelectorAll('input[type=checkbox]:checked').length;
        var min = set.getAttribute('data-min'),
          max = set.getAttribute('data-max');
        if (min !== '' && min !== null && n < Number(min))
          problems.push(prompt + ': choose at least ' + min + ' (you chose ' + n + ')');
        if (max !== '' && max !== null && n > Number(max))
          problems.push(prompt + ': choose at most ' + max + ' (you chose ' + n + ')');
      }
      var fields = set.querySelectorAll('input, select, textarea');
      var seen = {};
      for (var j = 0; j < fields.length; j++) {
        var f = fields[j];
        if (f.validity.valid || seen[f.name]) continue;
        seen[f.name] = true;
        problems.push(prompt + ': ' + why(f));
      }
    }
    var others = form.querySelectorAll('input[name=by], textarea[name=message]');
    for (var k = 0; k < others.length; k++) {
      if (!others[k].validity.valid)
        problems.push((others[k].name === 'by' ? 'Your name' : 'Message') + ': ' + others[k].validationMessage);
    }
    return problems;
  }

  function onSubmit(e) {
    var form = e.target;
    if (!(form instanceof HTMLFormElement)) return;
    if (form.getAttribute('data-check') === 'decisions') {
      var problems = problemsOf(form);
      var box = form.querySelector('.problems');
      if (problems.length) {
        e.preventDefault();
        if (box) {
          box.textContent = 'Not sent — please fix:\n' + problems.join('\n');
          box.hidden = false;
          box.scrollIntoView({ block: 'center' });
        }
        return;
      }
      if (box) box.hidden = true;
    }
    var button = form.querySelector('button[type=submit]');
    if (button)
      setTimeout(function () {
        button.disabled = true;
      }, 0);
    delete form.dataset.dirty;
  }

  function prepare(root) {
    localise(root);
    checkPatterns(root);
    var forms = root.querySelectorAll('form[data-check=decisions]');
    for (var i = 0; i < forms.length; i++) forms[i].noValidate = true;
  }

  // Live updates: the server says "change"; refetch this page's main part and swap it in —
  // but never under someone's fingers. While a field in #live has focus, wait for blur; a
  // form someone has started filling keeps its values across the swap.
  var pending = false,
    fetching = false;
  function typing() {
    var a = document.activeElement;
    if (!a || !live || !live.contains(a)) return false;
    return /^(INPUT|TEXTAREA|SELECT|SUMMARY)$/.test(a.tagName) || !!a.closest('form, details');
  }
  // Folded parts a person opened ("Reject…", "Add a comment") stay open across a swap.
  function openParts() {
    var ids = [];
    var open = live.querySelectorAll('details[open][id]');
    for (var i = 0; i < open.length; i++) ids.push(open[i].id);
    return ids;
  }
  function reopen(ids) {
    ids.forEach(function (id) {
      var d = document.getElementById(id);
      if (d && d.tagName === 'DETAILS') d.open = true;
    });
  }
  function snapshot() {
    var saved = {};
    var forms = live.querySelectorAll('form[id]');
    for (var i = 0; i < forms.length; i++) {
      if (!forms[i].dataset.dirty) continue;
      var fields = [];
      for (var j = 0; j < forms[i].elements.length; j++) {
        var el = forms[i].elements[j];
        if (!el.name || el.type === 'hidden') continue;
        fields.push({
          name: el.name,
          value: el.value,
          checked: el.checked,
          box: el.type === 'checkbox' || el.type === 'radio',
        });
      }
      saved[forms[i].id] = fields;
    }
    return saved;
  }
  function restore(saved) {
    Object.keys(saved).forEach(function (id) {
      var form = document.getElementById(id);
      if (!form) return;
      form.dataset.dirty = '1';
      saved[id].forEach(function (f) {
        // The form's elements, its own and those joined to it by a form= attribute (the runs list's checkboxes).
        for (var i = 0; i < form.elements.length; i++) {
          var el = form.elements[i];
          if (el.name !== f.name) continue;
          if (f.box && el.value === f.value) el.checked = f.checked;
          else if (!f.box) el.value = f.value;
        }
      });
    });
  }
  function refresh() {
    if (!live) return;
    if (typing() || fetching) {
      pending = true;
      return;
    }
    pending = false;
    fetching = true;
    var url = new URL(location.href);
    url.searchParams.set('partial', '1');
    fetch(url.pathname + url.search, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then(function (res) {
        if (res.redirected || res.status === 401 || res.status === 403) {
          location.reload();
          return null;
        }
        return res.ok ? res.text() : null;
      })
      .then(function (text) {
        if (text === null) return;
        if (typing()) {
          pending = true;
          return;
        }
        var saved = snapshot();
        var opened = openParts();
        live.innerHTML = text;
        reopen(opened);
        var title = document.getElementById('page-title');
        if (title) document.title = title.getAttribute('data-title');
        restore(saved);
        prepare(live);
      })
      .catch(function () {
        /* offline for a moment: the next change tries again */
      })
      .then(function () {
        fetching = false;
        if (pending) setTimeout(refresh, 50);
      });
  }

  document.addEventListener('submit', onSubmit);
  document.addEventListener('input', function (e) {
    if (e.target && e.target.hasAttribute && e.target.hasAttribute('data-pattern')) checkPattern(e.target);
    var form = e.target && e.target.form;
    if (form && live && live.contains(form)) form.dataset.dirty = '1';
  });
  document.addEventListener('focusout', function () {
    // Focus may be moving to the next field of the same form: look again once it has landed.
    setTimeout(function () {
      if (pending && !typing()) refresh();
    }, 0);
  });
  // Back to a page kept in memory (the back button): its buttons work again.
  window.addEventListener('pageshow', function (e) {
    if (!e.persisted) return;
    var off = document.querySelectorAll('button[disabled]');
    for (var i = 0; i < off.length; i++) off[i].disabled = false;
  });
  prepare(document);
  if (live && window.EventSource && document.body.hasAttribute('data-live')) {
    var source = new EventSource('/events');
    // A run's page only cares about its own run; the inbox and the runs list about any.
    var own = /^\/runs\/(\d+)$/.exec(location.pathname);
    source.addEventListener('change', function (e) {
      if (own) {
        try {
          var runs = JSON.parse(e.data).runs;
          if (Array.isArray(runs) && runs.indexOf(Number(own[1])) < 0) return;
        } catch {
          /* not the shape we know: refresh to be safe */
        }
      }
      refresh();
    });
  }
})();
