package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/rocmforge/forge/runtime/gguf"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// Skipped is a GGUF tensor GGUFTargets makes no benchmark of, and why.
type Skipped struct {
	Tensor string
	Type   string // ggml type name
	Reason string
}

// String is the tensor, its type and the reason, the name shown through
// Printable (it is the file's).
func (s Skipped) String() string {
	return fmt.Sprintf("%s (%s): %s", Printable(s.Tensor), s.Type, Printable(s.Reason))
}

// specOf looks up forge's spec for a tensor's ggml type id; tests replace
// it with one that claims an id with the wrong geometry.
var specOf = (*gguf.Tensor).Format

// TensorFormat is forge's spec for tensor t's type when that spec can
// decode t (SpecFits); otherwise it is nil and the error says why: no
// spec for the type id, or one whose blocks are not the type's.
func TensorFormat(t *gguf.Tensor) (*formats.Format, error) { return FormatFor(t, specOf) }

// FormatFor is TensorFormat with the spec looked up by lookup (normally
// (*gguf.Tensor).Format).
func FormatFor(t *gguf.Tensor, lookup func(*gguf.Tensor) (*formats.Format, bool)) (*formats.Format, error) {
	f, ok := lookup(t)
	if !ok {
		return nil, fmt.Errorf("no forge spec for ggml type %d", uint32(t.Type))
	}
	if err := SpecFits(f, t); err != nil {
		return nil, err
	}
	return f, nil
}

// SpecFits reports whether spec f can decode tensor t: the reader sized
// and placed t's data by ggml's geometry of t's type id, so a spec that
// claims the id with other blocks (elements or bytes per block) would read
// every block wrong, and t must hold whole blocks.
func SpecFits(f *formats.Format, t *gguf.Tensor) error {
	tt, ok := t.Type.Traits()
	if !ok {
		return fmt.Errorf("ggml type %s (id %d) has no block geometry", t.TypeName(), uint32(t.Type))
	}
	if f.BlockElems != tt.BlockElems || f.BlockBytes != tt.BlockBytes {
		return fmt.Errorf("forge's spec %s has %d-element blocks of %d bytes, ggml's type %d has %d-element blocks of %d bytes",
			f.Name, f.BlockElems, f.BlockBytes, uint32(t.Type), tt.BlockElems, tt.BlockBytes)
	}
	if n := t.Elements(); f.BlockElems <= 0 || n%int64(f.BlockElems) != 0 || t.Bytes() != n/int64(f.BlockElems)*int64(f.BlockBytes) {
		return fmt.Errorf("%d elements in %d bytes are not whole %d-element blocks of %d bytes of %s", n, t.Bytes(), f.BlockElems, f.BlockBytes, f.Name)
	}
	return nil
}

// GGUFTargets returns one benchmark of kernel ("dequant_f32") per tensor
// of f whose type forge has a spec (that fits it: TensorFormat) and a
// registered suite for: the tensor's real bytes at its shape (Dims,
// ggml's order), named "gguf/<tensor>/<kernel>", the tensor's name with
// spaces as "_" and control bytes escaped (Printable), so that the name
// is safe in every output and survives JSON. The data is read when the
// benchmark runs. Tensors of other types, and empty ones, are listed as
// skipped.
func GGUFTargets(f *gguf.File, kernel string) ([]Target, []Skipped) {
	var ts []Target
	var skipped []Skipped
	for i := range f.Tensors {
		t := &f.Tensors[i]
		format, err := TensorFormat(t)
		if err != nil {
			skipped = append(skipped, Skipped{t.Name, t.TypeName(), err.Error()})
			continue
		}
		s, ok := suite.ByName(kernel + "/" + format.Name)
		if !ok {
			skipped = append(skipped, Skipped{t.Name, t.TypeName(), "no registered suite " + kernel + "/" + format.Name})
			continue
		}
		if t.Elements() == 0 {
			skipped = append(skipped, Skipped{t.Name, t.TypeName(), "no elements"})
			continue
		}
		shape := make([]int, len(t.Dims))
		for j, d := range t.Dims {
			shape[j] = int(d)
		}
		ts = append(ts, Target{
			Suite: s,
			Name:  "gguf/" + Printable(strings.ReplaceAll(t.Name, " ", "_")) + "/" + kernel,
			Shape: shape,
			Input: func() ([]byte, error) { return f.TensorData(t) },
		})
	}
	return ts, skipped
}

// DefaultPrompts are the prompt lengths (tokens; matmul batches) a --gguf
// run times a model's prefill at, unless run --prompt says otherwise.
var DefaultPrompts = []int{128, 512}

// MaxPrompt bounds a prompt length (--prompt).
const MaxPrompt = 1 << 16

// ParsePrompts reads --prompt values (each a comma-separated list of
// prompt lengths, 1 to MaxPrompt tokens): sorted, without repeats, at
// most 16; nil values give DefaultPrompts.
func ParsePrompts(values []string) ([]int, error) {
	var out []int
	for _, v := range values {
		for _, one := range strings.Split(v, ",") {
			one = strings.TrimSpace(one)
			if one == "" {
				continue
			}
			n, err := strconv.Atoi(one)
			if err != nil || n < 1 || n > MaxPrompt {
				return nil, fmt.Errorf("--prompt %q: want prompt lengths of 1 to %d tokens, comma-separated, e.g. 128,512", one, MaxPrompt)
			}
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	if len(values) > 0 && len(out) == 0 {
		return nil, fmt.Errorf("--prompt %q: no prompt length given (e.g. 128,512)", strings.Join(values, ","))
	}
	if len(out) > 16 {
		return nil, fmt.Errorf("--prompt: %d prompt lengths, at most 16", len(out))
	}
	if out == nil {
		return slices.Clone(DefaultPrompts), nil
	}
	slices.Sort(out)
	return out, nil
}

// Model identifies the GGUF file a --gguf run measured (Meta.Model) and
// how its tensors were grouped.
type Model struct {
	Path         string `json:"path"`                   // as given
	Size         int64  `json:"size"`                   // bytes
	SHA256       string `json:"sha256,omitempty"`       // of the whole file, hex
	Name         string `json:"name,omitempty"`         // general.name
	Architecture string `json:"architecture,omitempty"` // general.architecture
	// FileType is general.file_type as llama.cpp names it ("Q4_K_M"), or
	// its number where the name is unknown.
	FileType string       `json:"file_type,omitempty"`
	Tensors  int          `json:"tensors"`           // every tensor of the file
	Skipped  int          `json:"skipped,omitempty"` // tensors no benchmark stands for (no forge spec, empty)
	Prompts  []int        `json:"prompts,omitempty"` // the prompt lengths prefill was timed at
	Groups   []ModelGroup `json:"groups,omitempty"`
}

// ModelGroup is a GGUF file's tensors of one type and shape, measured
// once: dequant_f32 (on the first tensor's bytes), and for a 2-D weight
// matvec (decode) and matmul at each prompt length (prefill).
type ModelGroup struct {
	// Name is "<type>/<rows>x<cols>" (the outermost dimension first, as
	// --shape and the suites name shapes; gguf ls shows ggml's order,
	// the row length first).
	Name  string  `json:"name"`
	Type  string  `json:"type"`  // ggml type name
	Dims  []int64 `json:"dims"`  // ggml's order (gguf.Tensor.Dims)
	Bytes int64   `json:"bytes"` // each tensor's
	// Tensors are the names of the group's tensors, in file order
	// (escaped as Printable).
	Tensors []string `json:"tensors"`
	// Decode is how many of them a token's decode multiplies by (a matvec
	// each): every 2-D weight but the embedding lookups. Prefill is how
	// many multiply a whole prompt (a matmul each): those but the output
	// head, which a prompt needs for its last token only (as llama.cpp
	// computes), a matvec.
	Decode  int `json:"decode,omitempty"`
	Prefill int `json:"prefill,omitempty"`
}

// GGUFModel is the plan of a --gguf run: the file's identity, its
// benchmarks (Targets, one set per group of tensors of one type and
// shape), the tensors left out (Skipped), and, after the run, the model's
// figures (Finish).
type GGUFModel struct {
	Info    *Model
	Targets []Target
	Skipped []Skipped
	// stands maps a target's name to the tensors it stands for
	// (Result.Tensors), group to its group's index.
	stands map[string]int
	group  map[string]int
}

// The kernels of a group: dequant always, matvec for decode (matvec_x8
// too where the format has an integer form), matmul per prompt length.
const (
	ggufDequant = "dequant_f32"
	ggufMatVec  = "matvec_f32"
	ggufMatVec8 = "matvec_x8"
	ggufMatMul  = "matmul_f32"
)

// NewGGUFModel plans the run of model file f (opened from path): its
// tensors grouped by (type, shape) in order of first appearance, each
// group measured once, at the prompt lengths prompts (nil:
// DefaultPrompts), and the file identified (Model: size, sha256 streamed
// from path, general.name, general.architecture, general.file_type).
// Tensors of types forge has no spec for, or no suite, and empty ones,
// are Skipped. logf, when set, hears of a long hash.
func NewGGUFModel(f *gguf.File, path string, prompts []int, logf func(format string, args ...any)) (*GGUFModel, error) {
	if prompts == nil {
		prompts = DefaultPrompts
	}
	info, err := modelIdentity(f, path, logf)
	if err != nil {
		return nil, err
	}
	info.Prompts = slices.Clone(prompts)
	m := &GGUFModel{Info: info, stands: map[string]int{}, group: map[string]int{}}
	_, hasOutput := f.Tensor("output.weight")
	type key struct {
		typ  gguf.GGMLType
		dims string
	}
	index := map[key]int{}
	var firsts []*gguf.Tensor // each group's first tensor: its data is dequant's input
	var specs []*formats.Format
	for i := range f.Tensors {
		t := &f.Tensors[i]
		format, err := TensorFormat(t)
		if err != nil {
			m.Skipped = append(m.Skipped, Skipped{t.Name, t.TypeName(), err.Error()})
			continue
		}
		if _, ok := suite.ByName(ggufDequant + "/" + format.Name); !ok {
			m.Skipped = append(m.Skipped, Skipped{t.Name, t.TypeName(), "no registered suite " + ggufDequant + "/" + format.Name})
			continue
		}
		if t.Elements() == 0 {
			m.Skipped = append(m.Skipped, Skipped{t.Name, t.TypeName(), "no elements"})
			continue
		}
		k := key{t.Type, fmt.Sprint(t.Dims)}
		gi, ok := index[k]
		if !ok {
			gi = len(info.Groups)
			index[k] = gi
			info.Groups = append(info.Groups, ModelGroup{
				Name: t.TypeName() + "/" + rowsFirst(t.Dims), Type: t.TypeName(), Dims: slices.Clone(t.Dims), Bytes: t.Bytes(),
			})
			firsts = append(firsts, t)
			specs = append(specs, format)
		}
		g := &info.Groups[gi]
		g.Tensors = append(g.Tensors, Printable(t.Name))
		switch tensorRole(t, hasOutput, format) {
		case roleLinear:
			g.Decode++
			g.Prefill++
		case roleHead:
			g.Decode++
		}
	}
	info.Skipped = len(m.Skipped)
	for gi := range info.Groups {
		g, t := &info.Groups[gi], firsts[gi]
		add := func(kernel, suffix string, shape []int, tensors int, input func() ([]byte, error)) {
			s, ok := suite.ByName(kernel + "/" + specs[gi].Name)
			if !ok {
				return
			}
			name := "gguf/" + g.Name + "/" + kernel + suffix
			m.Targets = append(m.Targets, Target{Suite: s, Name: name, Shape: shape, Input: input})
			m.stands[name] = tensors
			m.group[name] = gi
		}
		shape := make([]int, len(t.Dims))
		for j, d := range t.Dims {
			shape[j] = int(d)
		}
		add(ggufDequant, "", shape, len(g.Tensors), func() ([]byte, error) { return f.TensorData(t) })
		if g.Decode > 0 {
			rows, cols := int(t.Dims[1]), int(t.Dims[0])
			add(ggufMatVec, "", []int{rows, cols}, g.Decode, nil)
			add(ggufMatVec8, "", []int{rows, cols}, g.Decode, nil)
			if g.Prefill > 0 {
				for _, n := range prompts {
					add(ggufMatMul, fmt.Sprintf("/batch%d", n), []int{rows, cols, n}, g.Prefill, nil)
				}
			}
		}
	}
	return m, nil
}

// rowsFirst spells ggml dims outermost first: [4096 14336] is "14336x4096".
func rowsFirst(dims []int64) string {
	d := make([]int, len(dims))
	for i, x := range dims {
		d[len(dims)-1-i] = int(x)
	}
	return suite.ShapeName(d...)
}

type role int

const (
	roleOther  role = iota // not a matrix a token multiplies by: dequant only
	roleLinear             // a weight every token multiplies by
	roleHead               // the output head: every generated token, a prompt's last
	roleLookup             // an embedding table: rows looked up, not multiplied
)

// tensorRole is what tensor t does in a forward pass, by GGUF's tensor
// names: output.weight is the head, token_embd.weight a lookup (the head
// too where the file has no output.weight: tied embeddings), any other
// "*_embd.weight" and token_types.weight lookups, and every other 2-D
// tensor of whole rows of blocks a weight matrix; tensors of other ranks
// (norms, biases; MoE experts, of which a token uses a few) are
// dequantized only.
func tensorRole(t *gguf.Tensor, hasOutput bool, f *formats.Format) role {
	if len(t.Dims) != 2 || t.Dims[0]%int64(f.BlockElems) != 0 {
		return roleOther
	}
	switch {
	case t.Name == "output.weight":
		return roleHead
	case t.Name == "token_embd.weight" && !hasOutput:
		return roleHead
	case strings.HasSuffix(t.Name, "_embd.weight"), t.Name == "token_types.weight":
		return roleLookup
	}
	return roleLinear
}

// hashNote is the file size from which NewGGUFModel says it is hashing.
const hashNote = 1 << 30

// modelIdentity identifies the GGUF file at path, f as parsed.
func modelIdentity(f *gguf.File, path string, logf func(format string, args ...any)) (*Model, error) {
	m := &Model{Path: path, Size: f.Size, Tensors: len(f.Tensors)}
	str := func(key string) string {
		v, ok := f.KV(key)
		if !ok || v.Type() != gguf.TypeString {
			return ""
		}
		return Printable(v.String())
	}
	m.Name, m.Architecture = str("general.name"), str("general.architecture")
	if v, ok := f.KV("general.file_type"); ok {
		if n, ok := v.Uint64(); ok {
			m.FileType = FileTypeName(n)
		}
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if logf != nil && f.Size >= hashNote {
		logf("%s: sha256 of %.2f GiB", Printable(path), float64(f.Size)/(1<<30))
	}
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return nil, fmt.Errorf("%s: sha256: %w", path, err)
	}
	m.SHA256 = hex.EncodeToString(h.Sum(nil))
	return m, nil
}

// fileTypes are llama.cpp's llama_ftype names (LLAMA_FTYPE_MOSTLY_*),
// by number.
var fileTypes = map[uint64]string{
	0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1",
	10: "Q2_K", 11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M",
	16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S",
	22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M",
	28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0",
	37: "TQ2_0", 38: "MXFP4_MOE", 39: "NVFP4", 40: "Q1_0",
}

// FileTypeName spells general.file_type as llama.cpp does ("Q4_K_M"), or
// "file type N" for a number it does not know.
func FileTypeName(n uint64) string {
	if s, ok := fileTypes[n]; ok {
		return s
	}
	return fmt.Sprintf("file type %d", n)
}

// Finish completes a run of m's targets: each result records the tensors
// it stands for (Result.Tensors), the run records the file (Meta.Model),
// and figures are appended (Results of Suite "gguf" with Metrics alone):
// one per group ("gguf/groups/<group>": its tensors, bytes, the time to
// dequantize them all, its decode time per token and share, its prefill
// time per prompt) and the model's totals ("gguf/model/total"). The
// totals count the weight matrices alone (ModelNote says so): decode per
// token is Σ over groups of Decode × the group's matvec median (the faster
// of matvec_f32 and matvec_x8), prefill of a prompt of n tokens Σ Prefill
// × matmul's median at batch n plus the head's matvec. A total is given
// only when every group it counts was measured (a filter, a shard or an
// interruption can leave some out). A nil m does nothing.
func (m *GGUFModel) Finish(run *Run) {
	if m == nil || run == nil {
		return
	}
	run.Meta.Model = m.Info
	groups := m.Info.Groups
	type times struct {
		dequant, decode float64 // seconds, one tensor's; 0: not measured
		prefill         map[int]float64
	}
	t := make([]times, len(groups))
	for i := range t {
		t[i].prefill = map[int]float64{}
	}
	for i := range run.Results {
		r := &run.Results[i]
		gi, ok := m.group[r.Name]
		if !ok {
			continue
		}
		r.Tensors = m.stands[r.Name]
		if r.Stats.N == 0 || r.Stats.P50 <= 0 {
			continue
		}
		sec := r.Stats.P50.Seconds()
		switch r.Kernel {
		case ggufDequant:
			t[gi].dequant = sec
		case ggufMatVec, ggufMatVec8:
			if t[gi].decode == 0 || sec < t[gi].decode {
				t[gi].decode = sec
			}
		case ggufMatMul:
			if len(r.Shape) == 3 {
				t[gi].prefill[r.Shape[2]] = sec
			}
		}
	}

	// The totals, each only where every group it counts was measured.
	type total struct {
		sec      float64
		complete bool
	}
	dequant, decode := total{complete: true}, total{complete: true}
	prefill := map[int]*total{}
	for _, n := range m.Info.Prompts {
		prefill[n] = &total{complete: true}
	}
	var weightBytes, measured int64
	for gi, g := range groups {
		count := func(tot *total, sec float64, n int) {
			if n == 0 {
				return
			}
			if sec == 0 {
				tot.complete = false
			}
			tot.sec += float64(n) * sec
		}
		count(&dequant, t[gi].dequant, len(g.Tensors))
		count(&decode, t[gi].decode, g.Decode)
		weightBytes += int64(g.Decode) * g.Bytes
		measured += int64(len(g.Tensors))
		for _, n := range m.Info.Prompts {
			count(prefill[n], t[gi].prefill[n], g.Prefill)
			count(prefill[n], t[gi].decode, g.Decode-g.Prefill) // the head: the last token's logits
		}
	}

	var figs []Result
	fig := func(name string, ms []suite.Metric) Result {
		return Result{Name: name, Suite: "gguf", Family: "gguf", Metrics: ms}
	}
	for gi, g := range groups {
		ms := []suite.Metric{{Name: "tensors", Value: float64(len(g.Tensors))}, {Name: "bytes", Value: float64(int64(len(g.Tensors)) * g.Bytes), Unit: "B"}}
		if t[gi].dequant > 0 {
			ms = append(ms, suite.Metric{Name: "dequant_all", Value: float64(len(g.Tensors)) * t[gi].dequant, Unit: "s"})
		}
		if g.Decode > 0 && t[gi].decode > 0 {
			ms = append(ms, suite.Metric{Name: "decode", Value: float64(g.Decode) * t[gi].decode, Unit: "s"})
			if decode.complete && decode.sec > 0 {
				ms = append(ms, suite.Metric{Name: "decode_share", Value: 100 * float64(g.Decode) * t[gi].decode / decode.sec, Unit: "%"})
			}
		}
		for _, n := range m.Info.Prompts {
			if sec := t[gi].prefill[n]; g.Prefill > 0 && sec > 0 {
				ms = append(ms, suite.Metric{Name: fmt.Sprintf("prefill_%d", n), Value: float64(g.Prefill) * sec, Unit: "s"})
			}
		}
		if len(ms) > 2 { // something of it was measured
			figs = append(figs, fig("gguf/groups/"+g.Name, ms))
		}
	}
	complete := dequant.complete && dequant.sec > 0 || decode.complete && decode.sec > 0
	for _, p := range prefill {
		complete = complete || p.complete && p.sec > 0
	}
	if len(figs) == 0 {
		return
	}
	if !complete { // the groups' figures alone: no total is whole
		run.Results = append(run.Results, figs...)
		return
	}
	ms := []suite.Metric{{Name: "tensors", Value: float64(measured)}}
	if m.Info.Skipped > 0 {
		ms = append(ms, suite.Metric{Name: "skipped", Value: float64(m.Info.Skipped)})
	}
	if weightBytes > 0 {
		ms = append(ms, suite.Metric{Name: "weight_bytes", Value: float64(weightBytes), Unit: "B"})
	}
	if dequant.complete && dequant.sec > 0 {
		ms = append(ms, suite.Metric{Name: "dequant_all", Value: dequant.sec, Unit: "s"})
	}
	if decode.complete && decode.sec > 0 {
		ms = append(ms,
			suite.Metric{Name: "decode_per_token", Value: decode.sec, Unit: "s"},
			suite.Metric{Name: "decode_tokens_per_s", Value: 1 / decode.sec, Unit: "1/s"},
			suite.Metric{Name: "decode_weights_bw", Value: float64(weightBytes) / decode.sec, Unit: "B/s"})
	}
	for _, n := range m.Info.Prompts {
		if p := prefill[n]; p.complete && p.sec > 0 {
			ms = append(ms,
				suite.Metric{Name: fmt.Sprintf("prefill_%d", n), Value: p.sec, Unit: "s"},
				suite.Metric{Name: fmt.Sprintf("prefill_%d_tokens_per_s", n), Value: float64(n) / p.sec, Unit: "1/s"})
		}
	}
	figs = append(figs, fig("gguf/model/total", ms))
	run.Results = append(run.Results, figs...)
}

// ModelNote is what a run's table says of the model a --gguf run
// measured: the file's identity and what its totals count.
func ModelNote(m *Model) []string {
	if m == nil {
		return nil
	}
	var b strings.Builder
	b.WriteString("model: ")
	if m.Name != "" {
		b.WriteString(m.Name)
	}
	var what []string
	for _, s := range []string{m.Architecture, m.FileType} {
		if s != "" {
			what = append(what, s)
		}
	}
	if len(what) > 0 {
		if m.Name != "" {
			b.WriteString(" ")
		}
		b.WriteString("(" + strings.Join(what, ", ") + ")")
	}
	if m.Name != "" || len(what) > 0 {
		b.WriteString(", ")
	}
	fmt.Fprintf(&b, "file %s, %s", m.Path, MetricCell(suite.Metric{Value: float64(m.Size), Unit: "B"}))
	if m.Size >= 1<<10 {
		fmt.Fprintf(&b, " (%d bytes)", m.Size)
	}
	if m.SHA256 != "" {
		fmt.Fprintf(&b, ", sha256 %s", m.SHA256)
	}
	lines := []string{b.String()}
	line := fmt.Sprintf("model: %d tensors in %d groups of one type and shape, each group measured once", m.Tensors-m.Skipped, len(m.Groups))
	if m.Skipped > 0 {
		line += fmt.Sprintf(" (%d tensors skipped: no forge spec or empty; the totals leave them out)", m.Skipped)
	}
	lines = append(lines, line,
		"model: the gguf/model totals count the weight matrices alone (decode: a matvec per weight per token; prefill: a matmul per weight per prompt),"+
			" not attention, norms, activations or the KV cache: a bound on time per token, not an end-to-end figure; a total is left out where a group it counts was not measured")
	return lines
}
