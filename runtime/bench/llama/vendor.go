package llama

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/rocmforge/forge/runtime/suite"
)

// VendorStatistic is what scripts/cublas_f16.py's time is where its output
// does not say (a "# statistic: …" line, since it takes forge's samples and
// launches a sample): its earlier, fixed protocol.
const VendorStatistic = "mean µs per product of torch.matmul on f16 tensors (cuBLAS), 200 back-to-back launches after 20 warm-up ones"

// Vendor is the vendor library's f16 product beside the matmul rows: the
// bar the matmul issue sets (cuBLAS through PyTorch, scripts/cublas_f16.py).
// The same time serves every format of a shape: the library multiplies f16.
type Vendor struct {
	Name      string `json:"name"`             // "cuBLAS f16"
	Source    string `json:"source"`           // the file read
	Device    string `json:"device,omitempty"` // as the file's header names it
	Statistic string `json:"statistic"`
}

// ReadCublas reads scripts/cublas_f16.py's output: a "# DEVICE, torch …"
// line, a "# statistic: …" line, a header line, then "ROWSxCOLSxBATCH µs
// TFLOPS" per shape (other "#" lines are comments). It returns the
// device, the statistic (VendorStatistic where none is given) and µs by
// shape name (suite.ShapeName's form).
func ReadCublas(path string) (device, statistic string, us map[string]float64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", nil, err
	}
	defer f.Close()
	return parseCublas(f, path)
}

func parseCublas(r io.Reader, path string) (device, statistic string, us map[string]float64, err error) {
	us = map[string]float64{}
	statistic = VendorStatistic
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "shape"):
			continue
		case strings.HasPrefix(line, "# statistic:"):
			statistic = strings.TrimSpace(strings.TrimPrefix(line, "# statistic:"))
			continue
		case strings.HasPrefix(line, "#"):
			if device == "" {
				device, _, _ = strings.Cut(strings.TrimSpace(strings.TrimPrefix(line, "#")), ",")
			}
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 3 {
			return "", "", nil, fmt.Errorf("%s:%d: want \"ROWSxCOLSxBATCH µs TFLOPS\", got %q", path, n, line)
		}
		dims, ok := suite.ParseShape(fs[0])
		v, perr := strconv.ParseFloat(fs[1], 64)
		if !ok || len(dims) != 3 || perr != nil || !(v > 0) {
			return "", "", nil, fmt.Errorf("%s:%d: want \"ROWSxCOLSxBATCH µs TFLOPS\" with a positive time, got %q", path, n, line)
		}
		us[suite.ShapeName(dims...)] = v
	}
	if err := sc.Err(); err != nil {
		return "", "", nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(us) == 0 {
		return "", "", nil, fmt.Errorf("%s: no timings (is it scripts/cublas_f16.py's output?)", path)
	}
	return device, statistic, us, nil
}

// AddVendor puts the vendor's time beside every matmul row of a shape it
// timed, and ForgeUS / its time as the row's VendorRatio; a vendor shape
// without a matmul row is noted.
func (c *Comparison) AddVendor(v Vendor, us map[string]float64) {
	c.Vendor = &v
	seen := map[string]bool{}
	for i := range c.Rows {
		r := &c.Rows[i]
		if len(r.Shape) != 3 {
			continue
		}
		name := suite.ShapeName(r.Shape...)
		if t, ok := us[name]; ok {
			r.VendorUS, r.VendorRatio = t, r.ForgeUS/t
			seen[name] = true
		}
	}
	for name := range us {
		if !seen[name] {
			c.Notes = append(c.Notes, fmt.Sprintf("%s timed %s, which no matmul row has", v.Name, name))
		}
	}
}
