// The adi chat panel's script. Everything shown comes from the extension:
// text is set with textContent; HTML fragments (tool cards, the diagnosis)
// arrive escaped by the extension (extension/src/html.ts).
(function () {
  'use strict';
  const vscode = acquireVsCodeApi();
  const $ = (id) => document.getElementById(id);
  const transcript = $('transcript');
  const diagnosis = $('diagnosis');
  const question = $('question');
  let textEl = null; // the agent's text block being streamed into

  function scroll() {
    window.scrollTo(0, document.body.scrollHeight);
  }

  function block(cls, text) {
    const d = document.createElement('div');
    d.className = cls;
    d.textContent = text;
    transcript.appendChild(d);
    textEl = null;
    scroll();
    return d;
  }

  function card(id) {
    for (const c of transcript.querySelectorAll('details.tool-card')) {
      if (c.getAttribute('data-id') === id) {
        return c;
      }
    }
    return null;
  }

  function handle(m) {
    switch (m.type) {
      case 'text':
        if (!textEl) {
          textEl = document.createElement('div');
          textEl.className = 'agent-text';
          transcript.appendChild(textEl);
        }
        textEl.textContent += m.text;
        scroll();
        break;
      case 'user':
        block('user', m.text);
        break;
      case 'notice':
        block('notice', m.text);
        break;
      case 'error':
        block('error', m.text);
        break;
      case 'usage':
        block('usage', m.text);
        break;
      case 'toolCall':
        textEl = null;
        transcript.insertAdjacentHTML('beforeend', m.html);
        scroll();
        break;
      case 'toolResult': {
        const c = card(m.id);
        if (c) {
          c.querySelector('.tool-result').textContent = m.result;
          c.querySelector('.tool-state').textContent = 'done';
        }
        break;
      }
      case 'diagnosis':
        textEl = null;
        diagnosis.innerHTML = m.html;
        diagnosis.scrollIntoView({ block: 'start' });
        break;
      case 'busy':
        $('ask').disabled = m.busy;
        $('stop').disabled = !m.busy;
        $('status').textContent = m.busy ? 'working…' : '';
        break;
      case 'mode':
        $('mode').textContent = m.text;
        break;
      case 'rerun': {
        const s = $('rerun-status');
        if (s) {
          s.textContent = m.text;
          s.className = m.ok === true ? 'pass' : m.ok === false ? 'fail' : '';
        }
        break;
      }
      case 'applied': {
        const b = $('apply');
        if (b) {
          b.disabled = true;
          b.textContent = 'Applied';
          b.title = 'applied to ' + m.files;
        }
        break;
      }
      case 'clear':
        transcript.textContent = '';
        diagnosis.textContent = '';
        textEl = null;
        break;
    }
  }

  window.addEventListener('message', (e) => handle(e.data));

  function ask() {
    const q = question.value;
    question.value = '';
    vscode.postMessage({ type: 'ask', question: q });
  }

  document.addEventListener('click', (e) => {
    const t = e.target;
    if (!(t instanceof Element)) {
      return;
    }
    const loc = t.closest('a[data-file]');
    if (loc) {
      e.preventDefault();
      vscode.postMessage({ type: 'open', file: loc.getAttribute('data-file'), line: Number(loc.getAttribute('data-line')) || 0 });
      return;
    }
    switch (t.id) {
      case 'ask': ask(); break;
      case 'stop': vscode.postMessage({ type: 'stop' }); break;
      case 'apply': vscode.postMessage({ type: 'apply' }); break;
      case 'rerun': vscode.postMessage({ type: 'rerun' }); break;
    }
  });

  question.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      ask();
    }
  });

  vscode.postMessage({ type: 'ready' });
})();
