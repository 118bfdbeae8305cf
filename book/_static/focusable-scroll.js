// A code block or output wider than its column scrolls; pydata-sphinx-theme gives each such block
// tabindex 0, so that a keyboard reader can reach and scroll it, when the page loads, is resized or
// gains content. A block inside a folded solution or dropdown is measured while hidden (not
// scrollable, tabindex -1) and becomes scrollable only when a reader opens it, which the theme does not
// notice. This measures again, with the theme's rule, the blocks of whatever a reader opens: a
// <details> (dropdowns, hidden code) or a sphinx-togglebutton toggle (the exercises' solutions).
(() => {
    // The theme's own list of blocks that may scroll.
    const SCROLLABLE = ['pre', '.nboutput > .output_area', '.cell_output > .output', '.jp-RenderedHTMLCommon',
                        '.pst-scrollable-table-container'].join(', ');
    const measure = root => root.querySelectorAll(SCROLLABLE).forEach(block => {
        block.tabIndex = block.scrollWidth > block.clientWidth || block.scrollHeight > block.clientHeight ? 0 : -1;
    });
    const opened = mutation => mutation.attributeName === 'open'
        || (mutation.target.classList.contains('toggle') && !mutation.target.classList.contains('toggle-hidden'));
    document.addEventListener('DOMContentLoaded', () => {
        const main = document.getElementById('main-content');
        if (!main) return;
        new MutationObserver(mutations => mutations.filter(opened).forEach(mutation => measure(mutation.target)))
            .observe(main, {subtree: true, attributes: true, attributeFilter: ['open', 'class']});
    });
})();
