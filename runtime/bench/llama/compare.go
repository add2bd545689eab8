package llama

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rocmforge/forge/runtime/bench"
)

// LlamaStatistic is what test-backend-ops' time is.
const LlamaStatistic = "mean µs/run of test-backend-ops perf (at least 1 s of graph computes, each many launches back to back on one weight buffer)"

// forgeStatistic says what forge's times are, given the launches per
// sample of the compared results (bench.Result.LaunchesPerSample, 0 for one).
func forgeStatistic(launches []int) string {
	switch {
	case len(launches) == 0:
		return "median of the benchmark's samples"
	case len(launches) > 1:
		return fmt.Sprintf("median of the benchmark's samples, each the mean of %v back-to-back launches (it differs between rows)", launches)
	case launches[0] <= 1:
		return "median of the benchmark's samples, one launch each (so its µs include the launch gap that back-to-back timing hides: forgebench run --launches-per-sample N times as test-backend-ops does)"
	}
	return fmt.Sprintf("median of the benchmark's samples, each the mean of %d back-to-back launches", launches[0])
}

// Run is one forgebench run to compare, with the label its messages use
// (its file name).
type Run struct {
	Label string
	Run   *bench.Run
}

// Side describes where one side's figures come from.
type Side struct {
	Sources []string `json:"sources"`          // the files read
	Device  string   `json:"device,omitempty"` // GPU name, as the side reports it
	Backend string   `json:"backend,omitempty"`
	Commit  string   `json:"commit,omitempty"` // forge's revision; ggml's build commit
	// Statistic says what each time is.
	Statistic string `json:"statistic"`
}

// Row is one forge benchmark beside the test-backend-ops case of the same
// format and shape.
type Row struct {
	Family string `json:"family"`
	Kernel string `json:"kernel"`
	Format string `json:"format"`
	// Shape is forge's: matvec's [rows, cols], matmul's [rows, cols,
	// batch]; ggml's m = rows, k = cols, n = batch (1 for matvec).
	Shape        []int   `json:"shape"`
	ForgeResult  string  `json:"forge_result"` // the forge result's name
	ForgeUS      float64 `json:"forge_us"`
	ForgeSamples int     `json:"forge_samples"`
	// ForgeLaunches is the back-to-back launches each forge sample is the
	// mean of (1: one launch per sample).
	ForgeLaunches int     `json:"forge_launches_per_sample"`
	Weights       string  `json:"weights,omitempty"` // forge's weight mode: reuse, rotate
	LlamaUS       float64 `json:"llama_us"`
	LlamaRuns     int     `json:"llama_runs,omitempty"`
	LlamaAt       string  `json:"llama_at"` // FILE:LINE of the case
	Ratio         float64 `json:"ratio"`    // ForgeUS / LlamaUS
	Winner        string  `json:"winner"`   // "forge", "llama.cpp" or "tie"
	// VendorUS is the vendor library's f16 product at the shape
	// (Comparison.Vendor; matmul rows only), VendorRatio ForgeUS / VendorUS.
	VendorUS    float64 `json:"vendor_us,omitempty"`
	VendorRatio float64 `json:"vendor_ratio,omitempty"`
}

// Unmatched is a result or case left without a counterpart, and why.
type Unmatched struct {
	What string `json:"what"`
	Why  string `json:"why"`
}

// Comparison is forge's matvec and matmul results against test-backend-ops'
// MUL_MAT cases.
type Comparison struct {
	Forge     Side        `json:"forge"`
	Llama     Side        `json:"llama_cpp"`
	Rows      []Row       `json:"rows"`
	ForgeOnly []Unmatched `json:"forge_unmatched,omitempty"`
	LlamaOnly []Unmatched `json:"llama_cpp_unmatched,omitempty"`
	Notes     []string    `json:"notes,omitempty"`
	Vendor    *Vendor     `json:"vendor,omitempty"` // AddVendor's, when given
}

// key is what a forge result and a test-backend-ops case are matched on.
type key struct {
	format  string // forge's name: "Q4_K"
	m, n, k int
}

func (k key) String() string {
	return fmt.Sprintf("%s m=%d n=%d k=%d", k.format, k.m, k.n, k.k)
}

// FormatOf is forge's name of a ggml type name: "q4_K" → "Q4_K", "f16" →
// "F16", "mxfp4" → "MXFP4" (forge names its formats after ggml's types,
// upper-cased).
func FormatOf(ggmlType string) string { return strings.ToUpper(ggmlType) }

// Compare lines up the matvec and matmul results of runs with the plain
// MUL_MAT cases (f32 activations) of cases: a matvec of [rows, cols] is
// ggml's m = rows, k = cols, n = 1; a matmul of [rows, cols, batch] is
// n = batch. Every result and case without a counterpart is listed in
// ForgeOnly or LlamaOnly with the reason; when a format and shape appears
// in more than one case, the first is compared and the others are listed.
func Compare(runs []Run, cases []Case) *Comparison {
	c := &Comparison{
		Llama: Side{Statistic: LlamaStatistic},
	}
	var devices, backends, commits []string
	for _, r := range runs {
		c.Forge.Sources = append(c.Forge.Sources, r.Label)
		devices = addUnique(devices, r.Run.Meta.Device)
		backends = addUnique(backends, r.Run.Meta.Backend)
		commits = addUnique(commits, r.Run.Meta.ForgeCommit)
	}
	c.Forge.Device, c.Forge.Backend, c.Forge.Commit = strings.Join(devices, ", "), strings.Join(backends, ", "), strings.Join(commits, ", ")
	devices, backends, commits = nil, nil, nil

	// Index the cases that can be compared; list the others.
	byKey := map[key]*Case{}
	unsupported := map[key]*Case{}
	used := map[*Case]bool{}
	var order []*Case
	for i := range cases {
		cs := &cases[i]
		c.Llama.Sources = addUnique(c.Llama.Sources, cs.File)
		devices = addUnique(devices, cs.Device)
		backends = addUnique(backends, cs.Backend)
		commits = addUnique(commits, cs.Commit)
		what := fmt.Sprintf("%s:%d %s(%s)", cs.File, cs.Line, cs.Op, cs.Params)
		k := key{FormatOf(cs.TypeA), cs.M, cs.N, cs.K}
		switch {
		case cs.Op != "MUL_MAT":
			c.LlamaOnly = append(c.LlamaOnly, Unmatched{what, "forge compares MUL_MAT only"})
		case !cs.Supported:
			why := "not supported by the backend"
			if cs.Error != "" && cs.Error != "not supported" {
				why += ": " + cs.Error
			}
			c.LlamaOnly = append(c.LlamaOnly, Unmatched{what, why})
			if _, seen := unsupported[k]; !seen {
				unsupported[k] = cs
			}
		case cs.NotPlain != "":
			c.LlamaOnly = append(c.LlamaOnly, Unmatched{what, "not one plain product: " + cs.NotPlain})
		case cs.TypeB != "f32":
			c.LlamaOnly = append(c.LlamaOnly, Unmatched{what, fmt.Sprintf("type_b=%s: forge's activations are f32", cs.TypeB)})
		default:
			if first, dup := byKey[k]; dup {
				c.LlamaOnly = append(c.LlamaOnly, Unmatched{what, fmt.Sprintf("the same type and shape as %s:%d, which is compared", first.File, first.Line)})
				continue
			}
			byKey[k] = cs
			order = append(order, cs)
		}
	}
	c.Llama.Device, c.Llama.Backend, c.Llama.Commit = strings.Join(devices, ", "), strings.Join(backends, ", "), strings.Join(commits, ", ")

	rotated := 0
	var launches []int
	var throttled []string // forge rows whose clocks were held down while they ran
	for _, r := range runs {
		for _, res := range r.Run.Results {
			what := res.Name
			if len(runs) > 1 {
				what = r.Label + ": " + res.Name
			}
			k, why := keyOf(&res)
			if why != "" {
				c.ForgeOnly = append(c.ForgeOnly, Unmatched{what, why})
				continue
			}
			cs := byKey[k]
			if cs == nil {
				why := "test-backend-ops reported no plain MUL_MAT of " + k.String()
				if u := unsupported[k]; u != nil {
					why = fmt.Sprintf("test-backend-ops does not support %s (%s:%d)", k, u.File, u.Line)
				}
				c.ForgeOnly = append(c.ForgeOnly, Unmatched{what, why})
				continue
			}
			used[cs] = true
			if w := r.Run.ClockWarning(&res); w != "" {
				throttled = append(throttled, what+": "+w)
			}
			row := Row{
				Family: res.Family, Kernel: res.Kernel, Format: res.Format, Shape: res.Shape,
				ForgeResult: res.Name, ForgeUS: float64(res.Stats.P50) / 1e3, ForgeSamples: len(res.Samples),
				ForgeLaunches: max(1, res.LaunchesPerSample),
				LlamaUS:       cs.TimeUS, LlamaRuns: cs.Runs, LlamaAt: fmt.Sprintf("%s:%d", cs.File, cs.Line),
			}
			if res.Weights != nil {
				row.Weights = string(res.Weights.Mode)
				if res.Weights.Mode != "reuse" {
					rotated++
				}
			}
			if !slices.Contains(launches, row.ForgeLaunches) {
				launches = append(launches, row.ForgeLaunches)
			}
			row.Ratio = row.ForgeUS / row.LlamaUS
			switch {
			case row.Ratio < 1:
				row.Winner = "forge"
			case row.Ratio > 1:
				row.Winner = "llama.cpp"
			default:
				row.Winner = "tie"
			}
			c.Rows = append(c.Rows, row)
		}
	}
	slices.Sort(launches)
	c.Forge.Statistic = forgeStatistic(launches)
	for _, cs := range order {
		if !used[cs] {
			k := key{FormatOf(cs.TypeA), cs.M, cs.N, cs.K}
			c.LlamaOnly = append(c.LlamaOnly, Unmatched{
				fmt.Sprintf("%s:%d %s(%s)", cs.File, cs.Line, cs.Op, cs.Params),
				"no forge matvec or matmul result of " + k.String(),
			})
		}
	}

	for _, t := range throttled {
		c.Notes = append(c.Notes, "forge's "+t)
	}
	if rotated > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d forge rows read their weights from rotating copies (cache defeated) while test-backend-ops reuses one buffer: run forgebench with --weights reuse for a like-for-like table", rotated))
	}
	if c.Forge.Device != "" && c.Llama.Device != "" && c.Forge.Device != c.Llama.Device {
		c.Notes = append(c.Notes, fmt.Sprintf("the sides ran on different devices (forge: %s; llama.cpp: %s): compare only figures taken in the same run", c.Forge.Device, c.Llama.Device))
	}
	return c
}

// keyOf is the case a forge result compares with, or why it has none.
func keyOf(r *bench.Result) (key, string) {
	switch {
	case r.Family != "matvec" && r.Family != "matmul":
		return key{}, fmt.Sprintf("family %q has no test-backend-ops MUL_MAT counterpart", r.Family)
	case len(r.Samples) == 0 || r.Stats.P50 <= 0:
		return key{}, "no timed samples"
	case r.Family == "matvec" && len(r.Shape) == 2:
		return key{r.Format, r.Shape[0], 1, r.Shape[1]}, ""
	case r.Family == "matmul" && len(r.Shape) == 3:
		return key{r.Format, r.Shape[0], r.Shape[2], r.Shape[1]}, ""
	}
	return key{}, fmt.Sprintf("%s shape %v: want [rows, cols] (matvec) or [rows, cols, batch] (matmul)", r.Family, r.Shape)
}

func addUnique(list []string, s string) []string {
	if s == "" {
		return list
	}
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// Tally is how many rows each side wins and the geometric mean of the
// ratios (forge / llama.cpp; below 1 forge is faster overall).
func (c *Comparison) Tally() (forge, llama int, geomean float64) {
	if len(c.Rows) == 0 {
		return 0, 0, 0
	}
	var logs float64
	for _, r := range c.Rows {
		switch r.Winner {
		case "forge":
			forge++
		case "llama.cpp":
			llama++
		}
		logs += math.Log(r.Ratio)
	}
	return forge, llama, math.Exp(logs / float64(len(c.Rows)))
}
