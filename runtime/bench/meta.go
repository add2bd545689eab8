package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/rocmforge/forge/runtime/backend"
)

// deviceDescriber is a backend that describes its device in plain values:
// the GPU backends (runtime/backend/gpu).
type deviceDescriber interface {
	DeviceInfo() backend.DeviceInfo
}

// CollectMeta describes the machine and software a run on backend b
// measures: for a GPU backend the device (name, arch, target, wave size,
// compute units, memory, driver and runtime versions) and its library, for
// the cpu the processor's model (/proc/cpuinfo) and GOARCH; in both cases
// GOMAXPROCS, the Go version, GOOS/GOARCH, the host name and forge's
// version (the build's module version and VCS stamp; "devel" when the
// binary carries none, as under `go run` with -buildvcs=false).
func CollectMeta(b backend.Backend) Meta {
	m := Meta{
		Backend:   b.Name(),
		Device:    CPUModel(),
		Arch:      runtime.GOARCH,
		CPUs:      runtime.GOMAXPROCS(0),
		GoVersion: runtime.Version(),
		OS:        runtime.GOOS + "/" + runtime.GOARCH,
	}
	m.Hostname, _ = os.Hostname()
	m.ForgeVersion, m.ForgeCommit, m.ForgeModified = ForgeVersion()
	if d, ok := b.(deviceDescriber); ok {
		info := d.DeviceInfo()
		m.Library = info.Library
		m.Device = info.Name
		m.Arch = info.Arch
		m.Target = info.Target
		m.WaveSize = info.WaveSize
		m.ComputeUnits = info.ComputeUnits
		m.MemoryBytes = info.MemoryBytes
		m.Driver = versionString(info.Vendor, info.DriverVersion)
		m.Toolkit = versionString(info.Vendor, info.RuntimeVersion)
	} else if db, ok := b.(backend.Device); ok {
		m.Device = db.Describe()
	}
	return m
}

// versionString spells a runtime's version number: CUDA's 1000·major +
// 10·minor (12040 = 12.4), HIP's 10⁷·major + 10⁵·minor + patch
// (50221151 = 5.2.21151); the number itself for anything else.
func versionString(vendor string, v int) string {
	switch {
	case v <= 0:
		return ""
	case vendor == "nvidia":
		return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
	case vendor == "amd" && v >= 10000000:
		return fmt.Sprintf("%d.%d.%d", v/10000000, v/100000%100, v%100000)
	}
	return fmt.Sprint(v)
}

// CPUModel is the processor's model name from /proc/cpuinfo ("model name",
// or on some ARM kernels "Hardware" / "Processor"), else GOARCH.
func CPUModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var fallback string
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case k == "model name" && v != "":
			return v
		case (k == "Hardware" || k == "Processor") && v != "" && fallback == "":
			fallback = v
		}
	}
	if fallback != "" {
		return fallback
	}
	return runtime.GOARCH
}

// ForgeVersion is forge's version as the running binary records it: the
// main module's version ("devel" for a build from a work tree), and the
// VCS revision and dirty flag when the build stamped them.
func ForgeVersion() (version, commit string, modified bool) {
	version = "devel"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if commit == "" {
		// `go run` and -buildvcs=false stamp no revision; a checkout knows it.
		commit, modified = gitRevision()
	}
	return
}

// gitRevision is the commit of the git work tree around the working
// directory and whether tracked files differ from it, or "" when there is no
// such work tree or no git.
func gitRevision() (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false
	}
	rev := strings.TrimSpace(string(out))
	st, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output()
	return rev, err == nil && len(bytes.TrimSpace(st)) > 0
}
