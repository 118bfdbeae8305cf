// The book's predict-first questions (book/_ext/questions.py): each static question becomes a small form
// answered in the page. Native controls only (radio buttons or a text field, and a button), so that the
// keyboard works as everywhere else: Tab to the group, arrow keys to choose, Enter or the button to check.
// The verdict goes into a polite live region; it starts with a word ("Right." / "Not yet."), so colour is
// never the only signal. Nothing is fetched: the answers are in the page (data-question).
(function () {
  'use strict';
  let count = 0;

  function element(tag, attributes, text) {
    const node = document.createElement(tag);
    Object.entries(attributes || {}).forEach(([name, value]) => node.setAttribute(name, value));
    if (text) node.textContent = text;
    return node;
  }

  function readNumber(text) {
    const cleaned = text.trim().replace(/\u2212/g, '-').replace(/[\s_,]/g, '');
    if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(cleaned)) return null;
    return Number(cleaned);
  }

  function verdict(spec, form) {
    if (spec.kind === 'choice') {
      const chosen = form.querySelector('input[type=radio]:checked');
      if (!chosen) return { state: 'empty', text: 'Choose an answer first.' };
      const index = Number(chosen.value);
      return index === spec.right
        ? { state: 'right', text: 'Right. ' + spec.feedback[index] }
        : { state: 'wrong', text: 'Not yet. ' + spec.feedback[index] };
    }
    const field = form.querySelector('input[type=text]');
    const value = readNumber(field.value);
    if (field.value.trim() === '') return { state: 'empty', text: 'Type a number first.' };
    if (value === null) return { state: 'empty', text: 'Type a number, such as 0.5 or 3.' };
    const near = (target) => Math.abs(value - target) <= spec.tolerance + 1e-12 * Math.abs(target);
    if (near(spec.answer)) return { state: 'right', text: 'Right. ' + spec.right };
    const known = spec.known.find((item) => near(item.value));
    return { state: 'wrong', text: 'Not yet. ' + (known ? known.feedback : spec.otherwise) };
  }

  function enhance(box) {
    const spec = JSON.parse(box.dataset.question);
    const id = box.id || 'pe-question-' + (++count);
    const form = element('form', { class: 'pe-question-form', novalidate: '' });
    const group = element('fieldset');
    group.append(element('legend', {}, spec.kind === 'choice' ? 'Your answer' : 'Your answer (a number)'));
    if (spec.kind === 'choice') {
      const static_ = box.querySelector('ol.pe-question-options');
      [...static_.children].forEach((item, index) => {
        const label = element('label', { class: 'pe-question-option' });
        const radio = element('input', { type: 'radio', name: id + '-choice', value: String(index) });
        const text = element('span');
        text.innerHTML = item.querySelector('p') ? item.querySelector('p').innerHTML : item.innerHTML;
        label.append(radio, text);
        group.append(label);
      });
      static_.hidden = true;
    } else {
      const field = element('input', { type: 'text', inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false',
                                       id: id + '-value', 'aria-label': 'Your answer (a number)' });
      group.append(field);
    }
    const button = element('button', { type: 'submit', class: 'pe-question-check' }, 'Check');
    const feedback = element('p', { class: 'pe-question-feedback', role: 'status', 'aria-live': 'polite' });
    form.append(group, button, feedback);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const result = verdict(spec, form);
      feedback.textContent = result.text;
      feedback.dataset.state = result.state;
      box.dataset.state = result.state;
    });
    const answer = box.querySelector('.pe-question-answer');
    box.insertBefore(form, answer);
    box.classList.add('pe-question-live');
  }

  function start() {
    document.querySelectorAll('div.pe-question[data-question]').forEach(enhance);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
