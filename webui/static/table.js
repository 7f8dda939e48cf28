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
})();
