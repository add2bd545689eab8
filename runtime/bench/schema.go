// Package bench holds forgebench's measurement schema: a Run of Results, one
// per benchmark, with the metadata of the machine that produced it. It is
// the schema of forgebench's JSON output, of baselines, and of the input of
// its reports; the engine that fills it, the writers and the comparison
// live beside it.
package bench

import (
	"time"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/suite"
)

// SchemaVersion is written into every JSON run and baseline; readers refuse
// other versions with a clear error.
const SchemaVersion = 1

// Kind tells forgebench's JSON files apart from foreign JSON.
const Kind = "forgebench.run"

// Run is one forgebench run (or a saved baseline: a Run with a Name).
type Run struct {
	Kind     string    `json:"kind"`           // always Kind
	Schema   int       `json:"schema_version"` // SchemaVersion
	Name     string    `json:"name,omitempty"` // baseline name, when saved as one
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	Meta     Meta      `json:"meta"`
	Roofline *Roofline `json:"roofline,omitempty"` // the copy bandwidth measured in the same run
	Results  []Result  `json:"results"`
	// Interrupted is set when the run was stopped (Ctrl-C) before every
	// selected benchmark finished; Results holds those that did.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Meta describes the hardware and software of a run.
type Meta struct {
	Backend       string `json:"backend"`             // cpu, cuda, hip
	Library       string `json:"library,omitempty"`   // kernel library path (GPU backends)
	Device        string `json:"device"`              // GPU name, or the CPU model
	Arch          string `json:"arch"`                // sm_90, gfx1100, or GOARCH for cpu
	Target        string `json:"target,omitempty"`    // forge target the library was built for
	WaveSize      int    `json:"wave_size,omitempty"` // GPU wave/warp size
	ComputeUnits  int    `json:"compute_units,omitempty"`
	MemoryBytes   uint64 `json:"memory_bytes,omitempty"`
	Driver        string `json:"driver,omitempty"`  // driver version
	Toolkit       string `json:"toolkit,omitempty"` // CUDA/HIP runtime version
	CPUs          int    `json:"cpus"`              // GOMAXPROCS
	GoVersion     string `json:"go_version"`
	OS            string `json:"os"` // GOOS/GOARCH
	Hostname      string `json:"hostname,omitempty"`
	ForgeVersion  string `json:"forge_version"`          // module version, or "devel"
	ForgeCommit   string `json:"forge_commit,omitempty"` // vcs revision, when known
	ForgeModified bool   `json:"forge_modified,omitempty"`
	// DeviceIndex is the GPU ordinal the run opened (--device, $FORGE_DEVICE;
	// among the devices visible to the process); nil on the cpu.
	DeviceIndex *int    `json:"device_index,omitempty"`
	Shard       *Shard  `json:"shard,omitempty"`  // the part of a split selection this run measured (run --shard; shard.go)
	Merged      *Merged `json:"merged,omitempty"` // the shards this run was merged from (forgebench merge; merge.go)
	Clocks      *Clocks `json:"clocks,omitempty"` // the GPU's clocks at the run's start and end (clocks.go)
	Model       *Model  `json:"model,omitempty"`  // the GGUF file a --gguf run measured (gguf.go)
}

// Roofline is the device-to-device copy bandwidth measured in the run.
type Roofline struct {
	Bytes int64   `json:"bytes"` // buffer size copied
	GBps  float64 `json:"gbps"`  // bytes read + written per second / 1e9
	// Method says what was copied: "forge_copy" (the kernel library's
	// device copy) or "go copy, N goroutines" (the cpu backend's).
	Method string `json:"method,omitempty"`
}

// Result is one benchmark: one suite (format × kernel) at one shape.
type Result struct {
	Name     string `json:"name"`             // "dequant_f32/Q4_0", or "gguf/<tensor>/dequant_f32"
	Suite    string `json:"suite"`            // the registered suite name
	Family   string `json:"family"`           // "dequant", "copy"
	Kernel   string `json:"kernel,omitempty"` // "dequant_f32"
	Format   string `json:"format,omitempty"` // "Q4_0"
	Output   string `json:"output,omitempty"` // "f32", "f16"
	Shape    []int  `json:"shape,omitempty"`  // elements per dimension (a GGUF tensor's shape)
	Elements int64  `json:"elements"`         // elements produced per iteration
	// Bytes moved per iteration: quant blocks read, output written.
	BytesRead    int64 `json:"bytes_read"`
	BytesWritten int64 `json:"bytes_written"`
	// FLOPs per iteration, for families where that is meaningful (0 otherwise).
	FLOPs int64 `json:"flops,omitempty"`
	// Compression is the format's storage relative to F32 (4 bytes per element
	// ÷ the format's bytes per element); 0 where it does not apply.
	Compression float64 `json:"compression,omitempty"`
	// Weights is how the weight matrix of a family that has one (matvec)
	// was held: mode "rotate" (Copies byte-identical copies, one per launch
	// in turn, so that the L2 does not serve them) or "reuse" (one copy).
	// BytesRead counts one copy. nil for families without weights.
	Weights *backend.Weights `json:"weights,omitempty"`
	// Tensors is how many of a GGUF file's tensors the benchmark stands
	// for (run --gguf measures each type and shape once; gguf.go).
	Tensors int `json:"tensors,omitempty"`

	// Metrics are a scenario suite's own figures (memory, quantize,
	// attention): bytes per token, hit rate, peak memory, speedup. nil for
	// the kernel suites.
	Metrics []suite.Metric `json:"metrics,omitempty"`

	Warmup  int             `json:"warmup"`     // iterations run before measuring
	Samples []time.Duration `json:"samples_ns"` // one per measured iteration
	// LaunchesPerSample is set when each sample is the mean of this many
	// back-to-back launches (forgebench run --launches-per-sample); 0:
	// one launch per sample.
	LaunchesPerSample int   `json:"launches_per_sample,omitempty"`
	Stats             Stats `json:"stats"`
	// Clocks are the GPU's clocks while the benchmark ran (forgebench run
	// reads them in the background, --clock-interval); nil where none
	// were read.
	Clocks *ClockStats `json:"clocks,omitempty"`
}

// Stats summarises Samples. Throughputs use the median time per iteration
// (P50), as the tables headline it and compare tests it (Summarize).
type Stats struct {
	N       int           `json:"n"`
	Min     time.Duration `json:"min_ns"`
	Mean    time.Duration `json:"mean_ns"`
	Max     time.Duration `json:"max_ns"`
	P50     time.Duration `json:"p50_ns"`
	P95     time.Duration `json:"p95_ns"`
	P99     time.Duration `json:"p99_ns"`
	StdDev  time.Duration `json:"stddev_ns"`
	ElemsPS float64       `json:"elems_per_s"`
	GBps    float64       `json:"gbps"`             // (BytesRead+BytesWritten)/median/1e9
	GFLOPS  float64       `json:"gflops,omitempty"` // FLOPs/median/1e9, when FLOPs > 0
	PctCopy float64       `json:"pct_copy,omitempty"`
	// P50Lo and P50Hi bound the 95% confidence interval of the median
	// (benchmath.AssumeNothing, from order statistics); both 0 when there
	// are too few samples for one (fewer than 6).
	P50Lo time.Duration `json:"p50_ci_lo_ns,omitempty"`
	P50Hi time.Duration `json:"p50_ci_hi_ns,omitempty"`
}
