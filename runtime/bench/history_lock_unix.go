//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package bench

import (
	"errors"
	"os"
	"syscall"
)

// historyNonblock keeps opening a FIFO (put at a history path after it was
// checked) from blocking until a reader comes; it does nothing to a regular
// file.
const historyNonblock = syscall.O_NONBLOCK

// lockHistory takes an exclusive flock(2) on f, waiting for another
// forgebench appending to the same file, and returns its release. A file
// system without flock (EOPNOTSUPP, ENOLCK) leaves the append to O_APPEND
// alone.
func lockHistory(f *os.File) (unlock func(), err error) {
	fd := int(f.Fd())
	for {
		err = syscall.Flock(fd, syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	switch {
	case errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOLCK) || errors.Is(err, syscall.EINVAL):
		return func() {}, nil
	case err != nil:
		return nil, err
	}
	return func() { syscall.Flock(fd, syscall.LOCK_UN) }, nil
}
