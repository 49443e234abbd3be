/**
 * The script every brand-site HTML page loads (`/_cp/beacon.js`). On load it reports one impression per
 * rendered variant slot; it reports a click when a call to action inside a slot is followed (and sends one that
 * leads off the site through the hand-off, see hand-off.ts); and it exposes
 * `window.cpConvert(goal, value)` for conversion goals. Each event gets a UUIDv7 minted here, so a beacon the
 * browser resends is counted once. It sends `text/plain` (a simple request: no CORS preflight) with
 * `navigator.sendBeacon`, which survives the page being left, and falls back to `fetch(..., {keepalive})`.
 */
import { createHash } from 'node:crypto';
import { BRAND_PATHS } from './site-model.ts';

export const BEACON_SCRIPT = `(function () {
  'use strict';
  var endpoint = ${JSON.stringify(BRAND_PATHS.events)};
  var handOff = ${JSON.stringify(BRAND_PATHS.handOff)};
  function uuidv7() {
    var b = new Uint8Array(16);
    crypto.getRandomValues(b);
    var t = Date.now();
    for (var i = 5; i >= 0; i--) { b[i] = t % 256; t = Math.floor(t / 256); }
    b[6] = (b[6] & 0x0f) | 0x70;
    b[8] = (b[8] & 0x3f) | 0x80;
    var h = '';
    for (var j = 0; j < 16; j++) h += (b[j] + 256).toString(16).slice(1);
    return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
  }
  function send(events) {
    var body = JSON.stringify({ events: events });
    try {
      if (navigator.sendBeacon && navigator.sendBeacon(endpoint, new Blob([body], { type: 'text/plain' }))) return;
    } catch (e) { /* fall through to fetch */ }
    if (window.fetch) {
      fetch(endpoint, { method: 'POST', body: body, keepalive: true, credentials: 'same-origin', headers: { 'content-type': 'text/plain' } })
        .catch(function () {});
    }
  }
  function slotEvent(el, type) {
    var event = { type: type, eventId: uuidv7(), campaignId: el.getAttribute('data-cp-campaign'), variantId: el.getAttribute('data-cp-variant') };
    var zone = el.getAttribute('data-cp-zone');
    var surface = el.getAttribute('data-cp-surface');
    if (zone) event.zoneId = zone;
    if (surface) event.surfaceId = surface;
    return event;
  }
  function reportImpressions() {
    var slots = document.querySelectorAll('[data-cp-campaign][data-cp-variant]');
    var events = [];
    for (var i = 0; i < slots.length; i++) events.push(slotEvent(slots[i], 'impression'));
    if (events.length) send(events);
  }
  document.addEventListener('click', function (e) {
    var target = e.target && e.target.closest ? e.target.closest('[data-cp-cta]') : null;
    var slot = target && target.closest('[data-cp-campaign][data-cp-variant]');
    if (!slot) return;
    send([slotEvent(slot, 'click')]);
    // Off to the advertiser's site: through the hand-off, which adds the visitor's id for server conversions.
    if (target.href && /^https?:$/.test(target.protocol) && target.origin !== location.origin) {
      target.href = handOff + '?c=' + encodeURIComponent(slot.getAttribute('data-cp-campaign')) +
        '&v=' + encodeURIComponent(slot.getAttribute('data-cp-variant'));
    }
  }, true);
  window.cpConvert = function (goal, value) {
    var event = { type: 'conversion', eventId: uuidv7(), goal: String(goal) };
    if (typeof value === 'number' && isFinite(value)) event.value = value;
    send([event]);
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', reportImpressions);
  else reportImpressions();
})();
`;

export const BEACON_SCRIPT_ETAG = `"${createHash('sha256').update(BEACON_SCRIPT).digest('base64url').slice(0, 27)}"`;
