//go:build unix

package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Issue 18, finding 1: every kind of path an output flag may name. Each
// refusal must name the path, say what it is, and leave it exactly as it
// was; no test here may block, so nothing is ever opened for writing
// before the path has been looked at.

// write runs WriteFile with a deadline: a FIFO opened for writing would
// block the test forever.
func write(t *testing.T, path, data string, perm os.FileMode) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- WriteFile(path, []byte(data), perm) }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("writing %s blocked", path)
		return nil
	}
}

// wantRefused checks err names path and says want.
func wantRefused(t *testing.T, err error, path, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("writing %s succeeded, want it refused (%s)", path, want)
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %q, want it to name %s and say %q", err, path, want)
	}
}

// noTemp checks that no temporary file was left in dir.
func noTemp(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left in %s", e.Name(), dir)
		}
	}
}

func same(t *testing.T, before fs.FileInfo, path string) {
	t.Helper()
	after, err := os.Lstat(path)
	if err != nil {
		t.Fatalf("%s is gone: %v", path, err)
	}
	if !os.SameFile(before, after) || after.Mode() != before.Mode() {
		t.Errorf("%s was replaced or changed: %v, was %v", path, after.Mode(), before.Mode())
	}
}

func TestNewFileGetsPerm(t *testing.T) {
	p := filepath.Join(t.TempDir(), "new.json")
	if err := write(t, p, "new", 0o640); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o640 {
		t.Fatalf("%v, %v: want a regular file with mode 0640", fi.Mode(), err)
	}
}

// An existing file's contents are replaced; its mode stays, whatever the
// caller's perm.
func TestRegularFileKeepsMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.csv")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o600) // whatever the umask
	if err := write(t, p, "new", 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("contents %q, want new", b)
	}
	if fi, _ := os.Lstat(p); fi.Mode() != 0o600 {
		t.Errorf("mode %v, want the old file's -rw-------", fi.Mode())
	}
	noTemp(t, dir)
}

// An existing file owned by someone else keeps its owner and group. Only
// root can make such a file (and give the new one its owner).
func TestRegularFileKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to chown")
	}
	p := filepath.Join(t.TempDir(), "out.json")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, 4242, 4343); err != nil {
		t.Skip(err)
	}
	if err := write(t, p, "new", 0o644); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Lstat(p)
	st := fi.Sys().(*syscall.Stat_t)
	if b, _ := os.ReadFile(p); string(b) != "new" || st.Uid != 4242 || st.Gid != 4343 {
		t.Errorf("contents %q, owner %d:%d; want new, 4242:4343", b, st.Uid, st.Gid)
	}
}

// A file nobody may write is not replaced, although the directory would
// allow renaming over it (and root may write anything).
func TestReadOnlyFileRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "ro.json")
	if err := os.WriteFile(p, []byte("old"), 0o444); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Lstat(p)
	wantRefused(t, write(t, p, "new", 0o644), p, "read-only")
	same(t, before, p)
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("contents %q, want old", b)
	}
	if err := Check(p); err == nil {
		t.Error("Check accepts a read-only file")
	}
	noTemp(t, dir)
}

// A link is written through: the file it points to gets the new contents,
// in its own directory, and the link stays the same link.
func TestSymlinkWritesThrough(t *testing.T) {
	linkDir, fileDir := t.TempDir(), t.TempDir()
	real := filepath.Join(fileDir, "real.json")
	if err := os.WriteFile(real, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(real, 0o600)
	link := filepath.Join(linkDir, "latest.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := write(t, link, "new", 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("%s is no longer a symbolic link: %v, %v", link, fi.Mode(), err)
	}
	if to, _ := os.Readlink(link); to != real {
		t.Errorf("the link points to %s, want %s", to, real)
	}
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Errorf("the link's target holds %q, want new", b)
	}
	if fi, _ := os.Lstat(real); fi.Mode() != 0o600 {
		t.Errorf("the target's mode is %v, want -rw-------", fi.Mode())
	}
	noTemp(t, linkDir)
	noTemp(t, fileDir)

	// A relative link, through a chain of two.
	hop := filepath.Join(linkDir, "hop")
	if err := os.Symlink("latest.json", hop); err != nil {
		t.Fatal(err)
	}
	if err := write(t, hop, "newer", 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(real); string(b) != "newer" {
		t.Errorf("through two links the target holds %q, want newer", b)
	}
	if fi, _ := os.Lstat(hop); fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("%s is no longer a symbolic link", hop)
	}

	// A link to a read-only file is refused like the file.
	os.Chmod(real, 0o444)
	wantRefused(t, write(t, link, "x", 0o644), link, "read-only")
	if b, _ := os.ReadFile(real); string(b) != "newer" {
		t.Errorf("the read-only target was written: %q", b)
	}
}

// A dangling link is refused naming the link: forge does not create the
// file it points to, nor replace the link.
func TestDanglingSymlinkRefused(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "out.json")
	missing := filepath.Join(dir, "missing.json")
	if err := os.Symlink(missing, link); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Lstat(link)
	wantRefused(t, write(t, link, "new", 0o644), link, "dangling symbolic link")
	same(t, before, link)
	if _, err := os.Lstat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the link's target was created: %v", err)
	}

	// A loop cannot be followed either.
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink(b, a)
	os.Symlink(a, b)
	before, _ = os.Lstat(a)
	wantRefused(t, write(t, a, "new", 0o644), a, "cannot be followed")
	same(t, before, a)
	noTemp(t, dir)
}

func TestFIFORefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	before, _ := os.Lstat(p)
	wantRefused(t, write(t, p, "new", 0o644), p, "is a FIFO, not a regular file")
	same(t, before, p)
	if err := Check(p); err == nil || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("Check: %v", err)
	}

	// Through a link: refused, naming both.
	link := filepath.Join(dir, "link")
	os.Symlink(p, link)
	wantRefused(t, write(t, link, "new", 0o644), link, "links to "+p+", which is a FIFO")
	same(t, before, p)
	noTemp(t, dir)
}

func TestSocketRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", p)
	if err != nil {
		t.Skip(err)
	}
	defer l.Close()
	before, _ := os.Lstat(p)
	wantRefused(t, write(t, p, "new", 0o644), p, "is a socket")
	same(t, before, p)
	noTemp(t, dir)
}

func TestDirectoryRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Lstat(p)
	wantRefused(t, write(t, p, "new", 0o644), p, "is a directory")
	same(t, before, p)
	noTemp(t, dir)
}

// A device node other than /dev/null (here a copy of /dev/null's node,
// another inode) is refused and stays a device: issue 18 had /dev/full
// replaced by a CSV file. Making one needs root.
func TestDeviceRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "null-copy")
	null, err := os.Stat(os.DevNull)
	if err != nil {
		t.Skip(err)
	}
	rdev := null.Sys().(*syscall.Stat_t).Rdev
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, int(rdev)); err != nil {
		t.Skipf("cannot make a device node here: %v", err)
	}
	before, _ := os.Lstat(p)
	wantRefused(t, write(t, p, "new", 0o644), p, "is a character device")
	same(t, before, p)
	noTemp(t, dir)
}

// /dev/null is written through: it stays the null device.
func TestDevNull(t *testing.T) {
	before, err := os.Lstat(os.DevNull)
	if err != nil || before.Mode()&fs.ModeCharDevice == 0 {
		t.Skipf("%s: %v, %v", os.DevNull, before, err)
	}
	// Never reach the write unless it is known to go through: a Write
	// that renamed would replace the machine's /dev/null when run as root.
	if tg, err := resolve(os.DevNull); err != nil || !tg.devNull {
		t.Fatalf("resolve(%s) = %+v, %v: not taken for the null device", os.DevNull, tg, err)
	}
	if err := write(t, os.DevNull, "discarded", 0o644); err != nil {
		t.Fatal(err)
	}
	same(t, before, os.DevNull)

	// Also through a link, as /dev/stdout-like paths are.
	link := filepath.Join(t.TempDir(), "discard")
	os.Symlink(os.DevNull, link)
	if err := write(t, link, "discarded", 0o644); err != nil {
		t.Fatal(err)
	}
	same(t, before, os.DevNull)
}

// "-" is standard output, never a file named "-".
func TestDashIsStdout(t *testing.T) {
	t.Chdir(t.TempDir())
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	err = WriteFile("-", []byte("to stdout\n"), 0o644)
	os.Stdout = stdout
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(r); string(b) != "to stdout\n" {
		t.Errorf("stdout got %q", b)
	}
	if _, err := os.Lstat("-"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file named - was created: %v", err)
	}
}

// The path is checked again after fill: a FIFO that took the file's place
// meanwhile is not replaced.
func TestChangedDuringWriteRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	var before fs.FileInfo
	err := Write(p, 0o644, func(w io.Writer) error {
		os.Remove(p)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skip(err)
		}
		before, _ = os.Lstat(p)
		_, err := w.Write([]byte("new"))
		return err
	})
	wantRefused(t, err, p, "became a FIFO")
	same(t, before, p)
	noTemp(t, dir)
}

func TestCreate(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "main.json")
	if err := Create(p, 0o640, func(w io.Writer) error { _, err := w.Write([]byte("first")); return err }); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(p); fi.Mode() != 0o640 {
		t.Errorf("mode %v, want -rw-r-----", fi.Mode())
	}
	err := Create(p, 0o644, func(w io.Writer) error { _, err := w.Write([]byte("second")); return err })
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), p) {
		t.Errorf("second Create: %v, want fs.ErrExist naming %s", err, p)
	}
	if b, _ := os.ReadFile(p); string(b) != "first" {
		t.Errorf("contents %q, want first", b)
	}
	// A dangling link is taken too.
	link := filepath.Join(dir, "link")
	os.Symlink(filepath.Join(dir, "nowhere"), link)
	if err := Create(link, 0o644, func(io.Writer) error { return nil }); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create over a dangling link: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); err == nil {
		t.Error("Create made the link's target")
	}
	// A failing fill leaves nothing.
	boom := errors.New("boom")
	if err := Create(filepath.Join(dir, "new"), 0o644, func(io.Writer) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("failing fill: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("left behind: %v", ents)
	}
}

// Of concurrent Creates exactly one wins, and the file is its whole data,
// even when the name appears only while the others are filling.
func TestCreateConcurrent(t *testing.T) {
	for range 20 {
		dir := t.TempDir()
		p := filepath.Join(dir, "x")
		const n = 16
		errs := make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				errs[i] = Create(p, 0o644, func(w io.Writer) error {
					_, err := w.Write([]byte(strings.Repeat(string(rune('a'+i)), 1<<16)))
					return err
				})
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("Creates %d and %d both succeeded", winner, i)
			case err == nil:
				winner = i
			case !errors.Is(err, fs.ErrExist):
				t.Fatalf("Create %d: %v", i, err)
			}
		}
		if winner < 0 {
			t.Fatal("no Create succeeded")
		}
		if b, _ := os.ReadFile(p); string(b) != strings.Repeat(string(rune('a'+winner)), 1<<16) {
			t.Fatalf("the file is not Create %d's whole data", winner)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Fatalf("left behind: %v", ents)
		}
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	for _, ok := range []string{"-", file, filepath.Join(dir, "new"), os.DevNull} {
		if err := Check(ok); err != nil {
			t.Errorf("Check(%s): %v", ok, err)
		}
	}
	if err := Check(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("Check(%s): %v", dir, err)
	}
}
