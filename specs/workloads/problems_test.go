package workloads

import (
	"strings"
	"testing"
)

func TestSpecsValid(t *testing.T) {
	for family, specs := range map[string][]any{
		"memory":    {KVCache7B, ScratchBuffers, CachingAllocator},
		"quantize":  {QuantizeModels},
		"attention": {AttentionFlash},
		"model":     {DecoderLlama7B, DecoderSmall},
	} {
		for _, w := range specs {
			if ps := Problems(w, family); len(ps) > 0 {
				name, _ := About(w)
				t.Errorf("%s: %v", name, ps)
			}
		}
	}
}

func TestProblemsNameTheirFields(t *testing.T) {
	q := QuantizeModels
	q.Name = "quantize/Models"
	q.Doc = ""
	q.Models = []Model{{Name: "m", Layers: 1, Rows: 2, Cols: -3}}
	q.QuickModels = []string{"x"}
	q.SweepLayers = []int{4, 0}
	q.TargetModels = nil
	got := map[string]string{}
	for _, p := range Problems(&q, "quantize") {
		got[p.Field] += p.Msg + "|"
	}
	for field, msg := range map[string]string{
		"Name":             `Name "quantize/Models" must be "quantize/" followed by a lower_case name`,
		"":                 "Doc is empty; say what it measures",
		"Models[0].Cols":   "Model.Cols is -3; it must be positive",
		"QuickModels[0]":   "Quantize.QuickModels has x, which Models does not",
		"SweepLayers[1]":   "Quantize.SweepLayers[1] is 0; it must be positive",
		"TargetModels":     "Quantize.TargetModels is empty",
		"SweepModels[0]":   "", // "100M" is still a model: no problem
		"QuickSweepModels": "",
	} {
		if msg == "" {
			if got[field] != "" {
				t.Errorf("%s: unexpected %q", field, got[field])
			}
		} else if !strings.Contains(got[field], msg) {
			t.Errorf("%s: got %q, want %q", field, got[field], msg)
		}
	}
}
