package instrument

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLiveEmptyFile reads live a record file that its target never wrote
// (killed as it started, before the runtime's first chunk): Poll finds
// nothing, and neither stopping the recycling, the final Poll nor Close
// touches the control chunk's mapping, past the file's end.
func TestLiveEmptyFile(t *testing.T) {
	for _, final := range []bool{true, false} {
		fd, err := os.Create(filepath.Join(t.TempDir(), "records"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := OpenLive(fd, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		f.Recycle = true
		if n, err := f.Poll(false, func(*Record) error { return nil }); n != 0 || err != nil {
			t.Fatalf("Poll: %d records, %v", n, err)
		}
		f.StopRecycle()
		if final {
			if n, err := f.Poll(true, func(*Record) error { return nil }); n != 0 || err != nil {
				t.Fatalf("final Poll: %d records, %v", n, err)
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if f.Waited != 0 {
			t.Errorf("waited %v, in a file never written", f.Waited)
		}
		fd.Close()
	}
}
