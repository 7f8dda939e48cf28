/* Table screens: show only the chosen game's board and rule settings; refresh the camera view. */
(function () {
  "use strict";
  var form = document.getElementById("new-game");
  if (form) {
    var update = function () {
      var chosen = form.querySelector("input[name=game]:checked");
      var game = chosen ? chosen.value : "keltis";
      form.querySelectorAll("fieldset[data-game]").forEach(function (fs) {
        var on = fs.getAttribute("data-game") === game;
        fs.hidden = !on;
        fs.disabled = !on;  // disabled fields are not sent
      });
    };
    form.addEventListener("change", update);
    update();
  }
  var cam = document.getElementById("camera");
  if (cam) {
    var base = cam.getAttribute("data-src");
    var note = document.getElementById("camera-note");
    var busy = false;
    cam.addEventListener("load", function () { busy = false; cam.hidden = false; });
    cam.addEventListener("error", function () { busy = false; cam.hidden = true; });
    setInterval(function () {
      if (busy || document.hidden) return;
      busy = true;
      cam.src = base + "?t=" + Date.now();
    }, 1000);
    if (note) note.setAttribute("aria-live", "polite");
  }
  /* the camera check's checklist follows the live picture */
  var list = document.getElementById("checklist");
  if (list) {
    var mk = function (tag, cls, text) { var el = document.createElement(tag); if (cls) el.className = cls; el.textContent = text; return el; };
    setInterval(function () {
      if (document.hidden) return;
      fetch(list.getAttribute("data-src"), {cache: "no-store"}).then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) {
          if (!data) return;
          while (list.firstChild) list.removeChild(list.firstChild);
          data.lines.forEach(function (line) {
            var li = mk("li", "check " + (line.ok ? "ok" : "fail"), "");
            li.dataset.key = line.key; li.dataset.state = line.state;
            var mark = mk("span", "mark", line.ok ? "✓" : "✗"); mark.setAttribute("aria-hidden", "true");
            li.appendChild(mark); li.appendChild(mk("strong", "title", line.title));
            li.appendChild(document.createTextNode(" ")); li.appendChild(mk("span", "text", line.text));
            if (line.todo) li.appendChild(mk("span", "todo", line.todo));
            list.appendChild(li);
          });
        }).catch(function () {});
    }, 2000);
  }
})();
