package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/benchtest"
	"github.com/rocmforge/forge/runtime/suite"
)

func render(t *testing.T, run *bench.Run, opt Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, run, opt); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// node is a parsed XML element: the page is written to be well-formed XML
// as well as HTML, so encoding/xml can check its structure.
type node struct {
	Name     string
	Attr     map[string]string
	Children []*node
	Text     string // character data directly inside
}

func parseXML(t *testing.T, doc string) *node {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(doc))
	d.Strict = true
	root := &node{Name: "#document"}
	stack := []*node{root}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			line, col := d.InputPos()
			lines := strings.Split(doc, "\n")
			ctx := ""
			if line-1 < len(lines) {
				ctx = lines[line-1]
			}
			t.Fatalf("not well-formed at %d:%d: %v\n%s", line, col, err, ctx)
		}
		top := stack[len(stack)-1]
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &node{Name: tok.Name.Local, Attr: map[string]string{}}
			for _, a := range tok.Attr {
				n.Attr[a.Name.Local] = a.Value
			}
			top.Children = append(top.Children, n)
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			top.Text += string(tok)
			top.Children = append(top.Children, &node{Name: "#text", Text: string(tok)})
		}
	}
	if len(stack) != 1 {
		t.Fatalf("unclosed elements: %d", len(stack)-1)
	}
	return root
}

func (n *node) all(name string) []*node {
	var out []*node
	var walk func(*node)
	walk = func(m *node) {
		if m.Name == name {
			out = append(out, m)
		}
		for _, c := range m.Children {
			walk(c)
		}
	}
	walk(n)
	return out
}

func (n *node) byID(id string) *node {
	var found *node
	var walk func(*node)
	walk = func(m *node) {
		if found == nil && m.Attr["id"] == id {
			found = m
		}
		for _, c := range m.Children {
			walk(c)
		}
	}
	walk(n)
	return found
}

// texts is all character data under n.
func (n *node) texts() string {
	var b strings.Builder
	var walk func(*node)
	walk = func(m *node) {
		if m.Name == "#text" {
			b.WriteString(m.Text)
		}
		for _, c := range m.Children {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func TestStructure(t *testing.T) {
	run, base := benchtest.GPURun(1), benchtest.Baseline(1)
	doc := parseXML(t, render(t, run, Options{Baseline: base}))

	htmls := doc.all("html")
	if len(htmls) != 1 || len(doc.all("head")) != 1 || len(doc.all("body")) != 1 {
		t.Fatalf("want one html, head and body")
	}
	// Header: the run's metadata.
	got := metaOf(t, doc)
	for k, v := range map[string]string{
		"device": "NVIDIA H100 80GB HBM3", "backend": "cuda", "arch": "sm_90", "target": "sm_90",
		"wave size": "32", "Go": "go1.26.8", "forge": "devel 7464704c0ffe",
		"date": "2026-11-21 14:03:07 UTC", "copy roofline": "2924 GB/s (device copy of 256 MiB)",
		"interrupted": "no", "results": "43",
	} {
		if got[k] != v {
			t.Errorf("meta %q = %q, want %q", k, got[k], v)
		}
	}

	// Chart 1: a panel per family/kernel, a bar per benchmark.
	var bars int
	for i, want := range []struct {
		title string
		n     int
	}{{"dequant_f32", 21}, {"dequant_f16", 21}, {"copy", 1}} {
		s := doc.byID("throughput-" + string(rune('1'+i)))
		if s == nil || s.Name != "svg" {
			t.Fatalf("no throughput panel %d", i+1)
		}
		if s.Attr["viewBox"] == "" {
			t.Errorf("panel %d: no viewBox", i+1)
		}
		rects := s.all("rect")
		if len(rects) != want.n {
			t.Errorf("panel %s: %d bars, want %d", want.title, len(rects), want.n)
		}
		bars += len(rects)
		if txt := s.texts(); !strings.Contains(txt, want.title) || !strings.Contains(txt, "copy 2924") || !strings.Contains(txt, "85%") {
			t.Errorf("panel %d lacks its title, roofline or 85%% label: %q", i+1, txt)
		}
		for _, r := range rects {
			if len(r.all("title")) != 1 {
				t.Errorf("bar without a tooltip")
			}
		}
	}
	if bars != len(run.Results) {
		t.Errorf("%d bars for %d results", bars, len(run.Results))
	}
	if doc.byID("throughput-4") != nil {
		t.Error("a fourth panel")
	}

	// Chart 2: the roofline, a point per benchmark but copy (the memory
	// ceiling itself), under the memory ceiling and the H100's two compute
	// ceilings; dequant counts no FLOPs: hollow points.
	roof := doc.byID("roofline")
	if roof == nil {
		t.Fatal("no roofline chart")
	}
	pts := roof.all("circle")
	if len(pts) != len(run.Results)-1 {
		t.Errorf("roofline chart: %d points, want %d", len(pts), len(run.Results)-1)
	}
	for _, c := range pts {
		if c.Attr["data-ops"] != "elem" || c.Attr["fill"] != "#ffffff" || len(c.all("title")) != 1 || c.Attr["data-bound"] != "memory" {
			t.Errorf("dequant point %v", c.Attr)
		}
	}
	txt := roof.texts()
	for _, s := range []string{"memory: copy 2924 GB/s (this run)", "f16 tensor core (dense) 989 TFLOPS", "f32 FMA 66.9 TFLOPS", "0.1", "100T"} {
		if !strings.Contains(txt, s) {
			t.Errorf("roofline chart lacks %q", s)
		}
	}
	classes := map[string]int{}
	for _, l := range roof.all("line") {
		classes[l.Attr["class"]]++
	}
	if classes["ceiling-mem"] != 1 || classes["ceiling-compute"] != 2 {
		t.Errorf("roofline chart's ceilings: %v", classes)
	}
	if doc.byID("compute-section") != nil {
		t.Error("a compute panel for a run without FLOPs")
	}
	legend := doc.byID("roofline-section").texts()
	if strings.Contains(legend, "copy benchmark itself") || !strings.Contains(legend, "Hollow points count no FLOPs") {
		t.Errorf("roofline legend/notes: %q", legend)
	}

	// Chart 3: a bar per benchmark in both runs, coloured by its class.
	delta := doc.byID("baseline")
	if delta == nil {
		t.Fatal("no baseline chart")
	}
	fills := map[string]string{}
	for _, r := range delta.all("rect") {
		tip := r.all("title")[0].Text
		fills[strings.SplitN(tip, ":", 2)[0]] = r.Attr["fill"]
	}
	if len(fills) != 42 {
		t.Errorf("baseline chart: %d bars, want 42 (the benchmarks in both runs)", len(fills))
	}
	for name, col := range map[string]string{
		"dequant_f32/Q3_K":  colRegression,
		"dequant_f16/TQ1_0": colRegression,
		"dequant_f16/Q5_K":  colImprovement,
	} {
		if fills[name] != col {
			t.Errorf("%s: fill %s, want %s", name, fills[name], col)
		}
	}
	var red, green int
	for _, c := range fills {
		switch c {
		case colRegression:
			red++
		case colImprovement:
			green++
		}
	}
	if red != 2 || green != 1 {
		t.Errorf("%d regressions and %d improvements, want the 2 and 1 planted", red, green)
	}
	sum := doc.byID("summary").texts()
	if !strings.Contains(sum, "2 regressions, 1 improvement") || !strings.Contains(sum, "of 42 benchmarks") {
		t.Errorf("summary: %q", sum)
	}
	sec := doc.byID("baseline-section").texts()
	if !strings.Contains(sec, "Only in the baseline: dequant_f32/Q1_X") || !strings.Contains(sec, "Only in this run: copy") {
		t.Errorf("baseline section does not name the unmatched benchmarks: %q", sec)
	}

	// The table: a row per result, with the columns asked for.
	table := doc.byID("results")
	ths := table.all("th")
	var heads []string
	for _, th := range ths {
		heads = append(heads, th.Text)
	}
	if h := strings.Join(heads, "|"); h != "name|format|kernel|n|median|95% CI|p95|p99|CV|distribution|GB/s|% of copy|GFLOPS|G elem/s|compression|vs baseline|p" {
		t.Errorf("table columns: %s", h)
	}
	rows := table.all("tbody")[0].all("tr")
	if len(rows) != len(run.Results) {
		t.Fatalf("%d rows, want %d", len(rows), len(run.Results))
	}
	var q3k []string
	for _, td := range rows[9].all("td") {
		q3k = append(q3k, td.Text)
	}
	if q3k[0] != "dequant_f32/Q3_K" || q3k[1] != "Q3_K" || q3k[3] != "40" || !strings.HasSuffix(q3k[4], " µs") ||
		!strings.HasPrefix(q3k[5], "±") || !strings.HasSuffix(q3k[6], " µs") || q3k[7] != "—" ||
		q3k[14] != "9.31×" || !strings.HasPrefix(q3k[15], "+") || q3k[16] != "0.000" {
		t.Errorf("Q3_K row: %q", q3k)
	}
	if c := rows[9].all("td")[15].Attr["class"]; c != "num time regression" {
		t.Errorf("Q3_K delta class %q", c)
	}
	if tip := rows[9].all("td")[16].Attr["title"]; !strings.Contains(tip, "Mann-Whitney U test, n=40+40") {
		t.Errorf("Q3_K p tooltip %q", tip)
	}
	if tip := rows[9].all("td")[5].Attr["title"]; !strings.HasPrefix(tip, "95% CI of the median: ") {
		t.Errorf("Q3_K CI tooltip %q", tip)
	}
}

// TestSelfContained: the page fetches nothing and runs nothing.
func TestSelfContained(t *testing.T) {
	page := render(t, benchtest.GPURun(1), Options{Baseline: benchtest.Baseline(1)})
	lower := strings.ToLower(page)
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "<object", "<embed", "src=", "href=", "url(", "@import", "@font-face"} {
		if strings.Contains(lower, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	rest := strings.ReplaceAll(lower, `xmlns="http://www.w3.org/2000/svg"`, "")
	for _, bad := range []string{"http:", "https:", "ftp:", "file:", `"//`, "'//", "(//"} {
		if strings.Contains(rest, bad) {
			t.Errorf("page names a network address (%q)", bad)
		}
	}
}

func TestDeterministic(t *testing.T) {
	a := render(t, benchtest.GPURun(1), Options{Baseline: benchtest.Baseline(1)})
	b := render(t, benchtest.GPURun(1), Options{Baseline: benchtest.Baseline(1)})
	if a != b {
		t.Fatal("the same run rendered twice differs")
	}
	// Through JSON, as the command reads it: the same page.
	rt := func(r *bench.Run) *bench.Run {
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var out bench.Run
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		return &out
	}
	c := render(t, rt(benchtest.GPURun(1)), Options{Baseline: rt(benchtest.Baseline(1))})
	if a != c {
		t.Fatal("the run read back from JSON renders differently")
	}
}

// hostile names, as a GGUF file or a hand-edited run might carry them.
var hostile = []string{
	`<script>alert(1)</script>`,
	`"><img src=x onerror=alert(1)>`,
	`'><svg onload=alert(2)>`,
	`</title></svg></table><h1>pwn</h1>`,
	`]]><!-- -->&amp;&lt;`,
	"bad\xff\xfeutf8\x00nul\x01ctl\x1b[31m",
	"javascript:alert(3)",
	"{{.Title}} ${x} \u202egnp.exe",
}

func TestHostileNamesAreEscaped(t *testing.T) {
	run := benchtest.GPURun(2)
	base := benchtest.Baseline(2)
	run.Name = hostile[0]
	run.Meta.Device = hostile[1]
	run.Meta.Hostname = hostile[3]
	run.Meta.Library = hostile[5]
	run.Interrupted = true
	base.Name = hostile[2]
	base.Meta.Device = hostile[4]
	for i, h := range hostile {
		x := &run.Results[i]
		x.Name, x.Suite = h, h
		y := &base.Results[i]
		y.Name = h // matched: appears in the baseline chart
		run.Results[30+i].Kernel = h
		run.Results[30+i].Family = hostile[(i+1)%len(hostile)]
		run.Results[20+i].Format = h
	}
	page := render(t, run, Options{Baseline: base})
	doc := parseXML(t, page) // well-formed despite them
	lower := strings.ToLower(page)
	for _, bad := range []string{"<script", "<img", "<h1>pwn", "<svg onload", "\x00", "\x01", "\x1b", "\xff"} {
		if strings.Contains(lower, bad) {
			t.Errorf("a hostile name came through unescaped: %q", bad)
		}
	}
	// Only our elements: nothing a name smuggled in.
	allowed := map[string]bool{"#document": true, "#text": true, "html": true, "head": true, "meta": true, "title": true, "style": true, "body": true,
		"header": true, "h1": true, "h2": true, "p": true, "div": true, "dl": true, "dt": true, "dd": true, "strong": true,
		"section": true, "span": true, "code": true, "table": true, "thead": true, "tbody": true, "tr": true, "th": true,
		"td": true, "footer": true, "svg": true, "rect": true, "line": true, "text": true, "circle": true}
	var walk func(*node)
	walk = func(n *node) {
		if !allowed[n.Name] {
			t.Errorf("unexpected element <%s>", n.Name)
		}
		for k := range n.Attr {
			if strings.HasPrefix(strings.ToLower(k), "on") {
				t.Errorf("event attribute %s on <%s>", k, n.Name)
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(doc)
	// The names are there, as text.
	txt := doc.texts()
	for _, h := range []string{hostile[0], hostile[1], hostile[3], "javascript:alert(3)"} {
		if !strings.Contains(txt, h) {
			t.Errorf("%q does not appear as text", h)
		}
	}
	if !strings.Contains(txt, "bad\uFFFD\uFFFDutf8\uFFFDnul\uFFFDctl\uFFFD[31m") {
		t.Error("invalid UTF-8 and control characters are not replaced by U+FFFD")
	}
	if doc.byID("interrupted") == nil {
		t.Error("no interrupted banner")
	}
}

func TestEdgeCases(t *testing.T) {
	t.Run("empty", func(t *testing.T) {
		run := &bench.Run{Kind: bench.Kind, Schema: bench.SchemaVersion}
		doc := parseXML(t, render(t, run, Options{Baseline: run}))
		if !strings.Contains(doc.texts(), "This run has no results.") || !strings.Contains(doc.texts(), "not measured in this run") ||
			!strings.Contains(doc.texts(), "No result has a place on a roofline") {
			t.Error("an empty run does not say so")
		}
		if !strings.Contains(doc.byID("baseline").texts(), "no benchmark is in both runs") {
			t.Error("the empty comparison does not say so")
		}
	})
	t.Run("no roofline, no samples, odd numbers", func(t *testing.T) {
		run := benchtest.GPURun(3)
		run.Roofline = nil
		base := benchtest.Baseline(3)
		for i := range run.Results {
			x := &run.Results[i]
			x.Samples = nil
			x.Stats.PctCopy = 0
		}
		run.Results[0].Stats.GBps = math.NaN()
		run.Results[1].Stats.GBps = math.Inf(1)
		run.Results[2].Stats = bench.Stats{}
		run.Results[3].Compression = math.Inf(1)
		doc := parseXML(t, render(t, run, Options{Baseline: base}))
		// Without a roofline: the points, with no memory ceiling.
		roof := doc.byID("roofline")
		if roof == nil || len(roof.all("circle")) == 0 {
			t.Fatal("no roofline points without a copy roofline")
		}
		for _, l := range roof.all("line") {
			if l.Attr["class"] == "ceiling-mem" {
				t.Error("a memory ceiling without a copy roofline")
			}
		}
		if !strings.Contains(doc.byID("roofline-section").texts(), "No memory ceiling: this run measured no copy roofline.") {
			t.Error("no note on the missing memory ceiling")
		}
		if doc.byID("throughput-1") == nil || doc.byID("baseline") == nil {
			t.Fatal("charts missing")
		}
		for _, s := range doc.all("svg") {
			for _, n := range append(append(s.all("rect"), s.all("line")...), s.all("circle")...) {
				for k, v := range n.Attr {
					if strings.Contains(v, "NaN") || strings.Contains(v, "Inf") {
						t.Errorf("%s %s=%q", n.Name, k, v)
					}
				}
			}
		}
		// Without samples the change is judged by size alone.
		if !strings.Contains(doc.byID("baseline").texts(), "+30") {
			t.Error("the Q3_K change is missing")
		}
	})
	t.Run("scenario figures", func(t *testing.T) {
		run := benchtest.GPURun(2)
		run.Results = append(run.Results,
			bench.Result{Name: "memory/kv/alloc_512", Suite: "memory/kv", Family: "memory",
				Metrics: []suite.Metric{{Name: "bytes_per_token", Value: 524288, Unit: "B"}, {Name: "agree", Value: 0.12, Unit: "%"}}},
			bench.Result{Name: "memory/kv/<grow>", Suite: "memory/kv", Family: "memory",
				Metrics: []suite.Metric{{Name: "allocs", Value: 13}}})
		doc := parseXML(t, render(t, run, Options{}))
		fig := doc.byID("figures")
		if fig == nil {
			t.Fatal("no figures section")
		}
		for _, want := range []string{"memory/kv", "bytes_per_token (B)", "512 KiB", "0.12%", "allocs", "13", "<grow>", "alloc_512"} {
			if !strings.Contains(fig.texts(), want) {
				t.Errorf("figures lack %q: %s", want, fig.texts())
			}
		}
		if strings.Contains(doc.byID("results").texts(), "alloc_512") {
			t.Error("a case of figures alone is in the timing table")
		}
	})
	t.Run("hardware differs", func(t *testing.T) {
		run, base := benchtest.GPURun(4), benchtest.Baseline(4)
		base.Meta.Device = "AMD Radeon RX 7900 XTX"
		base.Meta.Backend = "hip"
		page := render(t, run, Options{Baseline: base})
		if !strings.Contains(page, "Hardware: device differs") || !strings.Contains(page, "Hardware: backend differs") {
			t.Error("no hardware warning")
		}
	})
}

func TestNiceAxis(t *testing.T) {
	for _, c := range []struct{ max, top, step float64 }{
		{2969, 3000, 500}, {2924, 3000, 500}, {29.9, 30, 10}, {20, 20, 5}, {1, 1, 0.2}, {0, 1, 0.2}, {0.031, 0.04, 0.01}, {123456, 125000, 25000},
	} {
		n := 6
		if c.max == 29.9 || c.max == 20 {
			n = 4
		}
		top, step := niceAxis(c.max, n)
		if math.Abs(top-c.top) > 1e-9*c.top || math.Abs(step-c.step) > 1e-9*c.step {
			t.Errorf("niceAxis(%v, %d) = %v, %v; want %v, %v", c.max, n, top, step, c.top, c.step)
		}
	}
}

func TestFormatting(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{0, "—"}, {850, "850 ns"}, {108_765, "109 µs"}, {12_345_678, "12.3 ms"}, {1_500_000, "1.50 ms"}, {2 * time.Second, "2.00 s"}} {
		if got := fmtDur(c.d); got != c.want {
			t.Errorf("fmtDur(%d) = %q, want %q", c.d, got, c.want)
		}
	}
	if got := clean("a\x00b\xffc\u202e"); got != "a\uFFFDb\uFFFDc\u202e" {
		t.Errorf("clean: %q", got)
	}
}

// metaOf is the metadata rows of a rendered page, by key.
func metaOf(t *testing.T, doc *node) map[string]string {
	t.Helper()
	meta := doc.byID("meta")
	if meta == nil {
		t.Fatal("no metadata")
	}
	dts, dds := meta.all("dt"), meta.all("dd")
	if len(dts) != len(dds) {
		t.Fatalf("%d dt, %d dd", len(dts), len(dds))
	}
	got := map[string]string{}
	for i := range dts {
		got[dts[i].Text] = dds[i].Text
	}
	return got
}

// TestClocks: a run's GPU clocks are metadata rows (tool and GPU, SM and
// memory clock at start and end with their maxima, the driver the tool
// reports, the clock event reasons); their warnings are a banner. Steady
// clocks show the rows and no banner; a run without clocks shows neither.
func TestClocks(t *testing.T) {
	run := benchtest.GPURun(1)
	run.Meta.Clocks = &bench.Clocks{Tool: "nvidia-smi", GPU: "0", Driver: "580.159.04", MaxSMMHz: 1980, MaxMemMHz: 2619,
		Start: &bench.ClockSample{SMMHz: 1980, MemMHz: 2619},
		End:   &bench.ClockSample{SMMHz: 1410, MemMHz: 2619, Reasons: []string{"sw_power_cap"}}}
	doc := parseXML(t, render(t, run, Options{}))
	got := metaOf(t, doc)
	for k, v := range map[string]string{
		"clocks from":  "nvidia-smi, GPU 0",
		"SM clock":     "1980 MHz at start, 1410 MHz at end (max 1980 MHz)",
		"memory clock": "2619 MHz at start, 2619 MHz at end (max 2619 MHz)",
		"GPU driver":   "580.159.04 (nvidia-smi)",
		"clock events": "end: sw_power_cap",
		"driver":       run.Meta.Driver, // the run's own, beside the tool's
	} {
		if got[k] != v {
			t.Errorf("meta %q = %q, want %q", k, got[k], v)
		}
	}
	banner := doc.byID("clocks")
	if banner == nil {
		t.Fatal("no clock banner for a throttled run")
	}
	txt := banner.texts()
	for _, w := range run.Meta.Clocks.Warnings() {
		if !strings.Contains(txt, w) {
			t.Errorf("banner %q lacks the warning %q", txt, w)
		}
	}
	if len(run.Meta.Clocks.Warnings()) != 2 {
		t.Errorf("fixture: %d warnings", len(run.Meta.Clocks.Warnings()))
	}

	// Steady clocks: the rows, no banner.
	run.Meta.Clocks.End = &bench.ClockSample{SMMHz: 1980, MemMHz: 2619}
	doc = parseXML(t, render(t, run, Options{}))
	if got := metaOf(t, doc); got["SM clock"] != "1980 MHz at start, 1980 MHz at end (max 1980 MHz)" || got["clock events"] != "" {
		t.Errorf("steady clocks: %q, %q", got["SM clock"], got["clock events"])
	}
	if doc.byID("clocks") != nil {
		t.Error("a clock banner over steady clocks")
	}

	// rocm-smi: no maxima, one reading.
	run.Meta.Clocks = &bench.Clocks{Tool: "rocm-smi", GPU: "1", Start: &bench.ClockSample{SMMHz: 2100, MemMHz: 1300}}
	if got := metaOf(t, parseXML(t, render(t, run, Options{}))); got["SM clock"] != "2100 MHz at start" || got["clocks from"] != "rocm-smi, GPU 1" || got["GPU driver"] != "" {
		t.Errorf("rocm-smi clocks: %q", got)
	}

	// No clocks: nothing of them.
	run.Meta.Clocks = nil
	doc = parseXML(t, render(t, run, Options{}))
	for _, k := range []string{"clocks from", "SM clock", "memory clock", "GPU driver", "clock events"} {
		if v, ok := metaOf(t, doc)[k]; ok {
			t.Errorf("a run without clocks has %q = %q", k, v)
		}
	}
	if doc.byID("clocks") != nil {
		t.Error("a clock banner without clocks")
	}
}

// TestPctCopyFollowsRooflineFor: the report gives a % of copy where
// bench.RooflineFor does, and none to a benchmark moving less than
// bench.RooflineMinBytes (nor in its bar's tooltip), whatever % the run's
// stored statistics hold.
func TestPctCopyFollowsRooflineFor(t *testing.T) {
	run := benchtest.GPURun(1)
	small, edge, big := &run.Results[0], &run.Results[1], &run.Results[2]
	small.BytesRead, small.BytesWritten = 4<<20, 4<<20 // 8 MiB
	edge.BytesRead, edge.BytesWritten = 8<<20, 8<<20   // 16 MiB: judged
	for _, x := range []*bench.Result{small, edge, big} {
		x.Stats.PctCopy = 51 // as an older forgebench, or a hand, wrote it
	}
	if bench.RooflineFor(run.Roofline, 8<<20) != 0 || bench.RooflineFor(run.Roofline, 16<<20) == 0 {
		t.Fatal("fixture: RooflineFor changed")
	}
	for _, samples := range []bool{true, false} {
		r := *run
		r.Results = append([]bench.Result(nil), run.Results...)
		if !samples { // the stored statistics alone
			for i := range r.Results {
				r.Results[i].Samples = nil
			}
		}
		doc := parseXML(t, render(t, &r, Options{}))
		rows := doc.byID("results").all("tbody")[0].all("tr")
		pct := func(i int) string { return rows[i].all("td")[11].Text }
		if pct(0) != "—" {
			t.Errorf("samples %v: %s moves 8 MiB: %% of copy %q, want —", samples, small.Name, pct(0))
		}
		for _, i := range []int{1, 2} {
			if v := pct(i); v == "—" || v == "51.0" {
				t.Errorf("samples %v: %s: %% of copy %q, want the median's", samples, r.Results[i].Name, v)
			}
		}
		for _, rect := range doc.byID("throughput-1").all("rect") {
			if tip := rect.all("title")[0].Text; strings.HasPrefix(tip, small.Name+":") && strings.Contains(tip, "of copy") {
				t.Errorf("samples %v: the small benchmark's bar: %q", samples, tip)
			}
		}
	}
}
