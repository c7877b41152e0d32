// Talia's admin, loaded at the end of every admin page (templates/admin/base_site.html);
// a file, not an inline script, since the site's Content-Security-Policy runs scripts
// from Talia's origin only. Accessibility repairs of widgets that Django's admin and
// adminsortable2 draw in the browser; each is checked by tests/e2e (axe-core, keyboard). They run after the
// widgets are built (those scripts load in <head> and draw on "load" too).
(function () {
  "use strict";

  // Below 1600 px (a projector, a laptop) the list of models starts folded away and
  // leaves the width to the page; "«" brings it back, and Django remembers that choice.
  // (Runs before Django's deferred nav_sidebar.js reads the setting.)
  try {
    if (window.innerWidth < 1600 && localStorage.getItem("django.admin.navSidebarIsOpen") === null) {
      localStorage.setItem("django.admin.navSidebarIsOpen", "false");
    }
  } catch (error) { /* no storage: Django's default, open */ }

  // A control in a table row (tabular inlines, list_editable) shows its name only in
  // the column's header: give it that name and the row's, e.g. "Points: 2" or
  // "Position: II RP (1918–1939)".
  function labelTableControls(root) {
    root.querySelectorAll("table").forEach(function (table) {
      var head = table.tHead && table.tHead.rows[0];
      if (!head) return;
      table.querySelectorAll("tbody td input:not([type=hidden]), tbody td select, tbody td textarea")
        .forEach(function (control) {
          if ((control.labels && control.labels.length) || control.hasAttribute("aria-label")
              || control.hasAttribute("aria-labelledby")) return;
          var cell = control.closest("td");
          var header = head.cells[cell.cellIndex];
          var column = header ? (header.querySelector(".text") || header).textContent.trim() : "";
          if (!column) return;
          var row = cell.parentElement;
          var named = row.querySelector("th, td.original p");
          var rowName = named ? named.textContent.trim() : "";
          if (!rowName) rowName = String(row.sectionRowIndex + 1);
          control.setAttribute("aria-label", column + ": " + rowName);
        });
    });
  }

  // SelectFilter2's magnifier icons carry the filter box's name as aria-label on a bare
  // <span>, which ARIA ignores; as images they name the box.
  function nameFilterIcons(root) {
    root.querySelectorAll("span.search-label-icon[aria-label]:not([role])").forEach(function (icon) {
      icon.setAttribute("role", "img");
    });
  }

  // adminsortable2's "move to first/last position" are <i role="button"> a mouse can
  // click but the keyboard never reaches: make them Tab stops that Enter and Space press.
  function keyboardSortButtons(root) {
    root.querySelectorAll("fieldset.sortable .sort i[role=button]:not([tabindex])").forEach(function (button) {
      button.tabIndex = 0;
      button.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          button.click();
        }
      });
    });
  }

  // Django's split date-and-time widget (admin/widgets/split_datetime.html) names its two
  // boxes only by the words beside them ("Date:", "Time:"), and its field's label points at
  // neither: give each box the field's name and its word, e.g. "Deadline: Date".
  function labelSplitDateTime(root) {
    root.querySelectorAll("p.datetime input:not([type=hidden])").forEach(function (input) {
      if ((input.labels && input.labels.length) || input.hasAttribute("aria-label")) return;
      var word = input.previousSibling;
      while (word && word.nodeType !== Node.TEXT_NODE) word = word.previousSibling;
      var row = input.closest(".form-row, .fieldBox, .form-multiline");
      var field = row && row.querySelector("label");
      var parts = [field ? field.textContent.trim().replace(/:$/, "") : "",
        word ? word.textContent.trim().replace(/:$/, "") : ""].filter(Boolean);
      if (parts.length) input.setAttribute("aria-label", parts.join(": "));
    });
  }

  function repair(root) {
    labelTableControls(root);
    labelSplitDateTime(root);
    nameFilterIcons(root);
    keyboardSortButtons(root);
  }
  window.addEventListener("load", function () { repair(document); });
  // Rows added with "Add another …" get the same repairs.
  document.addEventListener("formset:added", function () { repair(document); });
})();
