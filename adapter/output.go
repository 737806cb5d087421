package adapter

import (
	"bytes"
	"sync"
)

// lineOutput turns the target's output, which arrives in pieces as the
// pipes are read, into output events of whole lines: a panic's message is
// one event, not twenty. What is left without a newline goes at flush.
type lineOutput struct {
	send func(stream, text string)

	mu  sync.Mutex // the two streams are read concurrently
	buf map[string]*bytes.Buffer
}

func (o *lineOutput) write(stream string, p []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.buf == nil {
		o.buf = map[string]*bytes.Buffer{}
	}
	b := o.buf[stream]
	if b == nil {
		b = new(bytes.Buffer)
		o.buf[stream] = b
	}
	b.Write(p)
	if i := bytes.LastIndexByte(b.Bytes(), '\n'); i >= 0 {
		o.send(stream, string(b.Next(i+1)))
	}
}

func (o *lineOutput) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for stream, b := range o.buf {
		if b.Len() > 0 {
			o.send(stream, b.String())
			b.Reset()
		}
	}
}
