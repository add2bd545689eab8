package load

import (
	"fmt"
	"go/types"
	"sort"

	"golang.org/x/tools/go/packages"

	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/gen/translate"
)

// formats collects `var X = register(Meta{...}, rows)` from specs/formats.
func (l *loader) formats(p *packages.Package) []*ir.Format {
	sizes := types.SizesFor("gc", "amd64")
	var out []*ir.Format
	names, ids := map[string]*ir.Format{}, map[int]*ir.Format{}
	for _, r := range l.registrations(p) {
		if len(r.call.Args) != 2 {
			l.errorf(r.call.Pos(), "format %s: register takes (Meta{...}, row loop)", r.name)
			continue
		}
		v, ok := l.value(p.TypesInfo, r.call.Args[0], "format "+r.name)
		meta, isStruct := v.(*structLit)
		if !ok || !isStruct {
			continue
		}
		f := &ir.Format{
			Name:       l.str(meta, "Name"),
			GGMLType:   l.integer(meta, "GGMLType"),
			BlockElems: l.integer(meta, "BlockElems"),
			BlockBytes: l.integer(meta, "BlockBytes"),
			Doc:        l.str(meta, "Doc"),
			GoVar:      r.name,
			File:       r.file,
			Pos:        l.pos(r.call.Pos()),
		}
		if r.inst.TypeArgs == nil || r.inst.TypeArgs.Len() == 0 {
			l.errorf(r.call.Pos(), "format %s: cannot tell the block type of this register call", r.name)
			continue
		}
		named, _ := r.inst.TypeArgs.At(0).(*types.Named)
		if named == nil {
			l.errorf(r.call.Pos(), "format %s: the block type must be a named struct", r.name)
			continue
		}
		f.BlockType = named.Obj().Name()
		if st, ok := named.Underlying().(*types.Struct); !ok {
			l.errorf(named.Obj().Pos(), "format %s: block type %s is not a struct", f.Name, f.BlockType)
		} else if size := sizes.Sizeof(st); size != int64(f.BlockBytes) {
			l.errorf(named.Obj().Pos(), "format %s: block struct %s is %d bytes, but the spec declares BlockBytes %d",
				f.Name, f.BlockType, size, f.BlockBytes)
		}
		l.checkFormat(f, meta)
		if prev := names[f.Name]; prev != nil && f.Name != "" {
			l.errorf(meta.at("Name").Pos(), "format name %s is also used by %s (%s)", f.Name, prev.GoVar, prev.Pos)
		}
		names[f.Name] = f
		if f.GGMLType != -1 {
			if prev := ids[f.GGMLType]; prev != nil {
				l.errorf(meta.at("GGMLType").Pos(), "ggml type %d of %s is also used by %s (%s)", f.GGMLType, f.Name, prev.Name, prev.Pos)
			}
			ids[f.GGMLType] = f
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		l.errs = append(l.errs, l.errAtPkg(p, "no formats registered in "+FormatsDir))
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a.GGMLType == -1) != (b.GGMLType == -1) {
			return b.GGMLType == -1
		}
		if a.GGMLType != b.GGMLType {
			return a.GGMLType < b.GGMLType
		}
		return a.Name < b.Name
	})
	return out
}

func (l *loader) checkFormat(f *ir.Format, meta *structLit) {
	if !validName(f.Name) {
		l.errorf(meta.at("Name").Pos(), "format %s: Name %q must be upper-case letters, digits and underscores, starting with a letter", f.GoVar, f.Name)
	}
	if f.GGMLType < -1 {
		l.errorf(meta.at("GGMLType").Pos(), "format %s: GGMLType %d (use NoGGMLType for none)", f.Name, f.GGMLType)
	}
	// Scalar formats (F32, F16, BF16) are element-wise; every quantized
	// block must fill whole 32-lane groups of the kernels.
	if f.BlockElems != 1 && (f.BlockElems <= 0 || f.BlockElems%32 != 0) {
		l.errorf(meta.at("BlockElems").Pos(), "format %s: BlockElems %d must be 1 (a scalar format) or a positive multiple of 32", f.Name, f.BlockElems)
	}
	if f.BlockBytes <= 0 {
		l.errorf(meta.at("BlockBytes").Pos(), "format %s: BlockBytes %d must be positive", f.Name, f.BlockBytes)
	}
	if f.Doc == "" {
		l.errorf(meta.node.Pos(), "format %s: Doc is empty; give one line saying what the format is", f.Name)
	}
}

func validName(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// targets collects `var X = register(Target{...})` from specs/targets.
func (l *loader) targets(p *packages.Package) []*ir.Target {
	var out []*ir.Target
	names := map[string]*ir.Target{}
	var defaults []*ir.Target
	for _, r := range l.registrations(p) {
		v, ok := l.value(p.TypesInfo, r.call.Args[0], "target "+r.name)
		s, isStruct := v.(*structLit)
		if !ok || !isStruct {
			continue
		}
		dq := l.sub(s, "Dequant")
		mv := l.sub(s, "MatVec")
		mm := l.sub(s, "MatMul")
		mvs := l.sub(s, "MatVecSpace")
		at := l.sub(s, "Attention")
		t := &ir.Target{
			Name:         l.str(s, "Name"),
			Vendor:       l.str(s, "Vendor"),
			WaveSize:     l.integer(s, "WaveSize"),
			Default:      l.boolean(s, "Default"),
			CompileFlags: l.strings(s, "CompileFlags"),
			Doc:          l.str(s, "Doc"),
			GoVar:        r.name,
			File:         r.file,
			Pos:          l.pos(r.call.Pos()),
			Dequant: ir.DequantTuning{
				ThreadsPerBlock:  l.integer(dq, "ThreadsPerBlock"),
				VectorsPerThread: l.integer(dq, "VectorsPerThread"),
			},
			MatVec: ir.MatVecTuning{
				ThreadsPerBlock: l.integer(mv, "ThreadsPerBlock"),
				RowsPerBlock:    l.integer(mv, "RowsPerBlock"),
				Chunk:           l.integer(mv, "Chunk"),
			},
			MatMul: ir.MatMulTuning{
				ThreadsPerBlock: l.integer(mm, "ThreadsPerBlock"),
				TileRows:        l.integer(mm, "TileRows"),
				TileCols:        l.integer(mm, "TileCols"),
				TileK:           l.integer(mm, "TileK"),
				ThreadRows:      l.integer(mm, "ThreadRows"),
				WarpRows:        l.integer(mm, "WarpRows"),
			},
			Attention: ir.AttentionTuning{
				ThreadsPerBlock: l.integer(at, "ThreadsPerBlock"),
				QueryRows:       l.integer(at, "QueryRows"),
				KeysPerTile:     l.integer(at, "KeysPerTile"),
				WmmaWarps:       l.integer(at, "WmmaWarps"),
				WmmaKeysPerTile: l.integer(at, "WmmaKeysPerTile"),
				MmaWarps:        l.integer(at, "MmaWarps"),
				MmaKeysPerTile:  l.integer(at, "MmaKeysPerTile"),
			},
			MatVecSpace: ir.MatVecSpace{
				ThreadsPerBlock: l.ints(mvs, "ThreadsPerBlock"),
				RowsPerBlock:    l.ints(mvs, "RowsPerBlock"),
				Chunk:           l.ints(mvs, "Chunk"),
			},
		}
		switch t.Vendor {
		case "amd":
			t.Compiler = "hipcc"
		case "nvidia":
			t.Compiler = "nvcc"
		default:
			l.errorf(s.at("Vendor").Pos(), "target %s: Vendor %q must be \"amd\" or \"nvidia\"", t.Name, t.Vendor)
		}
		if t.Name == "" {
			l.errorf(s.at("Name").Pos(), "target %s: Name is empty", r.name)
		}
		if prev := names[t.Name]; prev != nil {
			l.errorf(s.at("Name").Pos(), "target name %s is also used by %s (%s)", t.Name, prev.GoVar, prev.Pos)
		}
		names[t.Name] = t
		if t.WaveSize != 32 && t.WaveSize != 64 {
			l.errorf(s.at("WaveSize").Pos(), "target %s: WaveSize %d must be 32 or 64", t.Name, t.WaveSize)
		}
		if tpb := t.Dequant.ThreadsPerBlock; tpb <= 0 || tpb > 1024 || t.WaveSize > 0 && tpb%t.WaveSize != 0 {
			l.errorf(dq.at("ThreadsPerBlock").Pos(), "target %s: Dequant.ThreadsPerBlock %d must be a multiple of the wave size %d, at most 1024",
				t.Name, tpb, t.WaveSize)
		}
		if bpt := t.Dequant.VectorsPerThread; bpt < 1 || bpt > 16 {
			l.errorf(dq.at("VectorsPerThread").Pos(), "target %s: Dequant.VectorsPerThread %d must be in [1, 16]", t.Name, bpt)
		}
		if tpb := t.MatVec.ThreadsPerBlock; tpb <= 0 || tpb > 1024 || t.WaveSize > 0 && tpb%t.WaveSize != 0 {
			l.errorf(mv.at("ThreadsPerBlock").Pos(), "target %s: MatVec.ThreadsPerBlock %d must be a multiple of the wave size %d, at most 1024",
				t.Name, tpb, t.WaveSize)
		}
		if rpb := t.MatVec.RowsPerBlock; rpb < 1 || rpb > 16 {
			l.errorf(mv.at("RowsPerBlock").Pos(), "target %s: MatVec.RowsPerBlock %d must be in [1, 16]", t.Name, rpb)
		}
		if c := t.MatVec.Chunk; c < 4 || c > 64 || c&(c-1) != 0 {
			l.errorf(mv.at("Chunk").Pos(), "target %s: MatVec.Chunk %d must be a power of two in [4, 64]", t.Name, c)
		}
		for _, p := range t.MatMul.Problems(t.Vendor, t.WaveSize) {
			l.errorf(mm.at(p.Field).Pos(), "target %s: %s", t.Name, p.Msg)
		}
		if l.attnLits == nil {
			l.attnLits = map[*ir.Target]*structLit{}
		}
		l.attnLits[t] = at // checked by attention, which knows the head dimensions
		l.checkSpace(t.Name, mvs, "ThreadsPerBlock", t.MatVecSpace.ThreadsPerBlock, func(v int) string {
			if v <= 0 || v > 1024 || t.WaveSize > 0 && v%t.WaveSize != 0 {
				return fmt.Sprintf("must be a multiple of the wave size %d, at most 1024", t.WaveSize)
			}
			return ""
		})
		l.checkSpace(t.Name, mvs, "RowsPerBlock", t.MatVecSpace.RowsPerBlock, func(v int) string {
			if v < 1 || v > 16 {
				return "must be in [1, 16]"
			}
			return ""
		})
		l.checkSpace(t.Name, mvs, "Chunk", t.MatVecSpace.Chunk, func(v int) string {
			if v < 4 || v > 64 || v&(v-1) != 0 {
				return "must be a power of two in [4, 64]"
			}
			return ""
		})
		if t.Default {
			defaults = append(defaults, t)
		}
		out = append(out, t)
	}
	switch {
	case len(out) == 0:
		l.errs = append(l.errs, l.errAtPkg(p, "no targets registered in "+TargetsDir))
	case len(defaults) == 0:
		l.errs = append(l.errs, l.errAtPkg(p, "no target is Default: true; exactly one must be"))
	}
	for _, t := range defaults[min(1, len(defaults)):] {
		l.errs = append(l.errs, &translate.Error{Pos: t.Pos, Msg: fmt.Sprintf(
			"target %s is Default, and so is %s (%s): exactly one target must be", t.Name, defaults[0].Name, defaults[0].Pos)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// checkSpace checks one knob's candidate list of a tuning space: not
// empty, no duplicates, every value valid (check returns why not, or "").
func (l *loader) checkSpace(target string, space *structLit, field string, values []int, check func(int) string) {
	at := space.at(field).Pos()
	if len(values) == 0 {
		l.errorf(at, "target %s: %s.%s: the tuning space needs at least one value", target, space.typ, field)
	}
	seen := map[int]bool{}
	for _, v := range values {
		if seen[v] {
			l.errorf(at, "target %s: %s.%s: %d is listed twice", target, space.typ, field, v)
		}
		seen[v] = true
		if why := check(v); why != "" {
			l.errorf(at, "target %s: %s.%s: %d %s", target, space.typ, field, v, why)
		}
	}
}

// families collects `var X = register(Family{...})` from specs/families.
func (l *loader) families(p *packages.Package) []*ir.Family {
	var out []*ir.Family
	names := map[string]*ir.Family{}
	for _, r := range l.registrations(p) {
		v, ok := l.value(p.TypesInfo, r.call.Args[0], "family "+r.name)
		s, isStruct := v.(*structLit)
		if !ok || !isStruct {
			continue
		}
		fam := &ir.Family{Name: l.str(s, "Name"), Doc: l.str(s, "Doc"), Signature: l.str(s, "Signature"), Shared: l.boolean(s, "Shared"),
			GoVar: r.name, File: r.file, Pos: l.pos(r.call.Pos())}
		if !validLower(fam.Name) {
			l.errorf(s.at("Name").Pos(), "family %s: Name %q must be lower-case letters, digits and underscores", r.name, fam.Name)
		}
		if prev := names[fam.Name]; prev != nil {
			l.errorf(s.at("Name").Pos(), "family name %s is also used by %s (%s)", fam.Name, prev.GoVar, prev.Pos)
		}
		names[fam.Name] = fam
		list, _ := s.fields["Kernels"].([]any)
		kernels := map[string]bool{}
		for _, k := range list {
			ks, ok := k.(*structLit)
			if !ok {
				continue
			}
			kn := ir.Kernel{Name: l.str(ks, "Name"), Output: l.str(ks, "Output"), Signature: l.str(ks, "Signature"), Doc: l.str(ks, "Doc")}
			if !validLower(kn.Name) || kernels[kn.Name] {
				l.errorf(ks.at("Name").Pos(), "family %s: kernel name %q must be unique, lower-case letters, digits and underscores", fam.Name, kn.Name)
			}
			kernels[kn.Name] = true
			if kn.Output != "f32" && kn.Output != "f16" {
				l.errorf(ks.at("Output").Pos(), "family %s: kernel %s: Output %q must be \"f32\" or \"f16\"", fam.Name, kn.Name, kn.Output)
			}
			if fam.SignatureOf(kn) == "" {
				l.errorf(ks.node.Pos(), "family %s: kernel %s has no Signature, and neither has its family", fam.Name, kn.Name)
			}
			fam.Kernels = append(fam.Kernels, kn)
		}
		if len(fam.Kernels) == 0 {
			l.errorf(s.at("Kernels").Pos(), "family %s has no kernels", fam.Name)
		}
		out = append(out, fam)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func validLower(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func (l *loader) errAtPkg(p *packages.Package, msg string) *translate.Error {
	pos := l.pos(0)
	if len(p.Syntax) > 0 {
		pos = l.pos(p.Syntax[0].Package)
	}
	return &translate.Error{Pos: pos, Msg: msg}
}

// attention collects `var X = registerAttention(AttentionFamily{...})` from
// specs/families (at most one) and checks every target's Attention tuning
// against its head dimensions. None registered: nil, and no attention
// kernels.
func (l *loader) attention(p *packages.Package, targets []*ir.Target) *ir.AttentionFamily {
	var out *ir.AttentionFamily
	for _, r := range l.registrationsOf(p, "registerAttention") {
		v, ok := l.value(p.TypesInfo, r.call.Args[0], "attention family "+r.name)
		s, isStruct := v.(*structLit)
		if !ok || !isStruct {
			continue
		}
		a := &ir.AttentionFamily{
			Name: l.str(s, "Name"), Doc: l.str(s, "Doc"),
			DTypes: l.strings(s, "DTypes"), HeadDims: l.ints(s, "HeadDims"),
			GoVar: r.name, File: r.file, Pos: l.pos(r.call.Pos()),
		}
		if out != nil {
			l.errorf(r.call.Pos(), "attention family %s: %s (%s) is one already; register one", r.name, out.GoVar, out.Pos)
			continue
		}
		if a.Name != "attention" {
			l.errorf(s.at("Name").Pos(), "attention family %s: Name %q must be \"attention\" (its template is templates/hip/attention.hip.tmpl)", r.name, a.Name)
		}
		if a.Doc == "" {
			l.errorf(s.node.Pos(), "attention family %s: Doc is empty", r.name)
		}
		seen := map[string]bool{}
		for _, d := range a.DTypes {
			if d != "f16" && d != "f32" || seen[d] {
				l.errorf(s.at("DTypes").Pos(), "attention family %s: DTypes: %q must be \"f16\" or \"f32\", each at most once", r.name, d)
			}
			seen[d] = true
		}
		if len(a.DTypes) == 0 {
			l.errorf(s.at("DTypes").Pos(), "attention family %s: DTypes is empty", r.name)
		}
		dims := map[int]bool{}
		for _, d := range a.HeadDims {
			if d < 16 || d > 256 || d%16 != 0 || dims[d] {
				l.errorf(s.at("HeadDims").Pos(), "attention family %s: HeadDims: %d must be a multiple of 16 in [16, 256], each at most once", r.name, d)
			}
			dims[d] = true
		}
		if len(a.HeadDims) == 0 {
			l.errorf(s.at("HeadDims").Pos(), "attention family %s: HeadDims is empty", r.name)
		}
		out = a
	}
	for _, t := range targets {
		at := l.attnLits[t]
		if at == nil {
			continue
		}
		if out == nil {
			if t.Attention != (ir.AttentionTuning{}) {
				l.errorf(at.node.Pos(), "target %s: Attention tuning, but specs/families registers no attention family", t.Name)
			}
			continue
		}
		for _, p := range t.Attention.Problems(t.Vendor, t.WaveSize, out.HeadDims) {
			l.errorf(at.at(p.Field).Pos(), "target %s: %s", t.Name, p.Msg)
		}
	}
	return out
}
