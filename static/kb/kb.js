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

// Analysis report: poll the API and reload once the work is finished.
(function () {
  "use strict";
  var box = document.getElementById("analysis-status");
  if (!box) return;
  var bar = box.querySelector("progress");
  var status = box.getAttribute("data-status");
  if (status === "done" || status === "failed") return;
  var refresh = document.querySelector('meta[http-equiv="refresh"]');
  if (refresh) refresh.parentNode.removeChild(refresh);
  function poll() {
    fetch(box.getAttribute("data-poll"), { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.json(); })
      .then(function (data) {
        if (data.status === "done" || data.status === "failed") { window.location.reload(); return; }
        if (bar) bar.value = Math.round((data.progress || 0) * 100);
        box.querySelector(".status").textContent = data.status;
        var msg = box.querySelector(".message");
        if (msg) msg.textContent = data.progress_message || "";
        setTimeout(poll, 1000);
      })
      .catch(function () { setTimeout(poll, 3000); });
  }
  setTimeout(poll, 500);
})();
