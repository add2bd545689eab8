package memsuite

import (
	"os"
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/backend/cpu"
	gpubackend "github.com/rocmforge/forge/runtime/backend/gpu"
	"github.com/rocmforge/forge/runtime/device/gpu/gputest"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/runtime/suite/suitetest"
	"github.com/rocmforge/forge/specs/workloads"
)

// TestFakeDevice runs the scenarios' device path (forge_rt_malloc, the
// forge_copy kernel, memset, events, the free-memory report) on the fake
// kernel library of runtime/device/gpu/gputest, whose free-memory report is
// exact: the agreement cases must match to the byte.
func TestFakeDevice(t *testing.T) {
	lib := gputest.Build(t, gputest.Options{MemLimit: 1 << 30})
	b, err := gpubackend.Open("cuda", lib, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, sc := range []struct {
		name string
		s    *suite.Scenario
	}{{"kv", KVCache(testKV)}, {"scratch", Scratch(testScratch)}, {"allocator", Allocator(testAlloc)}} {
		t.Run(sc.name, func(t *testing.T) {
			free0, _, err := b.Device().MemInfo()
			if err != nil {
				t.Fatal(err)
			}
			ms := runScenario(t, sc.s, b, false, 2)
			for _, name := range []string{"device_delta", "reserved"} {
				if got := metric(t, ms, "agreement", name); got < minAgreementBytes {
					t.Errorf("agreement: %s %v", name, got)
				}
			}
			for _, name := range []string{"agreement_err", "release_err"} {
				if got := metric(t, ms, "agreement", name); got != 0 {
					t.Errorf("agreement: %s %v%% on the fake, whose report is exact", name, got)
				}
			}
			for c, m := range ms {
				if _, ok := (&m).Metric("go_alloc"); ok {
					t.Errorf("%s: Go's figures on a device backend", c)
				}
			}
			if sc.name == "kv" {
				checkKV(t, ms, testKV, testKV.Tokens)
			}
			free1, _, err := b.Device().MemInfo()
			if err != nil {
				t.Fatal(err)
			}
			if free1 != free0 {
				t.Errorf("the scenario left %d bytes allocated on the device", free0-free1)
			}
		})
	}
}

// TestAgreementFails checks that a disagreement fails the scenario: on
// the cpu, Go memory allocated beside the allocator's.
func TestAgreementFails(t *testing.T) {
	pl, err := newPlatform(cpu.New(0))
	if err != nil {
		t.Fatal(err)
	}
	var keep []byte
	env := &suite.Env{Report: func(suite.Measurement) {}, Logf: t.Logf}
	err = pl.agreement(env, "a test", func(a allocator) ([]buffer, error) {
		keep = make([]byte, 16<<20) // Go's, not the allocator's
		b, err := pl.alloc(a, minAgreementBytes)
		return []buffer{b}, err
	})
	if err == nil || !strings.Contains(err.Error(), "apart, more than 1%") {
		t.Errorf("16 MiB beside 256 MiB: %v", err)
	}
	_ = keep
	err = pl.agreement(env, "a small test", func(a allocator) ([]buffer, error) {
		b, err := pl.alloc(a, 1<<20)
		return []buffer{b}, err
	})
	if err == nil || !strings.Contains(err.Error(), "needs at least") {
		t.Errorf("1 MiB: %v", err)
	}
}

// TestGPU runs the memory suite's specs on a real GPU backend and asserts
// that the runtime's statistics agree with the device's free-memory
// report within 1%. It skips on the cpu backend; on a GPU machine:
//
//	go test -c -o out/memsuite.test ./runtime/suite/memsuite
//	./out/memsuite.test -test.run TestGPU -test.v -backend=cuda -lib=build/libforge_sm_90.so
//
// (quick cases; FORGE_SCENARIO_FULL=1 runs them all).
func TestGPU(t *testing.T) {
	be := suitetest.Backend(t)
	if _, ok := be.(DeviceBackend); !ok {
		t.Skipf("backend %s has no device: run with -backend=cuda|hip -lib=build/libforge_<target>.so", be.Name())
	}
	full := os.Getenv(suitetest.EnvScenarioFull) == "1"
	for _, sc := range []struct {
		name string
		s    *suite.Scenario
	}{
		{"kv_cache", KVCache(workloads.KVCache7B)},
		{"scratch", Scratch(workloads.ScratchBuffers)},
		{"allocator", Allocator(workloads.CachingAllocator)},
	} {
		t.Run(sc.name, func(t *testing.T) {
			ms := runScenario(t, sc.s, be, !full, 3)
			t.Logf("agreement: reserved %.0f bytes, device free memory fell by %.0f", metric(t, ms, "agreement", "reserved"), metric(t, ms, "agreement", "device_delta"))
			for _, name := range []string{"agreement_err", "release_err"} {
				got := metric(t, ms, "agreement", name)
				t.Logf("%s: %.4f%%", name, got)
				if got > 100*AgreementTolerance {
					t.Errorf("%s %.3f%%: past %.0f%%", name, got, 100*AgreementTolerance)
				}
			}
			if sc.name == "allocator" {
				sp, target := metric(t, ms, "repeated/caching", "speedup"), metric(t, ms, "repeated/caching", "target")
				t.Logf("repeated pattern: caching %.1f× faster than direct (target %.0f×, met: %v)", sp, target, sp >= target)
			}
			if sc.name == "kv_cache" {
				if got := metric(t, ms, "alloc/t512", "bytes_per_token"); got != 512<<10 {
					t.Errorf("7B bytes per token %v", got)
				}
			}
		})
	}
}
