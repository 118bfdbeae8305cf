/* Explorable figures (companion.book.explorables): draw each figure of the page in place of its stand-in.
   Each figure is a <div class="pe-explorable"> holding its still image (the stand-in) and its Vega-Lite
   specification (<script type="application/json" class="pe-explorable-spec">). Once vega-embed has drawn
   the chart beside the stand-in, the class pe-explorable-is-live hides the stand-in on screen (print
   shows it instead: book/_static/explorables.css). Without JavaScript, or if drawing fails, the stand-in
   stays. The book serves this file and Vega from _static; Colab's output inlines it after loading Vega.

   A figure drawn wider than its column (a phone) is drawn again narrower: side-by-side panels wrap
   into as many columns as fit (one, stacked, if need be), a panel wider than the column is made
   narrower, legends move below their view and titles wrap onto lines that fit. The marks, their names
   and the controls stay the same, so the figure is operated and checked as on a wide screen. */
(function () {
  "use strict";

  // A view's room for its axes, their titles and the padding around it, in CSS pixels; a panel among
  // several shares its neighbours' axes and needs less.
  const AXES = 64;
  const PANEL = 24;
  const TRIES = 4;

  let measuring = null;
  function textWidth(text, size, font) {
    measuring = measuring || document.createElement("canvas").getContext("2d");
    measuring.font = `${size}px ${font || "sans-serif"}`;
    return measuring.measureText(text).width;
  }

  // Vega expression function peWrap(text, width, size): `text` broken at spaces into lines no wider than
  // `width` pixels at font size `size` (an array of lines, which Vega draws one under another).
  function wrap(text, width, size) {
    const lines = [];
    for (const paragraph of [].concat(text)) {
      let line = "";
      for (const word of String(paragraph).split(" ")) {
        const longer = line ? `${line} ${word}` : word;
        if (line && textWidth(longer, size) > width) {
          lines.push(line);
          line = word;
        } else {
          line = longer;
        }
      }
      lines.push(line);
    }
    return lines.length === 1 ? lines[0] : lines;
  }

  function registerWrap() {
    if (typeof vega !== "undefined" && vega.expressionFunction && !registerWrap.done) {
      vega.expressionFunction("peWrap", wrap);
      registerWrap.done = true;
    }
  }

  const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

  // A title (or subtitle) that wraps at `width` pixels, whether it is text or an expression.
  function wrappedTitle(title, width, config) {
    const spec = isObject(title) && !("expr" in title) ? { ...title } : { text: title };
    const size = spec.fontSize || (config.title && config.title.fontSize) || 13;
    const subtitleSize = spec.subtitleFontSize || (config.title && config.title.subtitleFontSize) || 10;
    const wrapped = (text, fontSize) => {
      if (isObject(text) && "expr" in text) return { expr: `peWrap(${text.expr}, ${width}, ${fontSize})` };
      return wrap(text, width, fontSize);
    };
    spec.text = wrapped(spec.text, size);
    if (spec.subtitle !== undefined) spec.subtitle = wrapped(spec.subtitle, subtitleSize);
    return spec;
  }

  // The widest a view can be drawn, panels side by side as specified (an estimate, used to choose a layout).
  function naturalWidth(view) {
    if (view.hconcat) {
      return view.hconcat.reduce((sum, panel) => sum + naturalWidth(panel) + (view.spacing ?? 20), 0);
    }
    if (view.vconcat) return Math.max(...view.vconcat.map(naturalWidth));
    return (typeof view.width === "number" ? view.width : 200) + AXES;
  }

  // `view` (part of a copy of the specification) rearranged to fit `room` pixels.
  function fit(view, room, config) {
    if (view.hconcat) {
      const panels = view.hconcat;
      const spacing = view.spacing ?? 20;
      const widest = Math.max(...panels.map(naturalWidth)) - AXES + PANEL;
      const columns = Math.max(1, Math.min(panels.length, Math.floor((room + spacing) / (widest + spacing))));
      delete view.hconcat;
      view.concat = panels;
      view.columns = columns;
      for (const panel of panels) fit(panel, Math.floor((room + spacing) / columns) - spacing, config);
    } else if (view.vconcat) {
      for (const panel of view.vconcat) fit(panel, room, config);
    } else if (view.layer && typeof view.width !== "number") {
      for (const layer of view.layer) fit(layer, room, config);
    } else if (typeof view.width === "number" && view.width + AXES > room) {
      const width = Math.max(80, room - AXES);
      if (view.height === view.width) view.height = width; // a square stays square
      view.width = width;
    }
    if (view.title !== undefined) {
      const width = typeof view.width === "number" ? Math.max(view.width + AXES / 2, 120) : room;
      view.title = wrappedTitle(view.title, Math.min(width, room), config);
    }
  }

  // A copy of `spec` drawn within `room` pixels: panels wrapped, legends below, titles wrapped.
  function narrowed(spec, room) {
    const copy = JSON.parse(JSON.stringify(spec));
    const config = copy.config || (copy.config = {});
    config.legend = { ...(config.legend || {}), orient: "bottom", direction: "horizontal" };
    // Labels that no longer fit side by side (24 key positions under a narrower map) are thinned out.
    config.axis = { ...(config.axis || {}), labelOverlap: "parity" };
    fit(copy, room, config);
    return copy;
  }

  function drawnWidth(live) {
    const svg = live.querySelector("svg");
    return svg ? svg.getBoundingClientRect().width : 0;
  }

  function draw(live, spec) {
    return vegaEmbed(live, spec, { actions: false, renderer: "svg" });
  }

  async function embedFitting(container, live, spec) {
    registerWrap();
    const available = live.clientWidth;
    let room = available;
    let result = naturalWidth(spec) > available ? await draw(live, narrowed(spec, room)) : await draw(live, spec);
    for (let attempt = 0; attempt < TRIES && drawnWidth(live) > available + 1; attempt++) {
      room -= Math.ceil(drawnWidth(live) - available) + 4;
      result.finalize();
      live.replaceChildren();
      result = await draw(live, narrowed(spec, room));
    }
    container.dataset.narrowed = String(room < available || naturalWidth(spec) > available);
    return result;
  }

  function embed(container) {
    if (container.peExplorable) return container.peExplorable;
    const spec = JSON.parse(container.querySelector("script.pe-explorable-spec").textContent);
    container.dataset.explorable = (spec.usermeta && spec.usermeta.explorable) || "";
    const live = document.createElement("div");
    live.className = "pe-explorable-live";
    container.appendChild(live);
    container.peExplorable = embedFitting(container, live, spec).then(
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

  // Paper shows each figure's stand-in, which nothing moves: its caption says what the still picture shows
  // (the stand-in's printed caption, written by the book beside the specification) until printing ends.
  function captionsFor(printing) {
    for (const container of document.querySelectorAll(".pe-explorable")) {
      const printed = container.querySelector(".pe-explorable-print-caption");
      const figure = container.closest("figure");
      const text = figure && figure.querySelector("figcaption .caption-text");
      if (!printed || !text) continue;
      if (printing && text.peScreenCaption === undefined) {
        text.peScreenCaption = text.innerHTML;
        text.textContent = printed.textContent;
      } else if (!printing && text.peScreenCaption !== undefined) {
        text.innerHTML = text.peScreenCaption;
        delete text.peScreenCaption;
      }
    }
  }
  window.addEventListener("beforeprint", () => captionsFor(true));
  window.addEventListener("afterprint", () => captionsFor(false));

  window.peExplorables = { embed, embedAll, narrowed, captionsFor };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", embedAll);
  else embedAll();
})();
