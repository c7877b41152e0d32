/* Taking a quiz: autosave every answer as it changes, keep unsent answers in this browser
   until the server has them (a dropped connection or a closed tab loses nothing), one
   item at a time or all on one page, and the countdown of a timed attempt.

   The page works without this script: the "Hand in" button sends every answer with the
   form. Here each change is POSTed as {"item": id, "answer": {...}} to data-answer-url;
   until the server says "saved" the answer waits in localStorage (key talia-quiz-<attempt>)
   and is sent again on the next change, every few seconds, when the connection comes back
   and when the page is opened again. The server's deadline is the only one that counts:
   the countdown just shows it and hands the quiz in when it reaches zero. */
(function () {
  "use strict";
  var form = document.getElementById("quiz");
  if (!form || !window.fetch) {
    return;
  }
  var gettext = window.gettext || function (text) { return text; };
  var attempt = form.getAttribute("data-attempt");
  var answerUrl = form.getAttribute("data-answer-url");
  var storeKey = "talia-quiz-" + attempt;
  var modeKey = "talia-quiz-mode";
  var csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;
  var savedNote = document.getElementById("quiz-saved");
  var items = Array.prototype.slice.call(form.querySelectorAll(".quiz-item"));
  var timers = {};
  var retry = null;
  var closed = false;

  function store() {
    try {
      return JSON.parse(window.localStorage.getItem(storeKey) || "{}");
    } catch (error) {
      return {};
    }
  }

  function storeWrite(data) {
    try {
      if (Object.keys(data).length) {
        window.localStorage.setItem(storeKey, JSON.stringify(data));
      } else {
        window.localStorage.removeItem(storeKey);
      }
    } catch (error) {
      /* Private browsing: autosave still works while the page is open. */
    }
  }

  function note(text, problem) {
    savedNote.textContent = text;
    savedNote.classList.toggle("problem", !!problem);
  }

  function answerOf(item) {
    var kind = item.getAttribute("data-kind");
    var name = "item-" + item.getAttribute("data-item");
    if (kind === "picture_name_typed" || kind === "know") {
      return { text: item.querySelector("[name='" + name + "']").value };
    }
    if (kind === "periods") {
      var ticked = [];
      item.querySelectorAll("input[type=checkbox]:checked").forEach(function (box) { ticked.push(box.value); });
      return { choices: ticked };
    }
    if (kind === "connect") {
      var groups = {};
      item.querySelectorAll("select[data-symbol]").forEach(function (select) {
        if (select.value) {
          groups[select.getAttribute("data-symbol")] = select.value;
        }
      });
      return { groups: groups };
    }
    if (kind === "matching") {
      var pairs = {};
      item.querySelectorAll("select[data-left]").forEach(function (select) {
        if (select.value) {
          pairs[select.getAttribute("data-left")] = select.value;
        }
      });
      return { pairs: pairs };
    }
    if (kind === "chronology") {
      var order = item.querySelector("input[data-order]").value;
      return { order: order ? order.split(",") : [] };
    }
    var checked = item.querySelector("input[type=radio]:checked");
    return { choice: checked ? checked.value : null };
  }

  function fill(item, answer) {
    var kind = item.getAttribute("data-kind");
    var name = "item-" + item.getAttribute("data-item");
    if (kind === "picture_name_typed" || kind === "know") {
      item.querySelector("[name='" + name + "']").value = answer.text || "";
    } else if (kind === "periods") {
      item.querySelectorAll("input[type=checkbox]").forEach(function (box) {
        box.checked = (answer.choices || []).indexOf(box.value) !== -1;
      });
    } else if (kind === "connect") {
      item.querySelectorAll("select[data-symbol]").forEach(function (select) {
        select.value = (answer.groups || {})[select.getAttribute("data-symbol")] || "";
      });
    } else if (kind === "matching") {
      item.querySelectorAll("select[data-left]").forEach(function (select) {
        select.value = (answer.pairs || {})[select.getAttribute("data-left")] || "";
      });
    } else if (kind === "chronology") {
      orderShow(item, answer.order || []);
    } else {
      item.querySelectorAll("input[type=radio]").forEach(function (radio) {
        radio.checked = radio.value === answer.choice;
      });
    }
  }

  function send(itemId, answer, keepalive) {
    return fetch(answerUrl, {
      method: "POST",
      credentials: "same-origin",
      keepalive: !!keepalive,
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf, Accept: "application/json" },
      body: JSON.stringify({ item: Number(itemId), answer: answer })
    }).then(function (response) {
      return response.json().then(function (data) { return { status: response.status, data: data }; });
    });
  }

  /* One request at a time, in order: a later answer to an item is never overtaken by an
     earlier one still on its way. */
  var inFlight = false;

  function flush(keepalive) {
    var pending = store();
    var ids = Object.keys(pending);
    if (!ids.length || closed) {
      return;
    }
    if (keepalive && navigator.onLine === false) {
      /* The page is going away with no connection: nothing could reach the server. The
         answers stay in this browser and are sent when the attempt is opened again. */
      return;
    }
    if (inFlight) {
      if (keepalive) {
        /* The page is going away: send what is left now, the server keeps the last. */
        ids.forEach(function (itemId) { send(itemId, pending[itemId], true).catch(function () {}); });
      }
      return;
    }
    inFlight = true;
    note(gettext("Saving…"));
    var itemId = ids[0];
    var sent = JSON.stringify(pending[itemId]);
    send(itemId, pending[itemId], keepalive).then(function (result) {
      inFlight = false;
      var now = store();
      if (result.status === 200) {
        if (JSON.stringify(now[itemId]) === sent) {
          delete now[itemId];
          storeWrite(now);
        }
        if (Object.keys(store()).length) {
          flush(false);
        } else {
          note(gettext("All answers saved."));
        }
      } else if (result.status === 409) {
        /* Handed in or out of time: the server has graded; show the result. */
        closed = true;
        storeWrite({});
        window.location.reload();
      } else {
        /* Refused (not a network problem): drop it so it is not sent for ever. */
        delete now[itemId];
        storeWrite(now);
        note(result.data.error || gettext("This answer was not accepted."), true);
        flush(false);
      }
    }).catch(function () {
      inFlight = false;
      note(gettext("Not saved yet: no connection. Your answers are kept here and sent when it is back."), true);
      scheduleRetry();
    });
  }

  function scheduleRetry() {
    if (retry === null) {
      retry = window.setTimeout(function () { retry = null; flush(false); }, 5000);
    }
  }

  function changed(item) {
    var itemId = item.getAttribute("data-item");
    var pending = store();
    pending[itemId] = answerOf(item);
    storeWrite(pending);
    window.clearTimeout(timers[itemId]);
    var typed = item.getAttribute("data-kind") === "picture_name_typed" || item.getAttribute("data-kind") === "know";
    timers[itemId] = window.setTimeout(function () { flush(false); }, typed ? 600 : 50);
  }

  items.forEach(function (item) {
    item.addEventListener("change", function () { changed(item); });
    item.addEventListener("input", function () { changed(item); });
  });

  /* Chronology: the events are put in order with "Move up" and "Move down" buttons (no
     dragging: a phone's thumb, a keyboard and a screen reader all work the same). The order
     shown becomes the answer at the first move, or with "This order is my answer". */
  function events(item) {
    return Array.prototype.slice.call(item.querySelectorAll(".quiz-event"));
  }

  function orderButtons(item) {
    var list = events(item);
    list.forEach(function (event, index) {
      event.querySelector("[data-move=up]").disabled = index === 0;
      event.querySelector("[data-move=down]").disabled = index === list.length - 1;
    });
  }

  function orderShow(item, order) {
    var list = item.querySelector(".quiz-order");
    order.forEach(function (id) {
      var event = list.querySelector(".quiz-event[data-event='" + id + "']");
      if (event) {
        list.appendChild(event);
      }
    });
    item.querySelector("input[data-order]").value = order.join(",");
    orderButtons(item);
  }

  function orderTake(item) {
    item.querySelector("input[data-order]").value = events(item).map(function (event) {
      return event.getAttribute("data-event");
    }).join(",");
    changed(item);
  }

  items.filter(function (item) { return item.getAttribute("data-kind") === "chronology"; }).forEach(function (item) {
    var status = item.querySelector("[data-order-status]");
    orderButtons(item);
    item.querySelector(".quiz-order").addEventListener("click", function (click) {
      var button = click.target.closest("button[data-move]");
      if (!button || button.disabled) {
        return;
      }
      var event = button.closest(".quiz-event");
      var up = button.getAttribute("data-move") === "up";
      var neighbour = up ? event.previousElementSibling : event.nextElementSibling;
      if (!neighbour) {
        return;
      }
      event.parentNode.insertBefore(event, up ? neighbour : neighbour.nextElementSibling);
      orderButtons(item);
      var list = events(item);
      status.textContent = interpolate(gettext("%s is now number %s of %s."), [
        event.querySelector(".quiz-event-text").textContent, list.indexOf(event) + 1, list.length
      ]);
      /* The focus stays on the event that moved, on a button that still works. */
      var same = event.querySelector("[data-move=" + (up ? "up" : "down") + "]");
      (same.disabled ? event.querySelector("[data-move=" + (up ? "down" : "up") + "]") : same).focus();
      orderTake(item);
    });
    item.querySelector("[data-keep-order]").addEventListener("click", function () {
      orderTake(item);
      status.textContent = gettext("This order is saved as your answer.");
    });
  });

  /* Answers this browser had not sent yet (a closed tab, a lost connection) come back. */
  var unsent = store();
  items.forEach(function (item) {
    var answer = unsent[item.getAttribute("data-item")];
    if (answer) {
      fill(item, answer);
    }
  });
  flush(false);
  window.addEventListener("online", function () { flush(false); });
  window.addEventListener("pagehide", function () { flush(true); });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") {
      flush(true);
    }
  });

  /* One item at a time (the default on a phone) or all on one page. */
  var modeButton = document.getElementById("quiz-mode");
  var nav = form.querySelector(".quiz-nav");
  var prev = document.getElementById("quiz-prev");
  var next = document.getElementById("quiz-next");
  var position = document.getElementById("quiz-position");
  var current = 0;
  var oneAtATime = window.localStorage ? window.localStorage.getItem(modeKey) !== "all" : true;

  function show(index, focus) {
    current = Math.max(0, Math.min(items.length - 1, index));
    items.forEach(function (item, i) { item.setAttribute("data-current", i === current ? "true" : "false"); });
    position.textContent = (current + 1) + " / " + items.length;
    prev.disabled = current === 0;
    next.disabled = current === items.length - 1;
    if (focus) {
      var legend = items[current].querySelector("legend");
      items[current].setAttribute("tabindex", "-1");
      items[current].focus();
      if (legend) {
        legend.scrollIntoView({ block: "nearest" });
      }
    }
  }

  function applyMode() {
    form.classList.toggle("one-at-a-time", oneAtATime);
    nav.hidden = !oneAtATime;
    modeButton.textContent = oneAtATime ? gettext("All items on one page") : gettext("One item at a time");
    if (oneAtATime) {
      show(current, false);
    }
  }

  if (items.length > 1) {
    modeButton.hidden = false;
    modeButton.addEventListener("click", function () {
      oneAtATime = !oneAtATime;
      try {
        window.localStorage.setItem(modeKey, oneAtATime ? "one" : "all");
      } catch (error) { /* ignore */ }
      applyMode();
    });
    prev.addEventListener("click", function () { show(current - 1, true); });
    next.addEventListener("click", function () { show(current + 1, true); });
    /* The first item not answered yet is where a resumed attempt carries on. */
    for (var i = 0; i < items.length; i += 1) {
      var answer = answerOf(items[i]);
      var empty = isEmpty(answer);
      if (empty) {
        current = i;
        break;
      }
    }
    applyMode();
  }

  form.addEventListener("submit", function (event) {
    var unanswered = items.filter(function (item) {
      return isEmpty(answerOf(item));
    }).length;
    if (unanswered && !form.hasAttribute("data-time-up") &&
        !window.confirm(interpolate(ngettext("%s item has no answer. Hand in anyway?",
          "%s items have no answer. Hand in anyway?", unanswered), [unanswered]))) {
      event.preventDefault();
      return;
    }
    closed = true;
    storeWrite({});
  });

  function isEmpty(answer) {
    return answer.choice === null || answer.text === "" || (answer.choices && !answer.choices.length) ||
      (answer.groups && !Object.keys(answer.groups).length) || (answer.order && !answer.order.length) ||
      (answer.pairs && !Object.keys(answer.pairs).length);
  }

  function interpolate(text, values) {
    if (window.interpolate) {
      return window.interpolate(text, values);
    }
    var index = 0;
    return text.replace(/%s/g, function () { index += 1; return values[index - 1]; });
  }

  function ngettext(one, many, count) {
    return window.ngettext ? window.ngettext(one, many, count) : (count === 1 ? one : many);
  }

  /* The countdown of a timed attempt. */
  var remaining = form.getAttribute("data-remaining");
  var timer = document.getElementById("quiz-timer");
  if (remaining !== null && timer) {
    var end = Date.now() + Number(remaining) * 1000;
    var timerNote = document.getElementById("quiz-timer-note");
    var warned = {};
    var tick = function () {
      var left = Math.max(0, Math.round((end - Date.now()) / 1000));
      var minutes = Math.floor(left / 60);
      var seconds = left % 60;
      timer.textContent = minutes + ":" + (seconds < 10 ? "0" : "") + seconds;
      timer.parentNode.classList.toggle("low", left <= 60);
      [300, 60].forEach(function (mark) {
        if (left <= mark && left > 0 && !warned[mark] && Number(remaining) > mark) {
          warned[mark] = true;
          timerNote.textContent = interpolate(ngettext("%s minute left.", "%s minutes left.", mark / 60), [mark / 60]);
        }
      });
      if (left === 0) {
        form.setAttribute("data-time-up", "1");
        timerNote.textContent = gettext("Time is up: the quiz is handed in.");
        closed = true;
        storeWrite({});
        form.submit();
        return;
      }
      window.setTimeout(tick, 1000);
    };
    tick();
  }
})();
