// Package quantsuite is the quantization memory suite:
// it quantizes model-shaped synthetic weights with the reference
// quantizers (specs/formats) and reports the process's measured peak
// resident memory in streaming mode (one layer held at a time) and batch
// mode (every layer held), each case in a fresh child process (child.go)
// so that no case inherits another's high-water mark.
//
// Figures per case (metrics):
//   - peak_rss: the child's VmHWM after the case, the real resident peak;
//   - peak_above_baseline: peak_rss less the child's VmHWM before the
//     work (the idle process: runtime, binary pages);
//   - baseline_rss: that starting VmHWM (the row "idle" is a child that
//     does no work at all);
//   - go_heap_peak: Go's own view, runtime/metrics' heap object bytes at
//     the points where the most is held;
//   - weights_f32 and quantized: the model's f32 and quantized bytes;
//   - time: the whole case (generate, quantize, sink), in the child;
//   - elems_per_s: elements quantized per second of quantizing alone;
//   - streaming_over_batch (streaming rows): streaming peak_rss over the
//     batch peak_rss of the same model and format, in percent, and
//     target_met (1 or 0) where the spec's TargetStreamingRatio applies.
//
// The layer-count sweep (rows "sweep_<model>/…") keeps one layer shape
// and varies the layer count, which is how "streaming is constant in model
// size" is read: streaming holds one layer, so its peak follows the
// largest layer, not the number of layers; batch grows linearly. Its
// summary row reports streaming_spread (max over min of the streaming
// peaks, less one, in percent), batch_growth (largest over smallest batch
// peak, ×) and target_met against TargetSweepSpread.
//
// The quantizers run on the host whatever the backend: the suite measures
// host memory. Streaming and batch must sink the same bytes (a CRC-32C and
// a count); a difference fails the run.
package quantsuite

import (
	"context"
	"fmt"
	"runtime"
	"slices"

	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/specs/workloads"
)

// Quantize returns the scenario of a Quantize spec.
func Quantize(spec workloads.Quantize) *suite.Scenario {
	return &suite.Scenario{
		Doc: spec.Doc,
		Run: func(env *suite.Env) error { return run(env, spec, Child) },
	}
}

// plan is what a run does: the spec's models, formats and sweeps that
// the run (quick or full) keeps, checked.
type plan struct {
	models []workloads.Model
	sweeps []workloads.Model // the layer shapes swept
}

func (p *plan) String() string {
	var ms, ss []string
	for _, m := range p.models {
		ms = append(ms, m.Name)
	}
	for _, m := range p.sweeps {
		ss = append(ss, m.Name)
	}
	return fmt.Sprintf("models %v, sweeps %v", ms, ss)
}

// smokeModel is the one model of a smoke run (suite.Env.Smoke), in place
// of the quick models and sweeps: a few layers of rows of 512 elements (a
// whole number of every format's blocks), which quantize in moments even
// under the race detector, through the same children, modes and sweep.
var smokeModel = workloads.Model{Name: "smoke", Layers: 3, Rows: 16, Cols: 512}

// makePlan checks spec and picks what a quick, smoke or full run does.
func makePlan(spec workloads.Quantize, quick, smoke bool) (*plan, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("quantize spec %s: %s", spec.Name, fmt.Sprintf(format, args...))
	}
	byName := map[string]workloads.Model{}
	for _, m := range spec.Models {
		if m.Layers <= 0 || m.Rows <= 0 || m.Cols <= 0 {
			return nil, bad("model %s has a non-positive dimension", m.Name)
		}
		byName[m.Name] = m
	}
	models := spec.Models
	if smoke {
		models = append(slices.Clone(models), smokeModel)
	}
	fs := append(slices.Clone(spec.Formats), spec.SweepFormat)
	for _, name := range fs {
		f, ok := formats.ByName(name)
		if !ok {
			return nil, bad("unknown format %q", name)
		}
		for _, m := range models {
			if m.Cols%f.BlockElems != 0 {
				return nil, bad("model %s's rows of %d elements are not a whole number of %s blocks (%d)", m.Name, m.Cols, f.Name, f.BlockElems)
			}
		}
	}
	if len(spec.Models) == 0 || len(spec.Formats) == 0 {
		return nil, bad("no models or no formats")
	}
	if spec.TargetStreamingRatio <= 0 || spec.TargetSweepSpread <= 0 {
		return nil, bad("targets must be positive")
	}
	for _, list := range [][]string{spec.QuickModels, spec.TargetModels, spec.SweepModels, spec.QuickSweepModels} {
		for _, name := range list {
			if _, ok := byName[name]; !ok {
				return nil, bad("model %q is not one of Models", name)
			}
		}
	}
	for _, n := range spec.SweepLayers {
		if n <= 0 {
			return nil, bad("sweep layer count %d", n)
		}
	}
	p := &plan{}
	if smoke {
		p.models = []workloads.Model{smokeModel}
		if len(spec.SweepLayers) > 0 {
			p.sweeps = p.models
		}
		return p, nil
	}
	keep, sweep := spec.Models, spec.SweepModels
	if quick {
		keep = nil
		for _, m := range spec.Models {
			if slices.Contains(spec.QuickModels, m.Name) {
				keep = append(keep, m)
			}
		}
		sweep = spec.QuickSweepModels
	}
	p.models = keep
	if len(spec.SweepLayers) > 0 {
		for _, name := range sweep {
			p.sweeps = append(p.sweeps, byName[name])
		}
	}
	return p, nil
}

// pair is one model and format in both modes.
type pair struct{ batch, streaming Result }

func run(env *suite.Env, spec workloads.Quantize, child func(context.Context, Case) (Result, error)) error {
	p, err := makePlan(spec, env.Quick, env.Smoke)
	if err != nil {
		return err
	}
	ctx := env.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	logf := env.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	logf("%s: %s; each case in a fresh process, the reference quantizers on the host's %d goroutines",
		spec.Name, p, runtime.GOMAXPROCS(0))
	// ended tells a failure from a stopped run: a context that ended is
	// not a failure (the scenario returns at once).
	ended := func(err error) error {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}

	idle, err := child(ctx, Case{Mode: Idle})
	if err != nil {
		return ended(err)
	}
	m := suite.Measurement{Case: "idle"}
	m.Add("peak_rss", float64(idle.PeakRSS), "B").
		Add("peak_above_baseline", float64(idle.PeakRSS-idle.BaselineRSS), "B").
		Add("baseline_rss", float64(idle.BaselineRSS), "B")
	env.Report(m)

	runPair := func(model workloads.Model, format string) (pair, error) {
		var pr pair
		for _, mode := range []Mode{Batch, Streaming} {
			r, err := child(ctx, Case{Model: model, Format: format, Mode: mode})
			if err != nil {
				return pr, err
			}
			logf("%s %s %s: peak %.1f MiB (%.1f MiB above the idle process) in %.2fs",
				model.Name, format, mode, mib(r.PeakRSS), mib(r.PeakRSS-r.BaselineRSS), r.Seconds)
			if mode == Batch {
				pr.batch = r
			} else {
				pr.streaming = r
			}
		}
		if b, s := pr.batch, pr.streaming; b.Hash != s.Hash || b.SunkBytes != s.SunkBytes {
			return pr, fmt.Errorf("%s %s: streaming sank %d bytes (CRC-32C %08x), batch %d bytes (%08x): the modes must produce the same bytes",
				model.Name, format, s.SunkBytes, s.Hash, b.SunkBytes, b.Hash)
		}
		return pr, nil
	}

	done := map[string]pair{} // "<model>/<format>"
	for _, model := range p.models {
		for _, format := range spec.Formats {
			pr, err := runPair(model, format)
			if err != nil {
				return ended(err)
			}
			done[model.Name+"/"+format] = pr
			name := model.Name + "/" + format
			env.Report(measurement(name+"/batch", model, pr.batch))
			sm := measurement(name+"/streaming", model, pr.streaming)
			ratio := float64(pr.streaming.PeakRSS) / float64(pr.batch.PeakRSS)
			sm.Add("streaming_over_batch", 100*ratio, "%")
			if slices.Contains(spec.TargetModels, model.Name) {
				sm.Add("target_met", yes(ratio < spec.TargetStreamingRatio), "")
				if ratio >= spec.TargetStreamingRatio {
					logf("%s %s: streaming peak is %.1f%% of batch, not below the target %.0f%%",
						model.Name, format, 100*ratio, 100*spec.TargetStreamingRatio)
				}
			}
			env.Report(sm)
		}
	}

	for _, shape := range p.sweeps {
		prefix := "sweep_" + shape.Name + "/" + spec.SweepFormat
		var streams, batches []int64
		var layers []int
		for _, n := range spec.SweepLayers {
			model := workloads.Model{Name: fmt.Sprintf("%s_L%d", shape.Name, n), Layers: n, Rows: shape.Rows, Cols: shape.Cols}
			pr, ok := done[shape.Name+"/"+spec.SweepFormat]
			if !ok || n != shape.Layers { // the model's own run is the sweep's point at its layer count
				if pr, err = runPair(model, spec.SweepFormat); err != nil {
					return ended(err)
				}
			}
			name := fmt.Sprintf("%s/L%d", prefix, n)
			env.Report(measurement(name+"/batch", model, pr.batch))
			sm := measurement(name+"/streaming", model, pr.streaming)
			sm.Add("streaming_over_batch", 100*float64(pr.streaming.PeakRSS)/float64(pr.batch.PeakRSS), "%")
			env.Report(sm)
			streams = append(streams, pr.streaming.PeakRSS)
			batches = append(batches, pr.batch.PeakRSS)
			layers = append(layers, n)
		}
		lo, hi := slices.Min(streams), slices.Max(streams)
		spread := 100 * float64(hi-lo) / float64(lo)
		first, last := slices.Index(layers, slices.Min(layers)), slices.Index(layers, slices.Max(layers))
		sum := suite.Measurement{Case: prefix, Shape: []int{shape.Rows, shape.Cols}}
		sum.Add("streaming_spread", spread, "%").
			Add("batch_growth", float64(batches[last])/float64(batches[first]), "x")
		if layers[last] > layers[first] {
			sum.Add("batch_per_layer", float64(batches[last]-batches[first])/float64(layers[last]-layers[first]), "B")
		}
		sum.Add("target_met", yes(spread <= spec.TargetSweepSpread), "")
		logf("sweep at %s's layer shape (%d×%d), %v layers: streaming peaks spread %.1f%% (target ≤ %.0f%%), batch grows %.2f×",
			shape.Name, shape.Rows, shape.Cols, layers, spread, spec.TargetSweepSpread, float64(batches[last])/float64(batches[first]))
		env.Report(sum)
	}
	return nil
}

// measurement is a case's row.
func measurement(name string, model workloads.Model, r Result) suite.Measurement {
	m := suite.Measurement{
		Case:         name,
		Shape:        []int{model.Layers, model.Rows, model.Cols},
		Elements:     r.Elements,
		BytesRead:    r.WeightsF32,
		BytesWritten: r.Quantized,
	}
	eps := 0.0
	if r.QuantizeSeconds > 0 {
		eps = float64(r.Elements) / r.QuantizeSeconds
	}
	m.Add("peak_rss", float64(r.PeakRSS), "B").
		Add("peak_above_baseline", float64(r.PeakRSS-r.BaselineRSS), "B").
		Add("baseline_rss", float64(r.BaselineRSS), "B").
		Add("go_heap_peak", float64(r.GoHeapPeak), "B").
		Add("weights_f32", float64(r.WeightsF32), "B").
		Add("quantized", float64(r.Quantized), "B").
		Add("time", r.Seconds, "s").
		Add("elems_per_s", eps, "1/s")
	return m
}

func yes(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
