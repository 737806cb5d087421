// Package agenttest is test support for the packages under agent/: it
// records a target of the repository's testdata with the real engine and
// checks that diagnosing and verifying leave the user's files untouched.
package agenttest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/adi-go/adi/agent/gocmd"
	"github.com/adi-go/adi/engine"
)

// RepoRoot is the module's root directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// Record records argv (relative to the repository root) and returns the
// session and the target to diagnose; the session is closed when the test
// ends.
func Record(t testing.TB, argv ...string) (*engine.Session, gocmd.Target) {
	t.Helper()
	root := RepoRoot(t)
	s, err := engine.Open(context.Background(), argv, root, engine.Options{Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatalf("recording %v: %v", argv, err)
	}
	t.Cleanup(func() { s.Close() })
	return s, gocmd.Target{Argv: argv, Dir: root}
}

// HashTree returns the SHA-256 of every file under dir, by path.
func HashTree(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[p] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// SameTree fails the test when the files under dir changed since before.
func SameTree(t testing.TB, dir string, before map[string]string) {
	t.Helper()
	after := HashTree(t, dir)
	for p, h := range before {
		if after[p] != h {
			t.Errorf("%s changed (or disappeared): the user's files must stay byte-identical", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s appeared in the user's tree", p)
		}
	}
}
