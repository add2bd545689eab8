package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Clocks are a GPU's clocks as its vendor's tool reported them at the start
// and at the end of a run (Meta.Clocks): nvidia-smi on the cuda backend,
// rocm-smi on hip. A run on the cpu, or where the tool is missing or fails,
// records none.
type Clocks struct {
	Tool string `json:"tool"`          // "nvidia-smi", "rocm-smi"
	GPU  string `json:"gpu,omitempty"` // the GPU the tool was asked about (nvidia-smi -i, rocm-smi -d)
	// Driver is the kernel driver's version as the tool reports it
	// ("580.159.04"), unlike Meta.Driver (the CUDA driver API's version).
	Driver    string       `json:"driver,omitempty"`
	MaxSMMHz  int          `json:"max_sm_mhz,omitempty"`  // the SM (graphics) clock's maximum; 0: not reported
	MaxMemMHz int          `json:"max_mem_mhz,omitempty"` // the memory clock's maximum; 0: not reported
	Start     *ClockSample `json:"start,omitempty"`
	End       *ClockSample `json:"end,omitempty"`
}

// ClockSample is one reading of a GPU's clocks.
type ClockSample struct {
	SMMHz  int `json:"sm_mhz"`  // the SM (NVIDIA) or sclk (AMD) clock
	MemMHz int `json:"mem_mhz"` // the memory clock (mclk)
	// Reasons are the active clock event ("throttle") reasons, by NVML's
	// names: gpu_idle, applications_clocks_setting, sw_power_cap,
	// hw_slowdown, sync_boost, sw_thermal_slowdown, hw_thermal_slowdown,
	// hw_power_brake_slowdown, display_clock_setting (an unknown bit as
	// its hex value); empty when none is active or the tool reports none.
	Reasons []string `json:"reasons,omitempty"`
}

// ClockWarnFraction is the share of its maximum below which the SM clock
// at the end of a run (while the GPU was not idle) draws a warning.
const ClockWarnFraction = 0.9

// ClockTimeout bounds each call of the vendor tool.
const ClockTimeout = 3 * time.Second

// runTool runs a vendor tool and returns its standard output; tests
// replace it with one that answers as the tool would.
var runTool = func(ctx context.Context, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, ClockTimeout)
	defer cancel()
	return exec.CommandContext(ctx, name, args...).Output()
}

// nvidiaQuery is what nvidia-smi is asked, in this order.
const nvidiaQuery = "clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,driver_version,clocks_throttle_reasons.active"

// nvmlReasons are NVML's clock event reason bits (nvml.h's
// nvmlClocksEventReason*), by the names nvidia-smi's query fields use.
var nvmlReasons = []struct {
	bit  uint64
	name string
}{
	{0x1, "gpu_idle"},
	{0x2, "applications_clocks_setting"},
	{0x4, "sw_power_cap"},
	{0x8, "hw_slowdown"},
	{0x10, "sync_boost"},
	{0x20, "sw_thermal_slowdown"},
	{0x40, "hw_thermal_slowdown"},
	{0x80, "hw_power_brake_slowdown"},
	{0x100, "display_clock_setting"},
}

// ClockWatch reads a GPU's clocks at the start of a run (StartClocks) and
// at its end (Finish). A nil ClockWatch reads nothing.
type ClockWatch struct {
	backend string
	gpu     string
	clocks  *Clocks
	sampler *clockSampler // the readings while the run measures (Sample)
}

// StartClocks reads the clocks of the GPU that backend (cuda, hip) opened
// as device (its ordinal among the GPUs the process sees): nil on any
// other backend, and where the vendor's tool is missing, fails, times out
// (ClockTimeout) or answers what it cannot parse. A run is never failed
// for want of clocks.
func StartClocks(backend string, device int) *ClockWatch {
	gpu := visibleGPU(backend, device)
	c, s := readClocks(context.Background(), backend, gpu)
	if c == nil {
		return nil
	}
	c.Start = s
	return &ClockWatch{backend: backend, gpu: gpu, clocks: c}
}

// Finish reads the clocks again and records both readings in run's Meta.
func (w *ClockWatch) Finish(run *Run) {
	w.Stop() // (also without a run to record into)
	if w == nil || run == nil {
		return
	}
	c, s := readClocks(context.Background(), w.backend, w.gpu)
	if c != nil {
		w.clocks.End = s
		// The end's view of the maxima and the driver where the start had none.
		w.clocks.MaxSMMHz = cmp.Or(w.clocks.MaxSMMHz, c.MaxSMMHz)
		w.clocks.MaxMemMHz = cmp.Or(w.clocks.MaxMemMHz, c.MaxMemMHz)
		w.clocks.Driver = cmp.Or(w.clocks.Driver, c.Driver)
	}
	run.Meta.Clocks = w.clocks
}

// visibleGPU is the id the vendor tool knows device by: the device-th
// entry of $CUDA_VISIBLE_DEVICES (cuda) or $HIP_VISIBLE_DEVICES /
// $ROCR_VISIBLE_DEVICES (hip) when set, an index or a UUID that
// nvidia-smi -i and rocm-smi -d take, else device itself. (Without
// CUDA_DEVICE_ORDER=PCI_BUS_ID, CUDA may number a host's mixed GPUs
// otherwise than nvidia-smi: the reading is then another GPU's, as the
// recorded id says.)
func visibleGPU(backend string, device int) string {
	var envs []string
	switch backend {
	case "cuda":
		envs = []string{"CUDA_VISIBLE_DEVICES"}
	case "hip":
		envs = []string{"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"}
	}
	for _, e := range envs {
		if v := strings.TrimSpace(os.Getenv(e)); v != "" {
			ids := strings.Split(v, ",")
			if device >= 0 && device < len(ids) && strings.TrimSpace(ids[device]) != "" {
				return strings.TrimSpace(ids[device])
			}
		}
	}
	return strconv.Itoa(device)
}

// readClocks asks backend's vendor tool about gpu: the clocks it reports
// beyond the sample, and the sample; nil, nil when there is nothing.
func readClocks(ctx context.Context, backend, gpu string) (*Clocks, *ClockSample) {
	switch backend {
	case "cuda":
		out, err := runTool(ctx, "nvidia-smi", "--query-gpu="+nvidiaQuery, "--format=csv,noheader,nounits", "-i", gpu)
		if err != nil {
			return nil, nil
		}
		c, s, err := ParseNvidiaSMI(out)
		if err != nil {
			return nil, nil
		}
		c.GPU = gpu
		return c, s
	case "hip":
		out, err := runTool(ctx, "rocm-smi", "-d", gpu, "--showclocks", "--showdriverversion", "--json")
		if err != nil {
			return nil, nil
		}
		c, s, err := ParseROCmSMI(out)
		if err != nil {
			return nil, nil
		}
		c.GPU = gpu
		return c, s
	}
	return nil, nil
}

// ParseNvidiaSMI reads nvidia-smi's answer to --query-gpu=<nvidiaQuery>
// --format=csv,noheader,nounits for one GPU: "1980, 2619, 1980, 2619,
// 580.159.04, 0x0000000000000000". A field the GPU does not report ("[N/A]",
// "[Not Supported]") is left 0 or empty.
func ParseNvidiaSMI(out []byte) (*Clocks, *ClockSample, error) {
	line := strings.TrimSpace(string(out))
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = strings.TrimSpace(line[:i]) // one GPU was asked about: its line
	}
	f := strings.Split(line, ",")
	if len(f) != 6 {
		return nil, nil, fmt.Errorf("nvidia-smi: %d fields, want 6: %q", len(f), line)
	}
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	mhz := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return 0
		}
		return n
	}
	s := &ClockSample{SMMHz: mhz(f[0]), MemMHz: mhz(f[1])}
	c := &Clocks{Tool: "nvidia-smi", MaxSMMHz: mhz(f[2]), MaxMemMHz: mhz(f[3])}
	if !strings.HasPrefix(f[4], "[") {
		c.Driver = Printable(f[4])
	}
	if s.SMMHz == 0 && s.MemMHz == 0 {
		return nil, nil, fmt.Errorf("nvidia-smi: no clocks in %q", line)
	}
	if mask, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(f[5]), "0x"), 16, 64); err == nil {
		s.Reasons = reasonNames(mask)
	}
	return c, s, nil
}

// reasonNames spells an NVML clock event reason mask.
func reasonNames(mask uint64) []string {
	var out []string
	for _, r := range nvmlReasons {
		if mask&r.bit != 0 {
			out = append(out, r.name)
			mask &^= r.bit
		}
	}
	if mask != 0 {
		out = append(out, fmt.Sprintf("0x%x", mask))
	}
	return out
}

// mhzValue finds a clock in rocm-smi's spelling: "(1900Mhz)", "1900MHz".
var mhzValue = regexp.MustCompile(`(?i)(\d+(?:\.\d+)?)\s*mhz`)

// ParseROCmSMI reads rocm-smi's JSON answer to -d N --showclocks
// --showdriverversion --json: the card's "sclk clock speed:" and "mclk
// clock speed:" ("(1900Mhz)") and the system's "Driver version". rocm-smi
// reports no maximum there, so MaxSMMHz and MaxMemMHz stay 0.
func ParseROCmSMI(out []byte) (*Clocks, *ClockSample, error) {
	var doc map[string]map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		return nil, nil, fmt.Errorf("rocm-smi: %w", err)
	}
	c := &Clocks{Tool: "rocm-smi"}
	var s *ClockSample
	keys := make([]string, 0, len(doc))
	for k := range doc {
		keys = append(keys, k)
	}
	slices.Sort(keys) // card0 before card1: one was asked about, but be sure
	for _, k := range keys {
		for field, v := range doc[k] {
			str, ok := v.(string)
			if !ok {
				continue
			}
			lf := strings.ToLower(field)
			switch {
			case strings.Contains(lf, "driver version"):
				c.Driver = Printable(strings.TrimSpace(str))
			case strings.HasPrefix(k, "card") && strings.Contains(lf, "speed") && (strings.HasPrefix(lf, "sclk") || strings.HasPrefix(lf, "mclk")):
				m := mhzValue.FindStringSubmatch(str)
				if m == nil {
					continue
				}
				v, err := strconv.ParseFloat(m[1], 64)
				if err != nil {
					continue
				}
				if s == nil {
					s = &ClockSample{}
				}
				if strings.HasPrefix(lf, "sclk") && s.SMMHz == 0 {
					s.SMMHz = int(v)
				} else if strings.HasPrefix(lf, "mclk") && s.MemMHz == 0 {
					s.MemMHz = int(v)
				}
			}
		}
	}
	if s == nil {
		return nil, nil, errors.New("rocm-smi: no sclk or mclk clock in its answer")
	}
	return c, s, nil
}

// idle reports whether the sample was taken while the GPU idled.
func (s *ClockSample) idle() bool { return slices.Contains(s.Reasons, "gpu_idle") }

// Warnings are what the clocks say about the run's timings: a clock
// event reason other than gpu_idle active at its start or end (power or
// thermal capping, slowdown, clocks held by a setting), and an SM clock at
// the end below ClockWarnFraction of its maximum while the GPU was not
// idle (an idle GPU lowers its clocks by design: that says nothing).
func (c *Clocks) Warnings() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, x := range []struct {
		when string
		s    *ClockSample
	}{{"start", c.Start}, {"end", c.End}} {
		if x.s == nil {
			continue
		}
		var active []string
		for _, r := range x.s.Reasons {
			if r != "gpu_idle" {
				active = append(active, r)
			}
		}
		if len(active) > 0 {
			out = append(out, fmt.Sprintf("at the run's %s the GPU's clocks were held down (%s): timings may be slow and noisy", x.when, strings.Join(active, ", ")))
		}
	}
	if e := c.End; e != nil && c.MaxSMMHz > 0 && e.SMMHz > 0 && !e.idle() && float64(e.SMMHz) < ClockWarnFraction*float64(c.MaxSMMHz) {
		out = append(out, fmt.Sprintf("at the run's end the SM clock was %d MHz, %.0f%% of its %d MHz maximum: the GPU was throttled or not boosting, timings may be slow and noisy",
			e.SMMHz, 100*float64(e.SMMHz)/float64(c.MaxSMMHz), c.MaxSMMHz))
	}
	return out
}

// Summary is the clocks in one line: "nvidia-smi, GPU 0, driver
// 580.159.04: SM 345 -> 1980 MHz (max 1980), memory 2619 -> 2619 MHz (max
// 2619)".
func (c *Clocks) Summary() string {
	if c == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(c.Tool)
	if c.GPU != "" {
		b.WriteString(", GPU " + c.GPU)
	}
	if c.Driver != "" {
		b.WriteString(", driver " + c.Driver)
	}
	clock := func(name string, get func(*ClockSample) int, maxMHz int) {
		var at []string
		for _, s := range []*ClockSample{c.Start, c.End} {
			if s != nil {
				at = append(at, strconv.Itoa(get(s)))
			}
		}
		fmt.Fprintf(&b, "%s %s MHz", name, strings.Join(at, " -> "))
		if maxMHz > 0 {
			fmt.Fprintf(&b, " (max %d)", maxMHz)
		}
	}
	b.WriteString(": ")
	clock("SM", func(s *ClockSample) int { return s.SMMHz }, c.MaxSMMHz)
	b.WriteString(", ")
	clock("memory", func(s *ClockSample) int { return s.MemMHz }, c.MaxMemMHz)
	if c.Start != nil && c.End != nil {
		b.WriteString(" (start -> end)")
	}
	return b.String()
}

// writeRunNotes writes, below the table's first line, what else a reader
// must know of the run: the model a --gguf run measured (ModelNote) and
// the GPU's clocks with their warnings.
func writeRunNotes(b *strings.Builder, run *Run) {
	for _, line := range ModelNote(run.Meta.Model) {
		b.WriteString(Printable(line) + "\n")
	}
	if c := run.Meta.Clocks; c != nil {
		b.WriteString("gpu clocks: " + Printable(c.Summary()) + "\n")
		for _, w := range c.Warnings() {
			b.WriteString("warning: " + Printable(w) + "\n")
		}
	}
	for _, w := range ResultClockWarnings(run) {
		b.WriteString("warning: " + Printable(w) + "\n")
	}
}

// ClockWarning is ClockStats.Warning for one of run's results, against
// the run's SM clock maximum: empty when its clocks say nothing.
func (run *Run) ClockWarning(res *Result) string {
	maxMHz := 0
	if run.Meta.Clocks != nil {
		maxMHz = run.Meta.Clocks.MaxSMMHz
	}
	return res.Clocks.Warning(maxMHz)
}

// ResultClockWarnings are the warnings of the benchmarks whose clocks,
// read while they ran (Result.Clocks), were held down or low: one line a
// benchmark, "<name>: <ClockStats.Warning>".
func ResultClockWarnings(run *Run) []string {
	var out []string
	for i := range run.Results {
		if w := run.ClockWarning(&run.Results[i]); w != "" {
			out = append(out, run.Results[i].Name+": "+w)
		}
	}
	return out
}
