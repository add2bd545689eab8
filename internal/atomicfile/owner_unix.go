//go:build unix

package atomicfile

import (
	"io/fs"
	"os"
	"slices"
	"syscall"
)

// writable reports whether the caller may write fi by its permission bits:
// the owner's, the group's or the others' write bit, whichever class the
// caller is in. The bits are read here rather than left to the OS, which
// lets root write anything and would never be asked anyway: Write renames
// over the file, which needs only the directory's permission. For root a
// file without any write bit counts as read-only.
func writable(fi fs.FileInfo) bool {
	m := fi.Mode().Perm()
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return m&0o200 != 0
	}
	euid := os.Geteuid()
	switch {
	case euid == 0:
		return m&0o222 != 0
	case uint32(euid) == st.Uid:
		return m&0o200 != 0
	case inGroup(st.Gid):
		return m&0o020 != 0
	}
	return m&0o002 != 0
}

func inGroup(gid uint32) bool {
	if uint32(os.Getegid()) == gid {
		return true
	}
	groups, _ := os.Getgroups()
	return slices.Contains(groups, int(gid))
}

// foreignOwner returns the owner of fi when it is another user and the
// caller is not root: a file the caller can never give that owner, so
// that Check refuses it before any work. (A group the caller cannot
// give is found when Write tries.)
func foreignOwner(fi fs.FileInfo) (uid uint32, ok bool) {
	st, isStat := fi.Sys().(*syscall.Stat_t)
	if !isStat || os.Geteuid() == 0 || st.Uid == uint32(os.Geteuid()) {
		return 0, false
	}
	return st.Uid, true
}

// keepOwner gives tmp the owner and group of old where they differ from
// what tmp was created with.
func keepOwner(tmp *os.File, old fs.FileInfo) error {
	want, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	fi, err := tmp.Stat()
	if err != nil {
		return err
	}
	if got, ok := fi.Sys().(*syscall.Stat_t); ok && got.Uid == want.Uid && got.Gid == want.Gid {
		return nil
	}
	return tmp.Chown(int(want.Uid), int(want.Gid))
}
