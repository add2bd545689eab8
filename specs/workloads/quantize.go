package workloads

// Quantize measures the process's peak memory while quantizing
// model-shaped synthetic weights with the reference quantizers, in
// streaming mode (one layer in memory at a time) and batch mode (all
// layers at once).
type Quantize struct {
	Name        string
	Doc         string
	Models      []Model
	QuickModels []string // the model names a quick run keeps
	Formats     []string // format names (specs/formats): "Q2_K", "Q4_K", "Q8_0"
	// TargetStreamingRatio is the most the streaming peak may be of the
	// batch peak, for the models it applies to (TargetModels).
	TargetStreamingRatio float64
	TargetModels         []string
	// The layer-count sweep: SweepFormat at the layer shape of each model
	// named in SweepModels (QuickSweepModels in a quick run), at each
	// count of SweepLayers, streaming and batch. Streaming holds one layer,
	// so its peak should not move with the count (TargetSweepSpread: the
	// most, in percent of the smallest, that it may spread), while the
	// batch peak grows with it.
	SweepModels       []string
	QuickSweepModels  []string
	SweepLayers       []int
	SweepFormat       string
	TargetSweepSpread float64 // percent
}

// Model is a model shape: Layers weight matrices of Rows × Cols.
type Model struct {
	Name   string // "7B"
	Layers int
	Rows   int
	Cols   int // elements per row: a whole number of every format's blocks
}

// QuantizeModels is the quantization memory suite: 100M, 600M and
// 7B shapes (one matrix shape per layer, the largest of the model's) to
// INT2-, INT4- and INT8-class formats.
var QuantizeModels = register(Quantize{
	Name: "quantize/models",
	Doc:  "peak resident memory of quantizing model-shaped weights (reference quantizers, each case in a fresh process): streaming one layer at a time against batch",
	Models: []Model{
		{Name: "100M", Layers: 12, Rows: 768, Cols: 3072},
		{Name: "600M", Layers: 24, Rows: 1024, Cols: 4096},
		{Name: "7B", Layers: 32, Rows: 4096, Cols: 11008},
	},
	QuickModels:          []string{"100M"},
	Formats:              []string{"Q2_K", "Q4_K", "Q8_0"},
	TargetStreamingRatio: 0.5,
	TargetModels:         []string{"600M", "7B"},
	SweepModels:          []string{"100M", "7B"},
	QuickSweepModels:     []string{"100M"},
	SweepLayers:          []int{4, 8, 16, 32},
	SweepFormat:          "Q8_0",
	TargetSweepSpread:    5,
})
