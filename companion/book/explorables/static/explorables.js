/* Explorable figures (companion.book.explorables): draw each figure of the page in place of its stand-in.
   Each figure is a <div class="pe-explorable"> holding its still image (the stand-in) and its Vega-Lite
   specification (<script type="application/json" class="pe-explorable-spec">). Once vega-embed has drawn
   the chart beside the stand-in, the class pe-explorable-is-live hides the stand-in on screen (print
   shows it instead: book/_static/explorables.css). Without JavaScript, or if drawing fails, the stand-in
   stays. The book serves this file and Vega from _static; Colab's output inlines it after loading Vega. */
(function () {
  "use strict";

  function embed(container) {
    if (container.peExplorable) return container.peExplorable;
    const spec = JSON.parse(container.querySelector("script.pe-explorable-spec").textContent);
    container.dataset.explorable = (spec.usermeta && spec.usermeta.explorable) || "";
    const live = document.createElement("div");
    live.className = "pe-explorable-live";
    container.appendChild(live);
    container.peExplorable = vegaEmbed(live, spec, { actions: false, renderer: "svg" }).then(
      (result) => {
        container.peView = result.view; // what the browser tests read the drawn marks from
        container.classList.add("pe-explorable-is-live");
        return result.view;
      },
      (error) => {
        live.remove();
        console.error(`explorable figure ${container.dataset.explorable}: ${error}`);
        throw error;
      },
    );
    return container.peExplorable;
  }

  function embedAll() {
    return Promise.all(Array.from(document.querySelectorAll(".pe-explorable"), embed));
  }

  window.peExplorables = { embed, embedAll };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", embedAll);
  else embedAll();
})();
