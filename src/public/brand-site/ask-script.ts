/**
 * The ask box's progressive enhancement (`/_cp/ask.js`, loaded by every page that has the box). Without it
 * the box is a plain form that posts to `/ask` and gets a page with the answer; with it, the submit is taken
 * over: the question goes to the same endpoint as JSON (the agents' API, so there is one concierge and one
 * rate limit), and the answer is written into the box's live region, where a screen reader announces it.
 * Follow-up questions carry the earlier ones (`prev`) and the conversation id, as the answer page's hidden
 * fields do.
 *
 * Everything is built with DOM methods and `textContent`, never `innerHTML`: the answer quotes brand and
 * product text. A link is only made from an http(s) URL. If the request fails (offline, a proxy in the way),
 * the form is submitted the plain way, so the visitor still gets an answer page.
 */
import { createHash } from 'node:crypto';
import { BRAND_PATHS } from './site-model.ts';

export const ASK_SCRIPT = `(function () {
  'use strict';
  var endpoint = ${JSON.stringify(BRAND_PATHS.ask)};
  var state = { previous: [], conversationId: null };
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function href(url) {
    if (typeof url !== 'string' || !/^https?:\\/\\//i.test(url)) return null;
    return url.indexOf(location.origin + '/') === 0 ? url.slice(location.origin.length) : url;
  }
  function region() { return document.querySelector('[data-cp-answer]'); }
  function show(nodes) {
    var live = region();
    live.removeAttribute('aria-busy');
    live.textContent = '';
    for (var i = 0; i < nodes.length; i++) live.appendChild(nodes[i]);
  }
  function message(text, className) { show([el('p', className || '', text)]); }
  function answerNodes(question, reply) {
    var nodes = [el('p', 'asked', 'You asked: ' + question)];
    var text = el('p');
    var segments = Array.isArray(reply.segments) && reply.segments.length ? reply.segments : null;
    if (reply.answered && Array.isArray(reply.sources)) {
      // The JSON answer marks each quoted passage "[n]"; those markers become links to the sources.
      var pieces = String(reply.answer).split(/(\\[\\d+\\])/);
      for (var i = 0; i < pieces.length; i++) {
        var marker = /^\\[(\\d+)\\]$/.exec(pieces[i]);
        var source = marker ? reply.sources[Number(marker[1]) - 1] : null;
        var link = source ? href(source.url) : null;
        if (link) {
          var cite = el('a', 'cite', pieces[i]);
          cite.href = link;
          cite.setAttribute('aria-label', 'Source ' + marker[1] + ': ' + source.title);
          text.appendChild(cite);
        } else {
          text.appendChild(document.createTextNode(pieces[i]));
        }
      }
    } else {
      text.textContent = String(reply.answer || '');
    }
    nodes.push(text);
    if (!reply.answered) {
      var contact = document.querySelector('.site-footer .contact');
      if (contact) {
        nodes.push(el('p', '', 'Ask a person instead:'));
        nodes.push(contact.cloneNode(true));
      }
    }
    if (Array.isArray(reply.sources) && reply.sources.length) {
      nodes.push(el('h3', '', 'Sources'));
      var list = el('ol', 'sources');
      for (var j = 0; j < reply.sources.length; j++) {
        var url = href(reply.sources[j].url);
        var item = el('li');
        var a = el(url ? 'a' : 'span', '', String(reply.sources[j].title));
        if (url) a.href = url;
        item.appendChild(a);
        list.appendChild(item);
      }
      nodes.push(list);
    }
    if (Array.isArray(reply.suggestions) && reply.suggestions.length) {
      nodes.push(el('h3', '', 'You could also ask'));
      var chips = el('ul', 'suggestions');
      chips.setAttribute('role', 'list');
      reply.suggestions.forEach(function (suggestion) {
        var li = el('li');
        var button = el('button', 'chip', String(suggestion));
        button.type = 'button';
        button.addEventListener('click', function () { ask(String(suggestion), null); });
        li.appendChild(button);
        chips.appendChild(li);
      });
      nodes.push(chips);
    }
    return nodes;
  }
  function ask(question, form) {
    var live = region();
    if (!live) return false;
    var box = live.closest('.ask-box');
    var input = box && box.querySelector('input[name="query"]');
    if (!question) {
      message('Type your question in the box first, then press Ask.', 'unknown');
      if (input) input.focus();
      return true;
    }
    var hidden = form ? new FormData(form).getAll('prev').map(String) : [];
    var body = { query: question, prev: hidden.concat(state.previous).slice(-20) };
    if (state.conversationId) body.conversationId = state.conversationId;
    else if (form && form.elements.conversationId) body.conversationId = form.elements.conversationId.value;
    live.setAttribute('aria-busy', 'true');
    live.textContent = '';
    live.appendChild(el('p', 'asked', 'Looking for an answer\\u2026'));
    fetch(endpoint, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body)
    }).then(function (response) {
      return response.json().then(function (data) { return { status: response.status, data: data }; });
    }).then(function (result) {
      if (result.status === 200) {
        state.previous.push(question);
        state.conversationId = result.data.conversationId || state.conversationId;
        show(answerNodes(question, result.data));
        if (input && form && input.form === form) input.value = '';
        // Asked from elsewhere on the page (a suggestion on the answer page): bring the answer into view.
        if (form && box && !box.contains(form)) live.scrollIntoView({ block: 'nearest' });
      } else if (result.status === 429) {
        message('That was a lot of questions in a short time. Please ask again in a minute.', 'unknown');
      } else {
        message(String(result.data && result.data.error_description || 'That question could not be asked.'), 'unknown');
      }
    }).catch(function () {
      // No answer over the API: the plain form still gets one, as a page.
      if (form) form.submit();
      else message('The answer could not be fetched. Please try again.', 'unknown');
    });
    return true;
  }
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!form || !form.matches || !form.matches('form[data-cp-ask]') || !window.fetch || !region()) return;
    var field = form.elements.query;
    event.preventDefault();
    ask(field ? String(field.value).trim() : '', form);
  });
})();
`;

export const ASK_SCRIPT_ETAG = `"${createHash('sha256').update(ASK_SCRIPT).digest('base64url').slice(0, 27)}"`;
