package report

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestChromiumRendersTheCharts is the acceptance check: the report
// of a GPU-like run with a baseline renders in headless Chromium, with its
// SVG charts in the DOM and their colours on the screenshot. With
// FORGE_REPORT_SHOT=PATH the screenshot is also copied to PATH for a human.
func TestChromiumRendersTheCharts(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var html bytes.Buffer
	if err := Write(&html, benchtest.GPURun(1), Options{Baseline: benchtest.Baseline(1)}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, html.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + page

	// The DOM as Chromium built it: every chart is there as SVG, with its
	// bars, and the table with a row per result.
	dom := string(headless(t, bin, dir, "--dump-dom", url))
	for _, id := range []string{"throughput-1", "throughput-2", "throughput-3", "roofline", "baseline"} {
		if !strings.Contains(dom, `<svg xmlns="http://www.w3.org/2000/svg" id="`+id+`"`) {
			t.Errorf("the DOM has no SVG chart %q", id)
		}
	}
	if n := strings.Count(dom, "<rect "); n < 43+43+42 {
		t.Errorf("the DOM has %d rects, want at least one per bar (128)", n)
	}
	if n := strings.Count(dom, "<tr>"); n != 1+43 {
		t.Errorf("the DOM's table has %d rows, want 44", n)
	}

	shot := filepath.Join(dir, "shot.png")
	headless(t, bin, dir, "--screenshot="+shot, "--window-size=1400,2400", "--hide-scrollbars", url)
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
	if b := img.Bounds(); b.Dx() != 1400 || b.Dy() != 2400 {
		t.Errorf("screenshot is %v, want 1400×2400", b.Size())
	}
	distinct, found := colours(img, map[string]string{
		"dequant_f32 bars":     kernelColours[0],
		"dequant_f16 bars":     kernelColours[1],
		"≥ 85% columns":        colAtTarget,
		"below-85% columns":    colBelowTarget,
		"regression bars":      colRegression,
		"improvement bars":     colImprovement,
		"copy roofline (line)": colRoof,
	})
	if distinct < 50 {
		t.Errorf("screenshot has %d distinct colours: blank or unstyled", distinct)
	}
	for what, n := range found {
		// A bar of the smallest kind (a column 14 px wide, a 30% bar 11 px
		// high) covers hundreds of pixels; the dashed line fewer.
		min := 300
		if what == "copy roofline (line)" {
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
