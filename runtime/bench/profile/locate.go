package profile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// candidate is one executable that can serve a tool.
type candidate struct {
	name, variant string
	dirs          []string // usual install locations, searched after $PATH
}

var cudaDirs = []string{"/usr/local/cuda/bin", "/opt/nvidia/nsight-compute", "/opt/nvidia/nsight-systems/bin", "/usr/local/cuda/nsight-compute", "/usr/local/cuda/nsight-systems/bin"}
var rocmDirs = []string{"/opt/rocm/bin"}

var candidates = map[Tool][]candidate{
	NCU:      {{"ncu", "ncu", cudaDirs}},
	NSYS:     {{"nsys", "nsys", cudaDirs}},
	Rocprof:  {{"rocprofv3", "rocprofv3", rocmDirs}, {"rocprof", "rocprof", rocmDirs}},
	Omniperf: {{"rocprof-compute", "rocprof-compute", rocmDirs}, {"omniperf", "omniperf", rocmDirs}},
}

// providers say what installs each tool.
var providers = map[Tool]string{
	NCU:      "Nsight Compute's ncu: install the CUDA toolkit (it ships Nsight Compute, /usr/local/cuda/bin/ncu) or the nsight-compute package",
	NSYS:     "Nsight Systems' nsys: install the CUDA toolkit's nsight-systems package (or Nsight Systems from developer.nvidia.com)",
	Rocprof:  "rocprofv3 (ROCm's rocprofiler-sdk package, /opt/rocm/bin/rocprofv3) or legacy rocprof (ROCm's rocprofiler package)",
	Omniperf: "omniperf / rocprof-compute: ROCm's rocprofiler-compute package (/opt/rocm/bin/rocprof-compute; omniperf before ROCm 6.3)",
}

// Finder looks executables up; tests replace it.
type Finder struct {
	LookPath func(string) (string, error)
	IsExec   func(string) bool
}

// SystemFinder searches $PATH and the file system.
var SystemFinder = Finder{
	LookPath: exec.LookPath,
	IsExec: func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
	},
}

// MissingError is a tool that is installed nowhere forgebench looked.
type MissingError struct {
	Tool     Tool
	Searched []string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("%s not found (searched $PATH and %s); it is provided by %s", e.Tool, strings.Join(e.Searched, ", "), providers[e.Tool])
}

// Locate finds tool's executable: on $PATH, then in the usual install
// locations. It returns the path and the variant found (rocprofv3 before
// legacy rocprof, rocprof-compute before omniperf).
func (f Finder) Locate(tool Tool) (path, variant string, err error) {
	cs, ok := candidates[tool]
	if !ok {
		return "", "", fmt.Errorf("unknown tool %q", tool)
	}
	var searched []string
	for _, c := range cs {
		if p, err := f.LookPath(c.name); err == nil {
			return p, c.variant, nil
		}
		for _, d := range c.dirs {
			p := filepath.Join(d, c.name)
			searched = append(searched, p)
			if f.IsExec(p) {
				return p, c.variant, nil
			}
		}
	}
	return "", "", &MissingError{Tool: tool, Searched: searched}
}

// DefaultName is the executable a --dry-run shows when the tool is absent.
func DefaultName(tool Tool) (name, variant string) {
	c := candidates[tool][0]
	return c.name, c.variant
}
