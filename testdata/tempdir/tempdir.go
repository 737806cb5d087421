// Package tempdir counts the lines of files that its test writes in a
// temporary directory, whose name is random on every run.
package tempdir

import (
	"bytes"
	"os"
)

// CountLines returns the number of lines of the file at path.
func CountLines(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n, nil
}
