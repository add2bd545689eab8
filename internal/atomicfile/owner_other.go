//go:build !unix

package atomicfile

import (
	"io/fs"
	"os"
)

// Without Unix owners, the owner's write bit is all there is to check.

func writable(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o200 != 0 }

func foreignOwner(fs.FileInfo) (uint32, bool) { return 0, false }

func keepOwner(*os.File, fs.FileInfo) error { return nil }
