/* QR form: JSON submit, inline errors. Without this file it is a plain POST. */
(function () {
var f = document.querySelector('form[data-thanks]');
if (!f) return;
var btn = f.querySelector('button'), label = btn.textContent, sum = f.querySelector('#error-summary'), busy;
var $$ = function (s, el) { return (el || f).querySelectorAll(s); };
var add = function (tag, to, before) { return to.insertBefore(document.createElement(tag), before); };
var wait = function (on) { busy = btn.disabled = on; btn.textContent = on ? 'Enviando…' : label; };
addEventListener('pageshow', function () { wait(false); }); // Back restores it disabled

function data() {
  var d = {};
  $$('[name]').forEach(function (el) {
    var n = el.name, v = el.value.trim();
    if (n == 'interests') (d[n] = d[n] || []), el.checked && d[n].push(v);
    else if (el.type == 'checkbox') d[n] = el.checked;
    else if (n == 'website') d[n] = el.value; // honeypot as is
    else d[n] = v; // empty too: the server says what is missing, in the same words as without JavaScript
  });
  return d;
}

// Same markup as templates.ts: error <p> before .ctl, controls aria-invalid.
function show(errs) {
  $$('.field-error').forEach(function (p) { p.remove(); });
  $$('[aria-invalid],[aria-describedby^=err-]').forEach(function (x) {
    x.removeAttribute('aria-invalid'), x.removeAttribute('aria-describedby');
  });
  sum.innerHTML = '<h2>No pudimos enviar tus datos</h2><ul></ul>';
  errs.forEach(function (e) {
    var k = String(e.path).replace(/^body\./, '').split('.')[0], msg = e.message || ''; // body.interests.0 → interests
    var w = f.querySelector('[data-field="' + k + '"]'), id = 'err-' + k;
    var li = add('li', sum.lastChild), a = li;
    if (w) {
      var c = $$('input,select', w), p = document.getElementById(id);
      if (!p) {
        p = add('p', w, w.querySelector('.ctl'));
        p.className = 'field-error', p.id = id;
        c.forEach(function (x) { x.setAttribute('aria-invalid', true); });
        (w.tagName == 'FIELDSET' ? w : c[0]).setAttribute('aria-describedby', id);
      }
      p.textContent = (p.textContent + ' ' + msg).trim();
      (a = add('a', li)).href = '#' + c[0].id;
    }
    a.textContent = msg;
  });
  sum.hidden = false;
  (f.querySelector('[aria-invalid]') || sum).focus();
}

f.addEventListener('submit', function (ev) {
  ev.preventDefault();
  if (busy) return; // double tap
  wait(true);
  fetch(f.action, {
    method: 'POST', body: JSON.stringify(data()),
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' }
  }).then(function (r) {
    if (r.ok) return location.assign(f.dataset.thanks); // 201 new, 200 update
    return r.json().catch(Object).then(function (pb) {
      pb = pb || {};
      var errs = r.status == 400 && pb.errors || [];
      wait(false);
      // No list (429, 5xx...): the detail (by the box if consent_required).
      show(errs.length ? errs : [{ path: pb.code == 'consent_required' && 'consent', message: pb.detail || 'Inténtalo de nuevo.' }]);
    });
  }, function () { f.submit(); }); // network error: plain POST
});
})();
