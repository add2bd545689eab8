package report

import (
	"strings"

	"github.com/rocmforge/forge/runtime/bench"
)

// Ceiling is a compute roof of the roofline chart: a peak rate of
// floating-point operations, drawn level from the intensity where the
// memory ceiling meets it.
type Ceiling struct {
	Name   string  // what the peak is of: "f16 tensor core (dense)", "f32 FMA"
	GFLOPS float64 // 1e9 FLOP/s
	Source string  // where the figure comes from, shown on the page
}

// devicePeak is a device's vendor-published peak rates.
type devicePeak struct {
	device string // the device, as the page names the source
	match  func(name string) bool
	// f16 is the dense FP16 matrix peak (tensor cores, WMMA/MFMA) with FP32
	// accumulation where the vendor states it, f32 the FP32 vector (FMA)
	// peak: the roofs of forge's matmul tensor-core path and of its
	// generic f32 paths. TFLOPS, without sparsity.
	f16, f32 float64
	source   string
}

// peaks are the compute peaks the report knows, from the vendors' data
// sheets (boost clocks; a kernel sustains less). The run's metadata holds
// no measured compute peak, so these are the only compute ceilings the
// report draws by itself: a device not in this list gets the memory
// ceiling alone and a note saying so (Options.Ceilings supplies others).
// A name matches by substring, first match wins; variants whose peaks
// differ and are not listed (H100 NVL, H200 NVL) match nothing.
var peaks = []devicePeak{
	{device: "NVIDIA H100 SXM5", f16: 989.4, f32: 66.9,
		source: "NVIDIA H100 Tensor Core GPU data sheet (SXM5: FP16 tensor 1979 TFLOPS with sparsity, FP32 67 TFLOPS)",
		match: func(n string) bool {
			return strings.Contains(n, "H100") && !strings.Contains(n, "NVL") && !strings.Contains(n, "PCIe") &&
				(strings.Contains(n, "HBM3") || strings.Contains(n, "SXM"))
		}},
	{device: "NVIDIA H100 PCIe", f16: 756.5, f32: 51.2,
		source: "NVIDIA H100 Tensor Core GPU data sheet (PCIe: FP16 tensor 1513 TFLOPS with sparsity, FP32 51 TFLOPS)",
		match:  func(n string) bool { return strings.Contains(n, "H100") && strings.Contains(n, "PCIe") }},
	{device: "NVIDIA H200", f16: 989.4, f32: 66.9,
		source: "NVIDIA H200 Tensor Core GPU data sheet (SXM: FP16 tensor 1979 TFLOPS with sparsity, FP32 67 TFLOPS)",
		match:  func(n string) bool { return strings.Contains(n, "H200") && !strings.Contains(n, "NVL") }},
	{device: "NVIDIA A100", f16: 312, f32: 19.5,
		source: "NVIDIA A100 Tensor Core GPU data sheet (FP16 tensor 312 TFLOPS, FP32 19.5 TFLOPS)",
		match:  func(n string) bool { return strings.Contains(n, "A100") }},
	{device: "AMD Instinct MI300X", f16: 1307.4, f32: 81.7,
		source: "AMD Instinct MI300X data sheet (FP16 matrix 1307.4 TFLOPS, FP32 vector 81.7 TFLOPS)",
		match:  func(n string) bool { return strings.Contains(n, "MI300X") }},
	{device: "AMD Radeon RX 7900 XTX", f16: 122.8, f32: 61.4,
		source: "AMD Radeon RX 7900 XTX specifications (peak FP16 122.8 TFLOPS, FP32 61.4 TFLOPS)",
		match:  func(n string) bool { return strings.Contains(n, "7900 XTX") }},
}

// deviceCeilings are the compute ceilings of the run's device from peaks,
// highest first, or nil when the device is not in the table.
func deviceCeilings(m bench.Meta) []Ceiling {
	if m.Backend == "cpu" {
		return nil
	}
	for _, p := range peaks {
		if p.match(m.Device) {
			return []Ceiling{
				{Name: "f16 tensor core (dense)", GFLOPS: 1000 * p.f16, Source: p.source},
				{Name: "f32 FMA", GFLOPS: 1000 * p.f32, Source: p.source},
			}
		}
	}
	return nil
}
