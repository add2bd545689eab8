package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/benchtest"
)

// chromium finds the browser, or skips (fails under FORGE_REQUIRE_CHROMIUM=1,
// which CI sets after .ci/install-chromium).
func chromium(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("FORGE_REQUIRE_CHROMIUM") != "" {
			t.Fatalf("FORGE_REQUIRE_CHROMIUM is set but chromium is not on PATH: %v", err)
		}
		t.Skip("chromium is not installed (Debian: apt-get install chromium, or bash .ci/install-chromium); the headless rendering test is skipped")
	}
	return p
}

// headless runs chromium on the page with the flags that keep it off the
// network and out of the user's profile.
func headless(t *testing.T, bin, dir string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	all := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + filepath.Join(dir, "profile"),
	}, args...)
	cmd := exec.CommandContext(ctx, bin, all...)
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_CACHE_HOME="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, tail(stderr.String(), 2000))
	}
	return stdout.Bytes()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// TestChromiumRendersTheCharts: the report of a GPU-like run (dequant,
// matvec and matmul; one noisy benchmark) with a baseline renders in
// headless Chromium, with its SVG charts in the DOM and their colours on
// the screenshot. With FORGE_REPORT_SHOT=PATH the screenshot is also
// copied to PATH for a human.
func TestChromiumRendersTheCharts(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	// The run is the last of a history of four (trendRuns: a gap, a
	// regression, a benchmark of one run), which the page draws too.
	runs := trendRuns(matrixRun)
	trend := trendOf(t, runs...)
	run := runs[3]
	noisy(run, 3, 0.25)
	var html bytes.Buffer
	if err := Write(&html, run, Options{Baseline: benchtest.Baseline(1), History: trend}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, html.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + page

	// The DOM as Chromium built it: every chart is there as SVG, with its
	// bars and points, the banner, and the table with a row per result.
	dom := string(headless(t, bin, dir, "--dump-dom", url))
	for _, id := range []string{"roofline", "throughput-1", "throughput-2", "throughput-3", "throughput-4", "throughput-5",
		"compute-1", "compute-2", "compute-3", "baseline", "dist-1", "dist-51"} {
		if !strings.Contains(dom, `<svg xmlns="http://www.w3.org/2000/svg" id="`+id+`"`) {
			t.Errorf("the DOM has no SVG chart %q", id)
		}
	}
	if n := strings.Count(dom, `class="pt"`); n != 51 {
		t.Errorf("the DOM has %d roofline points, want 51", n)
	}
	// GB/s bars: 43 dequant and copy (one of them only in this run), 4
	// matvec; TFLOPS bars: 8; changes: 42.
	if n := strings.Count(dom, "<rect "); n < 48+8+42 {
		t.Errorf("the DOM has %d rects, want at least one per bar (98)", n)
	}
	_, results, _ := strings.Cut(dom, `<section id="results">`)
	results, _, _ = strings.Cut(results, "</section>")
	if n := strings.Count(results, "<tr>"); n != 1+52 {
		t.Errorf("the DOM's results table has %d rows, want 53", n)
	}
	// The History section: a sparkline point per run that has the
	// benchmark, as many as the trend's points.
	m := &trend.Machines[0]
	if n, want := strings.Count(dom, `class="spark-pt"`), points(m); n != want || want == 0 {
		t.Errorf("the DOM has %d sparkline points, want %d (the trend's points)", n, want)
	}
	if n := strings.Count(dom, `<svg xmlns="http://www.w3.org/2000/svg" id="spark-`); n != len(m.Benchmarks) {
		t.Errorf("the DOM has %d sparklines, want %d", n, len(m.Benchmarks))
	}
	if !strings.Contains(dom, `id="noisy"`) || strings.Count(dom, `class="num time noisy"`) != 1 {
		t.Error("the noisy benchmark is not flagged in the DOM")
	}

	shot := filepath.Join(dir, "shot.png")
	const w, h = 1400, 4000
	headless(t, bin, dir, "--screenshot="+shot, fmt.Sprintf("--window-size=%d,%d", w, h), "--hide-scrollbars", url)
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	if len(data) < 50_000 {
		t.Errorf("screenshot is only %d bytes", len(data))
	}
	if p := os.Getenv("FORGE_REPORT_SHOT"); p != "" {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Error(err)
		}
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("screenshot is %v, want %d×%d", b.Size(), w, h)
	}
	// Groups are coloured in order of appearance: dequant_f32, dequant_f16,
	// copy, matvec_f32, matvec_x8, matmul_f32.
	distinct, found := colours(img, map[string]string{
		"dequant_f32 bars":        kernelColours[0],
		"dequant_f16 bars":        kernelColours[1],
		"matvec_f32 bars, points": kernelColours[3],
		"matmul_f32 bars, points": kernelColours[5],
		"regression bars":         colRegression,
		"improvement bars":        colImprovement,
		"memory ceiling (line)":   colRoof,
		"compute ceilings (line)": colPeak,
	})
	if distinct < 50 {
		t.Errorf("screenshot has %d distinct colours: blank or unstyled", distinct)
	}
	for what, n := range found {
		// A bar of the smallest kind (a 30% bar 11 px high) covers hundreds
		// of pixels; the lines fewer.
		min := 300
		if strings.HasSuffix(what, "(line)") {
			min = 100
		}
		if n < min {
			t.Errorf("%s: %d pixels of their colour on the screenshot, want ≥ %d", what, n, min)
		}
	}
	t.Logf("screenshot: %d bytes, %d distinct colours, palette pixels %v", len(data), distinct, found)
}

// colours counts the distinct colours of img and the pixels within a small
// distance of each named colour (#rrggbb).
func colours(img image.Image, want map[string]string) (int, map[string]int) {
	type rgb struct{ r, g, b int }
	targets := map[string]rgb{}
	for k, hex := range want {
		var c rgb
		for i, p := range []*int{&c.r, &c.g, &c.b} {
			v := 0
			for _, ch := range hex[1+2*i : 3+2*i] {
				v = v*16 + strings.IndexRune("0123456789abcdef", ch)
			}
			*p = v
		}
		targets[k] = c
	}
	seen := map[rgb]bool{}
	found := map[string]int{}
	for k := range want {
		found[k] = 0
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			c := rgb{int(r >> 8), int(g >> 8), int(bl >> 8)}
			seen[c] = true
			for k, t := range targets {
				if abs(c.r-t.r) <= 6 && abs(c.g-t.g) <= 6 && abs(c.b-t.b) <= 6 {
					found[k]++
				}
			}
		}
	}
	return len(seen), found
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// probeScript is appended to a test copy of a page (the report itself runs
// no script): it reads where Chromium laid out the roofline's points, its
// decade ticks and ceilings, and the banners, in CSS pixels of the
// viewport, and leaves them as JSON in <pre id="probe"> for --dump-dom.
const probeScript = `<pre id="probe"></pre><script>
(function () {
  function centre(el) { var r = el.getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width, h: r.height}; }
  function all(sel, f) { return Array.prototype.map.call(document.querySelectorAll(sel), f); }
  var out = {
    points: all('#roofline circle.pt', function (c) { var p = centre(c); p.name = c.getAttribute('data-name'); p.ops = c.getAttribute('data-ops'); return p; }),
    xticks: all('#roofline line.xtick', function (l) { var p = centre(l); p.v = parseFloat(l.getAttribute('data-v')); return p; }),
    yticks: all('#roofline line.ytick', function (l) { var p = centre(l); p.v = parseFloat(l.getAttribute('data-v')); return p; }),
    ceilings: all('#roofline line.ceiling-mem, #roofline line.ceiling-compute', function (l) {
      var b = l.getBoundingClientRect(); return {cls: l.getAttribute('class'), v: parseFloat(l.getAttribute('data-v')), left: b.left, right: b.right, top: b.top, bottom: b.bottom};
    }),
    sparks: all('svg.spark circle.spark-pt', function (c) { var p = centre(c); p.name = c.closest('svg').id; p.run = parseInt(c.getAttribute('data-v'), 10); return p; }),
    banners: {}
  };
  ['profiled', 'noisy', 'interrupted', 'clocks'].forEach(function (id) {
    var el = document.getElementById(id);
    if (el) { var r = el.getBoundingClientRect(); out.banners[id] = {h: r.height, w: r.width, text: el.textContent, display: getComputedStyle(el).display}; }
  });
  document.getElementById('probe').textContent = JSON.stringify(out);
})();
</script>`

// probe is what probeScript reports.
type probe struct {
	Points []struct {
		Name, Ops  string
		X, Y, W, H float64
	}
	XTicks, YTicks []struct{ V, X, Y float64 }
	Ceilings       []struct {
		Cls                      string
		V                        float64
		Left, Right, Top, Bottom float64
	}
	Sparks []struct {
		Name       string
		Run        int
		X, Y, W, H float64
	}
	Banners map[string]struct {
		H, W          float64
		Text, Display string
	}
}

// layout renders page in Chromium with probeScript and returns its report.
func layout(t *testing.T, bin, page string) probe {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "probe.html")
	withProbe := strings.Replace(page, "</body>", probeScript+"</body>", 1)
	if err := os.WriteFile(p, []byte(withProbe), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(headless(t, bin, dir, "--window-size=1400,2400", "--dump-dom", "file://"+p))
	_, rest, ok := strings.Cut(dom, `<pre id="probe">`)
	body, _, ok2 := strings.Cut(rest, "</pre>")
	if !ok || !ok2 || body == "" {
		t.Fatalf("the probe left nothing in the DOM:\n%s", tail(dom, 2000))
	}
	var pr probe
	if err := json.Unmarshal([]byte(html.UnescapeString(body)), &pr); err != nil {
		t.Fatalf("probe: %v\n%s", err, tail(body, 2000))
	}
	return pr
}

// screenScale is the log scale Chromium laid ticks out on: value →
// pixel, from the first and last decade tick.
func screenScale(t *testing.T, what string, ticks []struct{ V, X, Y float64 }, useX bool) logScale {
	t.Helper()
	if len(ticks) < 2 {
		t.Fatalf("%d %s ticks laid out", len(ticks), what)
	}
	c := func(i int) float64 {
		if useX {
			return ticks[i].X
		}
		return ticks[i].Y
	}
	f, l := 0, len(ticks)-1
	return logScale{ticks[f].V, c(f), ticks[l].V, c(l)}
}

// TestChromiumPlacesTheRooflinePoints is the acceptance check: in
// the page as headless Chromium lays it out, each roofline point sits at
// its benchmark's arithmetic intensity and attained rate, computed here
// from the run (FLOPs or elements over bytes; over the median of the
// samples), on the axes as Chromium drew them; the ceilings are where the
// run's copy bandwidth and the device's peaks put them; and a profiled run
// shows its banner.
func TestChromiumPlacesTheRooflinePoints(t *testing.T) {
	bin := chromium(t)
	run := matrixRun(1)
	var buf bytes.Buffer
	if err := Write(&buf, run, Options{}); err != nil {
		t.Fatal(err)
	}
	pr := layout(t, bin, buf.String())
	if len(pr.Sparks) != 0 {
		t.Errorf("%d sparkline points without a history", len(pr.Sparks))
	}
	sx := screenScale(t, "x", pr.XTicks, true)
	sy := screenScale(t, "y", pr.YTicks, false)
	byName := map[string]bench.Result{}
	for _, x := range run.Results {
		byName[x.Name] = x
	}
	if len(pr.Points) != len(run.Results)-1 {
		t.Errorf("Chromium laid out %d points, want %d", len(pr.Points), len(run.Results)-1)
	}
	for _, p := range pr.Points {
		x, ok := byName[p.Name]
		if !ok {
			t.Errorf("point %q is no result", p.Name)
			continue
		}
		e := expect(x)
		wx, wy := sx.at(e.intensity()), sy.at(e.gflops())
		if math.Abs(p.X-wx) > 1 || math.Abs(p.Y-wy) > 1 || p.W < 7 || p.W > 12 {
			t.Errorf("%s: laid out at (%.1f, %.1f) size %.1f, want (%.1f, %.1f): intensity %.4g, %.4g GFLOP/s",
				p.Name, p.X, p.Y, p.W, wx, wy, e.intensity(), e.gflops())
		}
	}
	var mem, comp int
	for _, c := range pr.Ceilings {
		switch c.Cls {
		case "ceiling-mem":
			mem++
			// From lower left to upper right: copy GB/s × intensity at both ends.
			for _, end := range [][2]float64{{c.Left, c.Bottom}, {c.Right, c.Top}} {
				i, g := sx.inv(end[0]), sy.inv(end[1])
				if math.Abs(g/i/benchtest.CopyGBps-1) > 0.02 {
					t.Errorf("memory ceiling at intensity %.4g: %.4g GFLOP/s, want %.4g", i, g, i*benchtest.CopyGBps)
				}
			}
		case "ceiling-compute":
			comp++
			g := sy.inv((c.Top + c.Bottom) / 2)
			if math.Abs(g/c.V-1) > 0.02 || math.Abs(sx.inv(c.Left)/(c.V/benchtest.CopyGBps)-1) > 0.02 {
				t.Errorf("compute ceiling of %v GFLOPS laid out at %.4g GFLOPS from intensity %.4g", c.V, g, sx.inv(c.Left))
			}
		}
	}
	if mem != 1 || comp != 2 {
		t.Errorf("Chromium laid out %d memory and %d compute ceilings", mem, comp)
	}
	if len(pr.Banners) != 0 {
		t.Errorf("banners over a plain, steady run: %v", pr.Banners)
	}

	// With a history: as many sparkline points laid out, each of a size,
	// as the trend has points, left to right in the order of the runs.
	runs := trendRuns(matrixRun)
	trend := trendOf(t, runs...)
	buf.Reset()
	if err := Write(&buf, runs[3], Options{History: trend}); err != nil {
		t.Fatal(err)
	}
	pr = layout(t, bin, buf.String())
	if want := points(&trend.Machines[0]); len(pr.Sparks) != want {
		t.Errorf("Chromium laid out %d sparkline points, want %d (the trend's points)", len(pr.Sparks), want)
	}
	last := map[string]struct {
		run int
		x   float64
	}{}
	for _, p := range pr.Sparks {
		if p.W < 4 || p.W > 8 {
			t.Errorf("%s run %d: a point %.1f px wide", p.Name, p.Run, p.W)
		}
		if l, ok := last[p.Name]; ok && (p.Run <= l.run || p.X <= l.x) {
			t.Errorf("%s: run %d at x %.1f after run %d at x %.1f", p.Name, p.Run, p.X, l.run, l.x)
		}
		last[p.Name] = struct {
			run int
			x   float64
		}{p.Run, p.X}
	}

	// A profiled run: the banner is shown.
	prof := profiledRun(1)
	buf.Reset()
	if err := Write(&buf, prof, Options{}); err != nil {
		t.Fatal(err)
	}
	pr = layout(t, bin, buf.String())
	b, ok := pr.Banners["profiled"]
	if !ok || b.H < 20 || b.W < 400 || b.Display == "none" || !strings.Contains(b.Text, "Profiled run: measured under ncu") {
		t.Errorf("profiled banner: %+v (present %v)", b, ok)
	}
	if len(pr.Points) != len(prof.Results)-2 {
		t.Errorf("profiled run: %d points, want %d", len(pr.Points), len(prof.Results)-2)
	}
}
