/* Progress of long work (an import, a deck build, a print): polls the job's status JSON
   ({state_label, progress, working}) once a second, moves the bar, and reloads the page
   when the work is done (or failed). Without JavaScript the page refreshes itself
   (<noscript>). Markup: <progress id="job-progress" data-status-url="…">, optional
   #job-progress-text (role=status) and #job-state. */
(function () {
  "use strict";
  var bar = document.getElementById("job-progress");
  if (!bar || !window.fetch) {
    return;
  }
  var url = bar.getAttribute("data-status-url");
  var text = document.getElementById("job-progress-text");
  var state = document.getElementById("job-state");
  var announced = -1;
  // The visible text follows the bar at every update; screen readers hear every quarter,
  // not every second, through a hidden live region of their own. (Without JavaScript the
  // page refreshes and the text itself is the status.)
  var announcer = null;
  if (text) {
    text.removeAttribute("role");
    announcer = document.createElement("p");
    announcer.id = "job-progress-announce";
    announcer.setAttribute("role", "status");
    announcer.style.cssText =
      "position:absolute;width:1px;height:1px;margin:-1px;padding:0;border:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap";
    text.parentNode.insertBefore(announcer, text.nextSibling);
  }

  function show(data) {
    var label = data.state_label + ": " + data.progress + "%";
    bar.value = data.progress;
    bar.textContent = data.progress + "%";
    bar.setAttribute("aria-valuetext", label);
    if (state) {
      state.textContent = data.state_label;
    }
    if (text) {
      text.textContent = label;
    }
    var quarter = Math.floor(data.progress / 25);
    if (announcer && quarter !== announced) {
      announced = quarter;
      announcer.textContent = label;
    }
  }

  function poll() {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (!response.ok) {
          throw new Error("HTTP " + response.status);
        }
        return response.json();
      })
      .then(function (data) {
        show(data);
        if (data.working) {
          window.setTimeout(poll, 1000);
        } else {
          window.location.reload();
        }
      })
      .catch(function () {
        window.setTimeout(poll, 5000);
      });
  }

  window.setTimeout(poll, 1000);
})();
