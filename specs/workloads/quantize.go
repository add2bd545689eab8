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
}

// Model is a model shape: Layers weight matrices of Rows × Cols.
type Model struct {
	Name   string // "7B"
	Layers int
	Rows   int
	Cols   int
}
