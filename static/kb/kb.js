// Progressive enhancement only: every page works without this file.
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button) return;
    var code = button.parentElement.querySelector("pre code, pre");
    if (!code || !navigator.clipboard) return;
    navigator.clipboard.writeText(code.textContent).then(function () {
      var label = button.textContent;
      button.textContent = "\u2713";
      setTimeout(function () { button.textContent = label; }, 1200);
    });
  });
  document.addEventListener("change", function (event) {
    if (event.target.matches("select[data-autosubmit]")) event.target.form.submit();
  });
})();
