// Floor lobby: instants in the viewer's time zone, countdowns, and the live feed of a
// tournament page. No library, no build step.
"use strict";
(function () {
  function localize(root) {
    root.querySelectorAll("time[data-local]").forEach(function (el) {
      var at = new Date(el.getAttribute("datetime"));
      if (!isNaN(at)) {
        el.textContent = at.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
        el.title = el.getAttribute("datetime");
      }
    });
  }
  function clock(ms) {
    var s = Math.max(0, Math.floor(ms / 1000));
    var h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
    var two = function (n) { return (n < 10 ? "0" : "") + n; };
    return h > 0 ? h + ":" + two(m) + ":" + two(r) : m + ":" + two(r);
  }
  function tick() {
    var now = Date.now();
    document.querySelectorAll("[data-ends-at]").forEach(function (el) {
      el.textContent = clock(new Date(el.getAttribute("data-ends-at")).getTime() - now);
    });
  }
  // The structure is not part of the live part: mark the step the clock says is in play.
  function markStep() {
    var clockSection = document.getElementById("clock");
    var step = clockSection && clockSection.getAttribute("data-step");
    if (step === null || step === undefined) { return; }
    document.querySelectorAll("#structure tr[data-step]").forEach(function (row) {
      var mark = row.querySelector("td span");
      if (mark) { mark.classList.toggle("badge", row.getAttribute("data-step") === step); }
    });
  }
  localize(document);
  tick();
  setInterval(tick, 1000);
  // A tournament page: every new revision of the document arrives rendered, and replaces
  // the live part. EventSource reconnects by itself after a network error.
  var live = document.getElementById("live");
  var status = document.getElementById("live-status");
  if (live && live.dataset.events && window.EventSource) {
    var source = new EventSource(live.dataset.events);
    source.addEventListener("document", function (e) {
      live.innerHTML = e.data;
      localize(live);
      tick();
      markStep();
      if (status) { status.textContent = "live"; }
    });
    source.onerror = function () { if (status) { status.textContent = "reconnecting…"; } };
  }
})();
