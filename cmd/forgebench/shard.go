package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/rocmforge/forge/runtime/backend"
	gpubackend "github.com/rocmforge/forge/runtime/backend/gpu"
	"github.com/rocmforge/forge/runtime/bench"
)

// maxDeviceFlag bounds --device: a GPU's index among those the process
// sees; past this it is a typo.
const maxDeviceFlag = 1023

// deviceFlag is --device, in benchFlags: the GPU ordinal the run opens.
func deviceFlag() cli.Flag {
	return &cli.IntFlag{Name: "device", Usage: "run on GPU `N` (0-based, among the GPUs the process sees: $CUDA_VISIBLE_DEVICES, $HIP_VISIBLE_DEVICES and $ROCR_VISIBLE_DEVICES renumber them) on a host with several; the cpu backend is device 0 only", DefaultText: "$" + gpubackend.EnvDevice + ", else 0"}
}

// shardFlag is run's --shard.
func shardFlag() cli.Flag {
	return &cli.StringFlag{Name: "shard", Usage: "measure only shard `I/N` of the selected benchmarks (0-based: 0/4 ... 3/4; a benchmark's shard is a hash of its name modulo N); forgebench merge puts the pieces together"}
}

// checkPlacement checks --device and --shard (where the command has them)
// with the other run flags, before anything opens or runs.
func checkPlacement(c *cli.Context) error {
	if c.IsSet("device") {
		if n := c.Int("device"); n < 0 || n > maxDeviceFlag {
			return fmt.Errorf("--device %d: want a GPU index from 0 to %d", n, maxDeviceFlag)
		}
	}
	if s := c.String("shard"); c.IsSet("shard") {
		if _, _, err := bench.ParseShard(s); err != nil {
			return err
		}
	}
	return nil
}

// selectBackend opens the backend --backend and --lib name on the device
// --device names: the GPU backends open the device $FORGE_DEVICE names
// (forge_rt_init(device) of the kernel library's runtime ABI), so --device
// sets it while the backend opens. The cpu backend is device 0 only.
func selectBackend(c *cli.Context) (*backend.Selection, error) {
	if !c.IsSet("device") {
		return backend.Select(c.String("backend"), c.String("lib"))
	}
	n := c.Int("device")
	prev, had := os.LookupEnv(gpubackend.EnvDevice)
	os.Setenv(gpubackend.EnvDevice, strconv.Itoa(n))
	sel, err := backend.Select(c.String("backend"), c.String("lib"))
	if had {
		os.Setenv(gpubackend.EnvDevice, prev)
	} else {
		os.Unsetenv(gpubackend.EnvDevice)
	}
	if err != nil {
		return nil, err
	}
	idx, gpu := deviceIndex(sel.Backend)
	switch {
	case !gpu && n != 0:
		return nil, fmt.Errorf("--device %d: %s, which runs on the host's CPUs: device 0 only", n, sel.Why)
	case gpu && idx != n: // a backend opened earlier in this process is shared
		return nil, fmt.Errorf("--device %d: %s is already open on device %d in this process", n, sel.Why, idx)
	}
	return sel, nil
}

// deviceIndex is the GPU ordinal a GPU backend opened.
func deviceIndex(b backend.Backend) (int, bool) {
	if g, ok := b.(*gpubackend.Backend); ok {
		return g.Device().Info().Device, true
	}
	return 0, false
}

// shardTargets keeps the targets of --shard I/N (all of them, and no
// Shard, without the flag), saying on stderr how many of the selection
// that is.
func shardTargets(c *cli.Context, b backend.Backend, targets []bench.Target, opts bench.Options) ([]bench.Target, bench.Options, *bench.Shard, error) {
	if !c.IsSet("shard") {
		return targets, opts, nil, nil
	}
	i, n, err := bench.ParseShard(c.String("shard"))
	if err != nil {
		return nil, opts, nil, err
	}
	kept, opts, sh, err := bench.ShardTargets(b, targets, opts, i, n)
	if err != nil {
		return nil, opts, nil, err
	}
	if len(kept) == 0 {
		fmt.Fprintf(c.App.ErrWriter, "forgebench: shard %d/%d holds none of the %d selected benchmarks: the run is empty\n", i, n, sh.Selected)
	} else {
		fmt.Fprintf(c.App.ErrWriter, "forgebench: shard %d/%d: %d of the %d selected benchmarks (%s)\n", i, n, len(kept), sh.Selected, bench.ShardMethod)
	}
	return kept, opts, sh, nil
}

// recordPlacement writes the GPU ordinal and the shard into the run's
// metadata.
func recordPlacement(run *bench.Run, sel *backend.Selection, sh *bench.Shard) {
	if run == nil {
		return
	}
	if idx, ok := deviceIndex(sel.Backend); ok {
		run.Meta.DeviceIndex = &idx
	}
	run.Meta.Shard = sh
}
