package adapter

import (
	"bufio"
	"io"
)

// newReader buffers the client's stream for go-dap's message reader.
func newReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, 64*1024) }
