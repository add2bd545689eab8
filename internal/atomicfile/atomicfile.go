// Package atomicfile owns how forge writes its output files (runs,
// baselines, CSV, reports, profiles, tuning tables, generated code): readers
// see either the old contents or the complete new contents, never a partial
// file, and forge never replaces anything at an output path that is not a
// file it may write. What Write does depends on what the path is:
//
//   - "-" (Stdout): the data goes to standard output, directly, so that a
//     file named "-" is never made. (forgebench's commands catch "-"
//     themselves, to write to their own writer.)
//   - Nothing: a new file with mode perm is written atomically: to a
//     temporary file in the same directory, synced, then renamed to path.
//   - A regular file: replaced atomically the same way, and the new file
//     keeps the old one's mode (perm is ignored) and owner and group. A
//     file the caller has no write permission bit for (for root: no write
//     bit at all) is refused, even where the directory would allow renaming
//     over it (root, or another user's file in a shared folder); so is a
//     file whose owner or group the new file cannot be given: forge never
//     changes a file's owner.
//   - A symbolic link: written through. The file the link resolves to is
//     replaced under the rules above, in its own directory, and the link
//     stays a link to it. A dangling link or a loop is refused: forge does
//     not create files through links.
//   - /dev/null: written through (opened without creating or truncating it),
//     so that an output can be discarded.
//   - Anything else (a directory, FIFO, socket, any other character device,
//     a block device): refused without being opened or touched, with an
//     error that says what it is. Writing through a FIFO would block until
//     someone reads it; replacing a device node destroys it.
//
// Every error names the path, and on any error the temporary file is removed
// and whatever was at path is left as it was. A regular file with several
// hard links is replaced under this name only; its other names keep the old
// contents.
//
// Create is Write for a name that must not exist yet (exclusive, for
// baselines saved without --force); Check tells, before long work, whether
// Write would refuse a path.
//
// The path is checked before the data is written and again just before the
// rename; the rename itself cannot be made conditional on what it replaces,
// so a concurrent change in between those two steps is not caught.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Stdout is the path that means standard output.
const Stdout = "-"

// Write calls fill with a writer for a temporary file beside path (or, after
// a symbolic link, beside the file it resolves to) and on success renames it
// into place, following the rules of the package documentation: a new file
// gets mode perm, an existing one keeps its mode and owner. On any error the
// temporary file is removed and what was at path is left untouched.
func Write(path string, perm os.FileMode, fill func(io.Writer) error) (err error) {
	if path == Stdout {
		return toStdout(fill)
	}
	t, err := resolve(path)
	if err != nil {
		return err
	}
	if t.devNull {
		return writeThrough(path, t.dest, fill)
	}
	tmp, err := writeTemp(path, t, perm, fill)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	// fill may have taken long; what was checked may have changed since.
	if fi, err := os.Lstat(t.dest); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("cannot write %s: %s became %s while the data was written; it is not replaced", path, t.dest, Kind(fi))
	}
	if err = os.Rename(tmp, t.dest); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// WriteFile is Write for data already in memory.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Create is Write for a file that must not exist yet: if anything exists at
// path (a dangling symbolic link included), also if it appears while fill
// runs, it fails with an error wrapping fs.ErrExist and leaves it untouched.
// Of several concurrent Creates of one path exactly one succeeds. The new
// file gets mode perm and appears complete: the temporary file is linked to
// path (link(2) fails if the name is taken, where rename would replace),
// so the file system must support hard links.
func Create(path string, perm os.FileMode, fill func(io.Writer) error) error {
	if path == Stdout {
		return toStdout(fill)
	}
	exists := fmt.Errorf("cannot create %s: %w", path, fs.ErrExist)
	if _, err := os.Lstat(path); err == nil {
		return exists // early, to spare fill
	}
	tmp, err := writeTemp(path, target{dest: path}, perm, fill)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); errors.Is(err, fs.ErrExist) {
		return exists
	} else if err != nil {
		return fmt.Errorf("cannot create %s: %w", path, err)
	}
	return nil
}

// Check reports the error Write would refuse path with before writing
// anything, as far as that can be told without writing: what the path is,
// whether it is read-only, and whether it belongs to another user. Commands
// call it before long work whose result goes to path. It does not check
// that the directory can be written.
func Check(path string) error {
	if path == Stdout {
		return nil
	}
	_, err := resolve(path)
	return err
}

// target is where Write writes for a path.
type target struct {
	dest    string      // path, or the file a symbolic link at path resolves to
	old     fs.FileInfo // the regular file at dest; nil if there is none
	devNull bool        // dest is the null device
}

// resolve applies the package's rules to path: it follows a symbolic link
// and refuses what may not be replaced.
func resolve(path string) (target, error) {
	t := target{dest: path}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return t, fmt.Errorf("cannot write %s: %w", path, err)
	}
	is := "it is" // what the errors call dest
	if fi.Mode()&fs.ModeSymlink != 0 {
		if t.dest, err = filepath.EvalSymlinks(path); err != nil {
			if to, rerr := os.Readlink(path); rerr == nil && errors.Is(err, fs.ErrNotExist) {
				return t, fmt.Errorf("cannot write %s: it is a dangling symbolic link (to %s); forge writes through a link only to an existing file", path, to)
			}
			return t, fmt.Errorf("cannot write %s: it is a symbolic link that cannot be followed: %w", path, err)
		}
		if fi, err = os.Lstat(t.dest); err != nil {
			return t, fmt.Errorf("cannot write %s: %w", path, err)
		}
		is = fmt.Sprintf("it links to %s, which is", t.dest)
	}
	switch {
	case fi.Mode().IsRegular():
		if !writable(fi) {
			return t, fmt.Errorf("cannot write %s: %s a read-only file (%v); it is not replaced", path, is, fi.Mode().Perm())
		}
		if uid, ok := foreignOwner(fi); ok {
			return t, fmt.Errorf("cannot write %s: %s owned by user %d; forge does not replace another user's file", path, is, uid)
		}
		t.old = fi
	case IsDevNull(fi):
		t.devNull = true
	default:
		return t, fmt.Errorf("cannot write %s: %s %s, not a regular file; forge writes outputs only to regular files (or %s for standard output)", path, is, Kind(fi), Stdout)
	}
	return t, nil
}

// writeTemp writes fill's data to a new temporary file beside t.dest, with
// t.old's mode and owner or else mode perm, synced and closed, and returns
// its name. On error there is no temporary file.
func writeTemp(path string, t target, perm os.FileMode, fill func(io.Writer) error) (name string, err error) {
	dir, base := filepath.Split(t.dest)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return "", fmt.Errorf("cannot write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	mode := perm
	if t.old != nil {
		// Owner first: chown clears the set-user-ID and set-group-ID bits.
		if err = keepOwner(tmp, t.old); err != nil {
			return "", fmt.Errorf("cannot write %s: the new file cannot be given the owner and group of %s (%w); it is not replaced", path, t.dest, err)
		}
		mode = t.old.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	}
	if err = fill(tmp); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Chmod(mode); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return tmp.Name(), nil
}

// writeThrough writes to the existing file dest in place (the null device).
func writeThrough(path, dest string, fill func(io.Writer) error) error {
	f, err := os.OpenFile(dest, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	err = fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func toStdout(fill func(io.Writer) error) error {
	if err := fill(os.Stdout); err != nil {
		return fmt.Errorf("writing to standard output: %w", err)
	}
	return nil
}

// IsDevNull reports whether fi is the null device (os.DevNull).
func IsDevNull(fi fs.FileInfo) bool {
	if fi.Mode()&fs.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(fi, null)
}

// Kind names what fi is ("a FIFO", "a directory", …), for errors about
// paths that are no regular files.
func Kind(fi fs.FileInfo) string {
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return "a regular file"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}
