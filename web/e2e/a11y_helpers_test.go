//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// allowDownloads makes Chromium save downloads into a fresh directory
// (under their suggested names) and returns it.
func (e *env) allowDownloads() string {
	e.t.Helper()
	dir := e.t.(interface{ TempDir() string }).TempDir()
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	if _, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir,
	}); err != nil {
		e.t.Fatalf("allow downloads: %v", err)
	}
	return dir
}

// waitDownload waits for a finished file in dir whose name has the given
// suffix and returns its path.
func (e *env) waitDownload(dir, suffix string, timeout time.Duration) string {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		entries, _ := os.ReadDir(dir)
		for _, x := range entries {
			if strings.HasSuffix(x.Name(), suffix) && !strings.HasSuffix(x.Name(), ".crdownload") {
				p := filepath.Join(dir, x.Name())
				if fi, err := os.Stat(p); err == nil && fi.Size() > 0 {
					return p
				}
			}
		}
		if time.Now().After(deadline) {
			var names []string
			for _, x := range entries {
				names = append(names, x.Name())
			}
			e.shot("timeout-download" + suffix)
			e.t.Fatalf("no *%s downloaded into %s after %v (found %v; page %s)", suffix, dir, timeout, names,
				eval[string](e, `location.pathname`))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// a11yJS audits the page: every visible text against its effective
// background (WCAG 2 contrast: 4.5:1, 3:1 for large text), and every
// visible input, select, textarea and button for an accessible name. It
// returns one line per problem.
const a11yJS = `(() => {
  const parse = (c) => {
    const m = /rgba?\(([^)]+)\)/.exec(c || "");
    if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
  };
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const over = (top, bottom) => ({r: top.r * top.a + bottom.r * (1 - top.a), g: top.g * top.a + bottom.g * (1 - top.a),
    b: top.b * top.a + bottom.b * (1 - top.a), a: 1});
  const ratio = (x, y) => { const a = lum(x), b = lum(y); return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); };
  // The effective background: the element's and its ancestors' colours,
  // composed from the first opaque one up.
  const background = (el) => {
    const layers = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      const c = parse(getComputedStyle(n).backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    let bg = {r: 255, g: 255, b: 255, a: 1};
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
    return bg;
  };
  // SVG text sits on the shape under it, not on its ancestors.
  const svgBackground = (el) => {
    let r = el.getBoundingClientRect();
    if (r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth) {
      el.scrollIntoView({block: "center", inline: "center"}); // elementsFromPoint sees the viewport only
      r = el.getBoundingClientRect();
    }
    const under = document.elementsFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    for (const n of under) {
      if (n === el || n.tagName === "text") continue;
      if (n instanceof SVGGeometryElement) {
        const c = parse(getComputedStyle(n).fill);
        if (c && c.a > 0) return over(c, background(n.ownerSVGElement || n));
      }
      if (!(n instanceof SVGElement)) break;
    }
    return background(el.ownerSVGElement || el);
  };
  const visible = (el) => {
    const s = getComputedStyle(el);
    if (s.visibility === "hidden" || s.display === "none" || Number(s.opacity) === 0) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && !el.closest("[hidden], [aria-hidden=true], title, #app-wasm-loader");
  };
  const where = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.id) s += "#" + el.id;
    else if (el.className && typeof el.className === "string") s += "." + el.className.trim().split(/\s+/).join(".");
    const p = el.closest("[id]");
    if (p && p !== el) s = "#" + p.id + " " + s;
    return s;
  };
  const out = [];
  for (const el of document.body.querySelectorAll("*")) {
    if (["SCRIPT", "STYLE", "NOSCRIPT", "TITLE"].includes(el.tagName)) continue;
    const own = [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim()).map((n) => n.textContent.trim()).join(" ");
    if (!own || !visible(el)) continue;
    if (el.closest(":disabled")) continue; // WCAG exempts inactive controls
    const s = getComputedStyle(el);
    const isSVG = el instanceof SVGElement;
    let fg = parse(isSVG ? s.fill : s.color);
    if (!fg) continue;
    const bg = isSVG ? svgBackground(el) : background(el);
    fg = over(fg, bg);
    const size = parseFloat(s.fontSize), bold = Number(s.fontWeight) >= 700;
    const large = size >= 24 || (bold && size >= 18.66);
    const need = large ? 3 : 4.5;
    const got = ratio(fg, bg);
    if (got < need) {
      out.push("contrast " + got.toFixed(2) + " < " + need + ": " + where(el) + " " + JSON.stringify(own.slice(0, 40)) +
        " rgb(" + [fg.r, fg.g, fg.b].map(Math.round) + ") on rgb(" + [bg.r, bg.g, bg.b].map(Math.round) + ")");
    }
  }
  const nameOf = (el) => {
    const t = (x) => (x || "").replace(/\s+/g, " ").trim();
    if (t(el.getAttribute("aria-label"))) return t(el.getAttribute("aria-label"));
    const by = el.getAttribute("aria-labelledby");
    if (by) { const n = by.split(/\s+/).map((id) => t((document.getElementById(id) || {}).textContent)).join(" ").trim(); if (n) return n; }
    if (el.labels && el.labels.length) { const n = [...el.labels].map((l) => t(l.textContent)).join(" ").trim(); if (n) return n; }
    if (el.tagName === "BUTTON") { const n = t(el.textContent); if (n) return n; }
    if (el.tagName === "INPUT" && ["submit", "button", "reset"].includes(el.type) && t(el.value)) return t(el.value);
    return t(el.getAttribute("title"));
  };
  for (const el of document.body.querySelectorAll("input, select, textarea, button")) {
    if (el.type === "hidden" || !visible(el)) continue;
    if (!nameOf(el)) out.push("no accessible name: " + where(el));
  }
  return out;
})()`

// checkA11y fails the test for every contrast or naming problem on the
// current page, after a screenshot named shot.
func (e *env) checkA11y(t *testing.T, page, shot string) {
	t.Helper()
	fullShot(e, shot)
	for _, p := range eval[[]string](e, a11yJS) {
		t.Errorf("%s: %s", page, p)
	}
}

// checkKeyboardFocus tabs through the page (up to n stops) and fails for a
// focused control without a visible focus indicator (outline or shadow),
// and if tabbing reaches none of the wanted selectors.
func (e *env) checkKeyboardFocus(t *testing.T, page string, n int, wanted ...string) {
	t.Helper()
	if wanted == nil {
		wanted = []string{}
	}
	eval[bool](e, `(document.activeElement && document.activeElement.blur(), window.__reached = {}, true)`)
	for i := 0; i < n; i++ {
		e.key("\t")
		bad := eval[string](e, `(() => {
			const el = document.activeElement;
			if (!el || el === document.body) return "";
			for (const sel of `+jsonString(wanted)+`) if (el.matches(sel)) window.__reached[sel] = true;
			const s = getComputedStyle(el);
			const ring = (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== "none";
			return ring ? "" : el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + " " + (el.textContent || "").trim().slice(0, 30);
		})()`)
		if bad != "" {
			t.Errorf("%s: focus not visible on %s", page, bad)
		}
	}
	for _, sel := range wanted {
		if !eval[bool](e, `!!window.__reached[`+jsonString(sel)+`]`) {
			t.Errorf("%s: %s not reached by Tab in %d stops", page, sel, n)
		}
	}
}

// jsonString quotes v for JavaScript.
func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
